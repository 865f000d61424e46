package ppmd

import (
	"github.com/unpack-dev/unpack/internal/archive"
)

// PPMd variant I revision 1 (Shkarin's PPMd var.I as 7-Zip's Ppmd8 and
// zip method 98 use it). It shares the unit tables, the SEE record and
// the carry-less range decoder (InitI) with variant H, but its contexts,
// sub-allocator and model updates differ: contexts keep NumStats-1 and a
// flags byte, free blocks carry stamps so that memory can be glued and
// given back to the text area, and when memory runs out the model either
// restarts or cuts its deepest branches off (the restore method).

// Restore methods of variant I: what the model does when memory runs out.
const (
	RestoreRestart = 0 // start again from an empty model
	RestoreCutOff  = 1 // cut the model's branches down to a quarter free
)

// Limits of the variant I parameters.
const (
	MaxOrderI   = 16
	MaxMemSizeI = 0xFFFFFFFF - 12*3
)

// ErrUnsupportedRestore reports a restore method other than RESTART and
// CUT_OFF (FREEZE, which 7-Zip does not support either).
var ErrUnsupportedRestore = archive.Unsupportedf("ppmd: variant I restore method not supported")

var ns2IndxI [260]byte

func init() {
	for i := 0; i < 5; i++ {
		ns2IndxI[i] = byte(i)
	}
	m, k := 5, 1
	for i := 5; i < 260; i++ {
		ns2IndxI[i] = byte(m)
		if k--; k == 0 {
			m++
			k = m - 4
		}
	}
}

// ModelI is a PPMd variant I model with its heap. Heap references are
// byte offsets; 0 is nil.
type ModelI struct {
	subAlloc

	minCtx, maxCtx uint32
	found          uint32
	orderFall      uint32
	initEsc        uint32
	prevSuccess    uint32
	maxOrder       uint32
	restoreMethod  uint32
	runLength      int32
	initRL         int32

	binSumm [25][64]uint16
	see     [24][32]see
	dummy   see

	charMask [256]byte             // 0 for the symbols masked after escapes, 0xFF for the others
	stack    [MaxOrderI + 1]uint32 // createSuccessors' states to link
	failed   bool                  // met data no encoder writes: decodes nothing until Reset
	upd      updState              // where updateModel's assembly left the update to Go
}

// NewI returns a variant I model of the given order, memory size (bytes)
// and restore method.
func NewI(order, memSize, restore int) (*ModelI, error) {
	m := &ModelI{}
	if err := m.Reset(order, memSize, restore); err != nil {
		return nil, err
	}
	return m, nil
}

// Reset restarts m with new parameters, reusing its heap when it is large
// enough.
func (m *ModelI) Reset(order, memSize, restore int) error {
	if order < MinOrder || order > MaxOrderI || memSize < MinMemSize || int64(memSize) > MaxMemSizeI {
		return archive.Corruptf("ppmd: bad variant I parameters (order %d, memory %d)", order, memSize)
	}
	if restore != RestoreRestart && restore != RestoreCutOff {
		return ErrUnsupportedRestore
	}
	if !m.init(memSize, true) {
		return archive.Limitf("ppmd: model of %d bytes does not fit this system's address space", memSize)
	}
	m.failed = false
	m.maxOrder = uint32(order)
	m.restoreMethod = uint32(restore)
	m.restart()
	m.dummy = see{shift: periodBits, count: 64}
	return nil
}

// Heap accessors. Contexts: NumStats-1 u8 @0, Flags u8 @1, SummFreq u16
// @2, Stats u32 @4, Suffix u32 @8; a context with one state keeps it at
// @2. States as in variant H. Free blocks: Stamp u32 @0, Next u32 @4, NU
// u32 @8.

func (m *ModelI) numStats(c uint32) uint32  { return uint32(unit(m.heap, c)[0]) }
func (m *ModelI) setNumStats(c, n uint32)   { unit(m.heap, c)[0] = byte(n) }
func (m *ModelI) flags(c uint32) uint32     { return uint32(unit(m.heap, c)[1]) }
func (m *ModelI) setFlags(c, f uint32)      { unit(m.heap, c)[1] = byte(f) }
func (m *ModelI) summFreq(c uint32) uint32  { return m.u16(c + 2) }
func (m *ModelI) setSummFreq(c, f uint32)   { m.set16(c+2, f) }
func (m *ModelI) stats(c uint32) uint32     { return m.u32(c + 4) }
func (m *ModelI) suffix(c uint32) uint32    { return m.u32(c + 8) }
func (m *ModelI) sym(s uint32) uint32       { return uint32(state(m.heap, s)[0]) }
func (m *ModelI) freq(s uint32) uint32      { return uint32(state(m.heap, s)[1]) }
func (m *ModelI) setFreq(s, f uint32)       { state(m.heap, s)[1] = byte(f) }
func (m *ModelI) successor(s uint32) uint32 { return m.u32(s + 2) }
func (m *ModelI) setSucc(s, v uint32)       { m.set32(s+2, v) }
func (m *ModelI) copyState(dst, src uint32) { *state(m.heap, dst) = *state(m.heap, src) }
func (m *ModelI) swapStates(a, b uint32) {
	sa, sb := state(m.heap, a), state(m.heap, b)
	*sa, *sb = *sb, *sa
}

// hi40 is 1 for symbols 0x40 and above, which the flags track.
func hi40(sym uint32) uint32 { return (sym + 0xC0) >> 8 }

func (m *ModelI) freeUnits(p, nu uint32) { m.insertNode(p, u2i(nu)) }

func (m *ModelI) specialFreeUnit(p uint32) {
	if p != m.unitsStart {
		m.insertNode(p, 0)
	} else {
		m.unitsStart += unitSize
	}
}

func (m *ModelI) moveUnitsUp(old, nu uint32) uint32 {
	indx := u2i(nu)
	if old > m.unitsStart+16*1024 || old > m.freeList[indx] {
		return old
	}
	p := m.removeNode(indx)
	m.copyUnits(p, old, nu)
	if old != m.unitsStart {
		m.insertNode(old, indx)
	} else {
		m.unitsStart += u2b(i2u(indx))
	}
	return p
}

// expandTextArea gives the free blocks just above the text area back to
// it and drops them from their free lists; false for a free block of no
// units (a stale stamp, never in a model 7-Zip builds).
func (m *ModelI) expandTextArea() bool {
	var count [numIndexes]uint32
	if m.loUnit != m.hiUnit {
		m.set32(m.loUnit, 0)
	}
	node := m.unitsStart
	for m.u32(node) == emptyNode {
		m.set32(node, 0)
		nu := m.u32(node + 8)
		if nu == 0 {
			return false
		}
		count[u2i(nu)]++
		node += nu * unitSize
	}
	m.unitsStart = node
	for i := range m.freeList {
		// next is the field holding the reference being examined: the
		// list head (0) or a block's Next field.
		next := uint32(0)
		get := func() uint32 {
			if next == 0 {
				return m.freeList[i]
			}
			return m.u32(next)
		}
		for count[i] != 0 {
			node := get()
			if node == 0 {
				return false // the list ended before its counted blocks
			}
			for m.u32(node) == 0 {
				if next == 0 {
					m.freeList[i] = m.u32(node + 4)
				} else {
					m.set32(next, m.u32(node+4))
				}
				node = get()
				m.stamps[i]--
				if count[i]--; count[i] == 0 {
					break
				}
				if node == 0 {
					return false
				}
			}
			next = node + 4
		}
	}
	return true
}

func (m *ModelI) usedMemory() uint32 {
	v := uint32(0)
	for i, n := range m.stamps {
		v += n * i2u(uint32(i))
	}
	return m.size - (m.hiUnit - m.loUnit) - (m.unitsStart - m.text) - u2b(v)
}

// restart empties the model (RestartModel).
func (m *ModelI) restart() {
	m.reset()

	m.orderFall = m.maxOrder
	rl := min(m.maxOrder, 12)
	m.initRL = -int32(rl) - 1
	m.runLength = m.initRL
	m.prevSuccess = 0

	m.hiUnit -= unitSize
	c := m.hiUnit
	m.minCtx, m.maxCtx = c, c
	m.set32(c+8, 0)
	m.setNumStats(c, 255)
	m.setFlags(c, 0)
	m.setSummFreq(c, 256+1)
	s := m.loUnit
	m.found = s
	m.loUnit += u2b(256 / 2)
	m.set32(c+4, s)
	for i := uint32(0); i < 256; i++ {
		p := s + i*6
		*state(m.heap, p) = [6]byte{byte(i), 1}
	}
	i := 0
	for k := range m.binSumm {
		for ns2IndxI[i] == byte(k) {
			i++
		}
		for j := 0; j < 8; j++ {
			v := uint16(binScale - uint32(initBinEsc[j])/uint32(i+1))
			for r := 0; r < 64; r += 8 {
				m.binSumm[k][j+r] = v
			}
		}
	}
	i = 0
	for k := range m.see {
		for ns2IndxI[i+3] == byte(k+3) {
			i++
		}
		for j := range m.see[k] {
			m.see[k][j] = see{summ: uint16((2*i + 5) << (periodBits - 4)), shift: periodBits - 4, count: 7}
		}
	}
}

// ParamsI splits zip's PPMd parameter word (APPNOTE 5.8.4; the first two
// bytes of a method 98 entry, little-endian) into the model order, the
// memory size in bytes and the restore method.
func ParamsI(word uint16) (order, memSize, restore int) {
	return int(word&0xF) + 1, (int(word>>4&0xFF) + 1) << 20, int(word >> 12)
}
