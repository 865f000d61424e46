// Package ppmd decodes PPMd variant H (Dmitry Shkarin's PPMII as 7-Zip's
// Ppmd7 and RAR 3.x use it) and variant I revision 1 (7-Zip's Ppmd8, zip
// method 98, APPNOTE 5.8). A model keeps its contexts in one byte heap
// with PPMd's own sub-allocator, so that it runs out of memory, and
// restarts (H; I restarts or cuts its tree down), exactly where the
// reference encoders do.
//
// A model decodes symbols through a RangeDecoder: Init7z for 7-Zip's
// variant H streams, InitRAR for RAR 3.x blocks, InitI for variant I.
//
// # Security concerns
//
// The heap is allocated once at the size the stream declares; callers
// bound that size (by their memory limit) before calling NewH, NewI or
// Reset. Every heap access is bounds-checked and the decoders recover a
// violation as ErrCorrupt.
package ppmd

import (
	"github.com/unpack-dev/unpack/internal/archive"
)

// ErrCorrupt reports invalid PPMd data.
var ErrCorrupt = archive.Corruptf("ppmd: corrupt data")

// ErrEndMark is returned by DecodeSymbol at the stream's end marker (an
// escape from the order -1 context), which 7-Zip writers may emit.
var ErrEndMark = archive.Corruptf("ppmd: end marker")

// Limits of the model parameters.
const (
	MinOrder   = 2
	MaxOrder   = 64
	MinMemSize = 1 << 11
	MaxMemSize = 0xFFFFFFFF - 12*3
)

const (
	unitSize   = 12
	numIndexes = 4 + 4 + 4 + 26
	maxFreq    = 124
	intBits    = 7
	periodBits = 7
	binScale   = 1 << (intBits + periodBits)
)

var (
	initBinEsc = [8]uint16{0x3CDD, 0x1F3F, 0x59BF, 0x48F3, 0x64A1, 0x5ABC, 0x6632, 0x6051}
	expEscape  = [16]byte{25, 14, 9, 7, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2}

	indx2Units [numIndexes]byte
	units2Indx [128]byte
	ns2Indx    [256]byte
	ns2BSIndx  [256]byte
	hb2Flag    [256]byte
)

func init() {
	k := 0
	for i := 0; i < numIndexes; i++ {
		step := 4
		if i < 12 {
			step = i>>2 + 1
		}
		for ; step > 0; step-- {
			units2Indx[k] = byte(i)
			k++
		}
		indx2Units[i] = byte(k)
	}
	ns2BSIndx[0] = 0 << 1
	ns2BSIndx[1] = 1 << 1
	for i := 2; i < 11; i++ {
		ns2BSIndx[i] = 2 << 1
	}
	for i := 11; i < 256; i++ {
		ns2BSIndx[i] = 3 << 1
	}
	for i := 0; i < 3; i++ {
		ns2Indx[i] = byte(i)
	}
	m, step := 3, 1
	for i := 3; i < 256; i++ {
		ns2Indx[i] = byte(m)
		if step--; step == 0 {
			m++
			step = m - 2
		}
	}
	for i := 0x40; i < 0x100; i++ {
		hb2Flag[i] = 8
	}
}

type see struct {
	summ  uint16
	shift byte
	count byte
}

func (s *see) mean() uint32 {
	r := uint32(s.summ >> s.shift)
	s.summ -= uint16(r)
	if r == 0 {
		return 1
	}
	return r
}

func (s *see) update() {
	if s.shift < periodBits {
		if s.count--; s.count == 0 {
			s.summ <<= 1
			s.count = byte(3 << s.shift)
			s.shift++
		}
	}
}

// ModelH is a PPMd variant H model with its heap. Heap references are
// byte offsets; 0 is nil.
type ModelH struct {
	heap     []byte
	size     uint32 // memory size as declared
	base     uint32 // where the text area starts
	text     uint32 // next free byte of the text area
	unitsBeg uint32
	loUnit   uint32
	hiUnit   uint32
	glue     uint32
	freeList [numIndexes]uint32

	minCtx, maxCtx uint32
	found          uint32 // state reference
	orderFall      int
	initEsc        uint32
	prevSuccess    uint32
	maxOrder       int
	hiBitsFlag     uint32
	runLength      int32
	initRL         int32

	binSumm [128][64]uint16
	see     [25][16]see
	dummy   see

	charMask [256]byte // 0xFF for the symbols masked after escapes
	stack    [MaxOrder]uint32
}

// NewH returns a model of the given order and memory size (bytes).
func NewH(order, memSize int) (*ModelH, error) {
	m := &ModelH{}
	if err := m.Reset(order, memSize); err != nil {
		return nil, err
	}
	return m, nil
}

// Reset restarts m with a new order and memory size, reusing its heap when
// it is large enough.
func (m *ModelH) Reset(order, memSize int) error {
	if order < MinOrder || order > MaxOrder || memSize < MinMemSize || int64(memSize) > MaxMemSize {
		return archive.Corruptf("ppmd: bad parameters (order %d, memory %d)", order, memSize)
	}
	// The text area starts past the nil reference, where the units end
	// 4-aligned, so that as few units as possible straddle cache lines.
	m.base = 4 - uint32(memSize)&3
	need := int(m.base) + memSize + unitSize
	if cap(m.heap) < need {
		m.heap = newHeap(need)
	} else {
		m.heap = m.heap[:need]
	}
	m.size = uint32(memSize)
	m.maxOrder = order
	m.restart()
	m.dummy.shift = periodBits
	return nil
}

// Heap accessors. Contexts: NumStats u16 @0, SummFreq u16 @2, Stats u32 @4,
// Suffix u32 @8; a context with one state keeps it at @2 (OneState).
// States: Symbol @0, Freq @1, Successor u32 @2.

func (m *ModelH) u16(p uint32) uint32 { return le16(m.heap[int(p) : int(p)+2]) }
func (m *ModelH) u32(p uint32) uint32 { return le32(m.heap[int(p) : int(p)+4]) }
func (m *ModelH) set16(p, v uint32)   { put16(m.heap[int(p):int(p)+2], v) }
func (m *ModelH) set32(p, v uint32)   { put32(m.heap[int(p):int(p)+4], v) }

func (m *ModelH) numStats(c uint32) uint32 { return m.u16(c) }
func (m *ModelH) summFreq(c uint32) uint32 { return m.u16(c + 2) }
func (m *ModelH) stats(c uint32) uint32    { return m.u32(c + 4) }
func (m *ModelH) suffix(c uint32) uint32   { return m.u32(c + 8) }
func oneState(c uint32) uint32             { return c + 2 }

func (m *ModelH) sym(s uint32) uint32       { return uint32(m.heap[s]) }
func (m *ModelH) freq(s uint32) uint32      { return uint32(m.heap[s+1]) }
func (m *ModelH) setFreq(s, f uint32)       { m.heap[s+1] = byte(f) }
func (m *ModelH) successor(s uint32) uint32 { return m.u32(s + 2) }
func (m *ModelH) setSucc(s, v uint32)       { m.set32(s+2, v) }

func (m *ModelH) copyState(dst, src uint32) { copy(m.heap[dst:dst+6], m.heap[src:src+6]) }

func (m *ModelH) swapStates(a, b uint32) {
	var t [6]byte
	copy(t[:], m.heap[a:a+6])
	copy(m.heap[a:a+6], m.heap[b:b+6])
	copy(m.heap[b:b+6], t[:])
}

func u2b(nu uint32) uint32    { return nu * unitSize }
func i2u(i uint32) uint32     { return uint32(indx2Units[i]) }
func u2i(nu uint32) uint32    { return uint32(units2Indx[nu-1]) }
func (m *ModelH) end() uint32 { return m.base + m.size }

// The sub-allocator.

func (m *ModelH) insertNode(p, indx uint32) {
	m.set32(p, m.freeList[indx])
	m.freeList[indx] = p
}

func (m *ModelH) removeNode(indx uint32) uint32 {
	p := m.freeList[indx]
	m.freeList[indx] = m.u32(p)
	return p
}

func (m *ModelH) splitBlock(p, oldIndx, newIndx uint32) {
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

// Free-block nodes during gluing: Stamp u16 @0, NU u16 @2, Next u32 @4,
// Prev u32 @8.
func (m *ModelH) glueFreeBlocks() {
	head := m.end()
	n := head
	m.glue = 255
	for i := uint32(0); i < numIndexes; i++ {
		nu := i2u(i)
		next := m.freeList[i]
		m.freeList[i] = 0
		for next != 0 {
			node := next
			m.set32(node+4, n)
			m.set32(n+8, next)
			n = next
			next = m.u32(node)
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

func (m *ModelH) allocUnitsRare(indx uint32) uint32 {
	if m.glue == 0 {
		m.glueFreeBlocks()
		if m.freeList[indx] != 0 {
			return m.removeNode(indx)
		}
	}
	i := indx
	for {
		i++
		if i == numIndexes {
			n := u2b(i2u(indx))
			m.glue--
			if m.unitsBeg-m.text > n {
				m.unitsBeg -= n
				return m.unitsBeg
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

func (m *ModelH) allocUnits(indx uint32) uint32 {
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

func (m *ModelH) allocContext() uint32 {
	if m.hiUnit != m.loUnit {
		m.hiUnit -= unitSize
		return m.hiUnit
	}
	if m.freeList[0] != 0 {
		return m.removeNode(0)
	}
	return m.allocUnitsRare(0)
}

func (m *ModelH) shrinkUnits(old, oldNU, newNU uint32) uint32 {
	i0, i1 := u2i(oldNU), u2i(newNU)
	if i0 == i1 {
		return old
	}
	if m.freeList[i1] != 0 {
		p := m.removeNode(i1)
		copy(m.heap[p:p+newNU*unitSize], m.heap[old:old+newNU*unitSize])
		m.insertNode(old, i0)
		return p
	}
	m.splitBlock(old, i0, i1)
	return old
}

// restart empties the model (RestartModel).
func (m *ModelH) restart() {
	m.freeList = [numIndexes]uint32{}
	m.text = m.base
	m.hiUnit = m.text + m.size
	m.loUnit = m.hiUnit - m.size/8/unitSize*7*unitSize
	m.unitsBeg = m.loUnit
	m.glue = 0

	m.orderFall = m.maxOrder
	rl := m.maxOrder
	if rl > 12 {
		rl = 12
	}
	m.initRL = -int32(rl) - 1
	m.runLength = m.initRL
	m.prevSuccess = 0

	m.hiUnit -= unitSize
	c := m.hiUnit
	m.minCtx, m.maxCtx = c, c
	m.set32(c+8, 0)
	m.set16(c, 256)
	m.set16(c+2, 257)
	s := m.loUnit
	m.found = s
	m.loUnit += u2b(256 / 2)
	m.set32(c+4, s)
	for i := uint32(0); i < 256; i++ {
		p := s + i*6
		m.heap[p] = byte(i)
		m.heap[p+1] = 1
		m.setSucc(p, 0)
	}
	for i := range m.binSumm {
		for k := 0; k < 8; k++ {
			v := uint16(binScale - uint32(initBinEsc[k])/uint32(i+2))
			for j := 0; j < 64; j += 8 {
				m.binSumm[i][k+j] = v
			}
		}
	}
	for i := range m.see {
		for k := range m.see[i] {
			m.see[i][k] = see{summ: uint16((5*i + 10) << (periodBits - 4)), shift: periodBits - 4, count: 4}
		}
	}
}
