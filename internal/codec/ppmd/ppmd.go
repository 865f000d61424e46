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
// Reset; the heap's address range is that size rounded up to a power of
// two (up to twice the size; the model uses its own part only, and the
// rest stays untouched where the allocation is fresh). Every heap access
// masks its offset to the heap's range, so that no offset read from the
// heap can reach outside it. Data no encoder writes (a count outside the
// range coder's total, a variant I cut-off that frees nothing, a RAR
// range too narrow for a total; variant I cuts such a total down to the
// range, as 7-Zip 20.01 and later do) ends decoding with ErrCorrupt, and
// the model decodes nothing more until it is Reset.
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
	// expEscape by a binary probability's top bits: 16 entries, and room
	// for the 6 bits of any uint16 (probabilities stay below 2^14).
	expEscape = [64]byte{25, 14, 9, 7, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2}

	indx2Units [numIndexes]byte
	units2Indx [256]byte // by units-1; past 128 units (never in a model) the last index
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
	for ; k < len(units2Indx); k++ {
		units2Indx[k] = numIndexes - 1
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
	// shift is at most periodBits; the mask spares the compiler's
	// fix-up for shifts past the width.
	r := uint32(s.summ >> (s.shift & 15))
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
	subAlloc

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

	charMask [256]byte // 0 for the symbols masked by a symbol's escapes, 0xFF for the others; all 0xFF between symbols
	stack    [MaxOrder]uint32
	failed   bool     // met data no encoder writes: decodes nothing until Reset
	upd      updState // where updateModel's assembly left the update to Go
	until    uint32   // decode's run ends after this symbol (noStop: none)
	// rangeFail: escapeH met a range below its total (RAR's coder, data
	// no encoder writes), which threshold fails the coder for.
	rangeFail bool
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
	if !m.init(memSize, false) {
		return archive.Limitf("ppmd: model of %d bytes does not fit this system's address space", memSize)
	}
	m.failed = false
	m.charMask = allUnmasked
	m.maxOrder = order
	m.restart()
	m.dummy.shift = periodBits
	return nil
}

// Heap records of variant H. Contexts: NumStats u16 @0, SummFreq u16 @2,
// Stats u32 @4, Suffix u32 @8; a context with one state keeps it at @2
// (OneState). States: Symbol @0, Freq @1, Successor u32 @2.

// restart empties the model (RestartModel).
func (m *ModelH) restart() {
	m.reset()

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
		*state(m.heap, s+i*6) = [6]byte{byte(i), 1}
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
