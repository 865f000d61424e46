package ppmd

import "github.com/unpack-dev/unpack/internal/hugemem"

// The sub-allocator both variants share (Shkarin's, as 7-Zip's Ppmd7.c
// and Ppmd8.c have it). It hands out units of 12 bytes from one heap:
// contexts from the top down (hiUnit), state arrays from the bottom up
// (loUnit) and from free lists per size index, and, once both meet, from
// the top of the text area. Where it runs out of memory decides where a
// model restarts, so it must be exact. Free blocks look alike in both
// variants (Stamp u32 @0, emptyNode; Next u32 @4; NU u32 @8); only their
// gluing differs.

const emptyNode = 0xFFFFFFFF

// subAlloc is a model heap with its allocator state. Heap references are
// byte offsets; 0 is nil.
type subAlloc struct {
	heap        []byte
	size        uint32 // memory size as declared
	alignOffset uint32 // where the text area starts
	text        uint32 // next free byte of the text area
	unitsStart  uint32
	loUnit      uint32
	hiUnit      uint32
	glueCount   uint32
	freeList    [numIndexes]uint32
	stamps      [numIndexes]uint32 // free blocks per index (variant I's accounting)
	variantI    bool               // glue as variant I
}

// init lays out the heap for a model of memSize bytes, reusing the
// allocation when it is large enough; false when the heap would not fit
// an int. The text area starts past the nil reference, where the units
// end 4-aligned (as few units as possible then straddle cache lines);
// one spare unit follows the end, zeroed, which gluing uses as the list
// head (H) or reads as a stamp (I).
func (a *subAlloc) init(memSize int, variantI bool) bool {
	a.alignOffset = 4 - uint32(memSize)&3
	need := uint64(a.alignOffset) + uint64(memSize) + unitSize
	n, ok := heapLen(need)
	if !ok {
		return false
	}
	if cap(a.heap) < n {
		a.heap = nil
		// Contexts are walked in an order no cache predicts: on a large
		// heap most of the time would go to TLB misses without huge pages.
		a.heap = hugemem.Aligned(n)
	} else {
		a.heap = a.heap[:n]
		clear(a.heap[need-unitSize : need])
	}
	a.size = uint32(memSize)
	a.variantI = variantI
	return true
}

// reset empties the heap: all units are free between loUnit and hiUnit.
func (a *subAlloc) reset() {
	a.freeList = [numIndexes]uint32{}
	a.stamps = [numIndexes]uint32{}
	a.text = a.alignOffset
	a.hiUnit = a.text + a.size
	a.loUnit = a.hiUnit - a.size/8/unitSize*7*unitSize
	a.unitsStart = a.loUnit
	a.glueCount = 0
}

func (m *subAlloc) u16(p uint32) uint32 { return le16(unit(m.heap, p)[:]) }
func (m *subAlloc) u32(p uint32) uint32 { return le32(unit(m.heap, p)[:]) }
func (m *subAlloc) set16(p, v uint32)   { put16(unit(m.heap, p)[:], v) }
func (m *subAlloc) set32(p, v uint32)   { put32(unit(m.heap, p)[:], v) }

// copyUnits copies nu units from src to dst, which do not overlap: a
// few units a time, so no memmove call.
func (m *subAlloc) copyUnits(dst, src, nu uint32) {
	heap := m.heap
	if len(heap) < heapPad {
		return
	}
	for ; nu > 0; nu-- {
		*unit(heap, dst) = *unit(heap, src)
		dst += unitSize
		src += unitSize
	}
}

func u2b(nu uint32) uint32 { return nu * unitSize }
func i2u(i uint32) uint32  { return uint32(indx2Units[i]) }
func u2i(nu uint32) uint32 { return uint32(units2Indx[byte(nu-1)]) }

func (m *subAlloc) insertNode(p, indx uint32) {
	n := unit(m.heap, p)
	put32(n[0:], emptyNode)
	put32(n[4:], m.freeList[indx])
	put32(n[8:], i2u(indx))
	m.freeList[indx] = p
	m.stamps[indx]++
}

func (m *subAlloc) removeNode(indx uint32) uint32 {
	p := m.freeList[indx]
	m.freeList[indx] = m.u32(p + 4)
	m.stamps[indx]--
	return p
}

func (m *subAlloc) splitBlock(p, oldIndx, newIndx uint32) {
	nu := i2u(oldIndx) - i2u(newIndx)
	p += u2b(i2u(newIndx))
	i := u2i(nu)
	if i2u(i) != nu {
		i--
		k := i2u(i)
		m.insertNode(p+u2b(k), nu-k-1)
	}
	m.insertNode(p, i)
}

func (m *subAlloc) allocUnitsRare(indx uint32) uint32 {
	if m.glueCount == 0 {
		if m.variantI {
			m.glueI()
		} else {
			m.glueH()
		}
		if m.freeList[indx] != 0 {
			return m.removeNode(indx)
		}
	}
	i := indx
	for {
		i++
		if i >= numIndexes { // >=: no bounds check on freeList[i] below
			n := u2b(i2u(indx))
			m.glueCount--
			if m.unitsStart-m.text > n {
				m.unitsStart -= n
				return m.unitsStart
			}
			return 0
		}
		if m.freeList[i] != 0 {
			break
		}
	}
	p := m.removeNode(i)
	m.splitBlock(p, i, indx)
	return p
}

func (m *subAlloc) allocUnits(indx uint32) uint32 {
	if m.freeList[indx] != 0 {
		return m.removeNode(indx)
	}
	n := u2b(i2u(indx))
	if n <= m.hiUnit-m.loUnit {
		p := m.loUnit
		m.loUnit += n
		return p
	}
	return m.allocUnitsRare(indx)
}

func (m *subAlloc) allocContext() uint32 {
	if m.hiUnit != m.loUnit {
		m.hiUnit -= unitSize
		return m.hiUnit
	}
	if m.freeList[0] != 0 {
		return m.removeNode(0)
	}
	return m.allocUnitsRare(0)
}

func (m *subAlloc) shrinkUnits(old, oldNU, newNU uint32) uint32 {
	i0, i1 := u2i(oldNU), u2i(newNU)
	if i0 == i1 {
		return old
	}
	if m.freeList[i1] != 0 {
		p := m.removeNode(i1)
		m.copyUnits(p, old, newNU)
		m.insertNode(old, i0)
		return p
	}
	m.splitBlock(old, i0, i1)
	return old
}

// glueH merges adjacent free blocks as variant H does (7-Zip's Ppmd7
// GlueFreeBlocks): the free lists become one doubly linked list of
// nodes (Stamp u16 @0, 0 when free; NU u16 @2; Next u32 @4; Prev u32 @8)
// headed by the spare unit past the end of the heap, whose neighbours are
// merged up to 0xFFFF units, and the merged blocks are listed again.
func (m *subAlloc) glueH() {
	head := m.alignOffset + m.size
	n := head
	m.glueCount = 255
	for i := uint32(0); i < numIndexes; i++ {
		nu := i2u(i)
		next := m.freeList[i]
		m.freeList[i] = 0
		for next != 0 {
			node := next
			next = m.u32(node + 4)
			m.set32(node+4, n)
			m.set32(n+8, node)
			n = node
			m.set16(node, 0)
			m.set16(node+2, nu)
		}
	}
	m.set16(head, 1)
	m.set32(head+4, n)
	m.set32(n+8, head)
	if m.loUnit != m.hiUnit {
		m.set16(m.loUnit, 1)
	}
	for n != head {
		node := n
		nu := m.u16(node + 2)
		for {
			node2 := node + nu*unitSize
			nu += m.u16(node2 + 2)
			if m.u16(node2) != 0 || nu >= 0x10000 {
				break
			}
			prev, next := m.u32(node2+8), m.u32(node2+4)
			m.set32(prev+4, next)
			m.set32(next+8, prev)
			m.set16(node+2, nu)
		}
		n = m.u32(node + 4)
	}
	for n = m.u32(head + 4); n != head; {
		node := n
		next := m.u32(node + 4)
		nu := m.u16(node + 2)
		for ; nu > 128; nu, node = nu-128, node+128*unitSize {
			m.insertNode(node, numIndexes-1)
		}
		i := u2i(nu)
		if i2u(i) != nu {
			i--
			k := i2u(i)
			m.insertNode(node+k*unitSize, nu-k-1)
		}
		m.insertNode(node, i)
		n = next
	}
}

// glueI merges adjacent free blocks as variant I does (7-Zip's Ppmd8
// GlueFreeBlocks): free blocks keep their stamps, so a block is merged
// with the free blocks that follow it, up to any size, and the merged
// blocks are listed again in pieces of at most 128 units.
func (m *subAlloc) glueI() {
	var head uint32
	prev := uint32(0) // the Next field to link the next block into; 0: head
	link := func(v uint32) {
		if prev == 0 {
			head = v
		} else {
			m.set32(prev, v)
		}
	}
	m.glueCount = 1 << 13
	m.stamps = [numIndexes]uint32{}
	// The model's root context is the top unit, so only LoUnit needs a
	// guard stamp.
	if m.loUnit != m.hiUnit {
		m.set32(m.loUnit, 0)
	}
	for i := range m.freeList {
		next := m.freeList[i]
		m.freeList[i] = 0
		for next != 0 {
			node := next
			if nu := m.u32(node + 8); nu != 0 {
				link(next)
				prev = node + 4
				for {
					node2 := node + m.u32(node+8)*unitSize
					if m.u32(node2) != emptyNode {
						break
					}
					m.set32(node+8, m.u32(node+8)+m.u32(node2+8))
					m.set32(node2+8, 0)
				}
			}
			next = m.u32(node + 4)
		}
	}
	link(0)
	for head != 0 {
		node := head
		head = m.u32(node + 4)
		nu := m.u32(node + 8)
		if nu == 0 {
			continue
		}
		for ; nu > 128; nu, node = nu-128, node+128*unitSize {
			m.insertNode(node, numIndexes-1)
		}
		i := u2i(nu)
		if i2u(i) != nu {
			i--
			k := i2u(i)
			m.insertNode(node+k*unitSize, nu-k-1)
		}
		m.insertNode(node, i)
	}
}
