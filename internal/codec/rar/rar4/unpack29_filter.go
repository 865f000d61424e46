package rar4

import (
	"hash/crc32" // not a checksum: RAR 3 identifies its standard VM filters by the CRC32 of their code

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
)

// Limits of RAR 3 filters, as unrar defines them.
const (
	vmMemSize       = 0x40000 // VM memory: the largest filter block
	maxFilters29    = 8192    // filter definitions and pending blocks
	maxFilterCode29 = 0x10000 // VM program size
)

// filter29 is one pending filter block.
type filter29 struct {
	start  int64 // absolute window position of the block
	length int
	kind   vmFilterKind
	r      [7]uint32 // initial VM registers
}

// filterState29 is the filter bookkeeping of the RAR 2.9 decoder: the
// filter programs defined so far (recognised standard filters) and the last
// block length of each.
type filterState29 struct {
	kinds   []vmFilterKind
	lengths []int
	last    int
	code    []byte // reused buffer for a filter definition
	prog    []byte // reused buffer for a filter's VM program
}

func (f *filterState29) reset() {
	f.kinds = f.kinds[:0]
	f.lengths = f.lengths[:0]
	f.last = 0
}

func (f *filterState29) codeBuf(n int) []byte {
	if cap(f.code) < n {
		f.code = make([]byte, max(n, 2*cap(f.code), 256))
	}
	return f.code[:n]
}

// vmBits reads the bit fields of a filter definition (unrar's BitInput over
// VM code); past the end it reads zeros and records the overrun.
type vmBits struct {
	b   []byte
	pos int // in bits
}

func (v *vmBits) get16() uint32 {
	i := v.pos >> 3
	var x uint32
	for k := 0; k < 3; k++ {
		x <<= 8
		if i+k < len(v.b) {
			x |= uint32(v.b[i+k])
		}
	}
	return (x >> (8 - uint(v.pos&7))) & 0xffff
}

func (v *vmBits) add(n int) { v.pos += n }

func (v *vmBits) over() bool { return v.pos > len(v.b)*8 }

// readData is unrar's RarVM::ReadData: a 4-, 8-, 16- or 32-bit number.
func (v *vmBits) readData() uint32 {
	x := v.get16()
	switch x & 0xc000 {
	case 0:
		v.add(6)
		return (x >> 10) & 0xf
	case 0x4000:
		if x&0x3c00 == 0 {
			v.add(14)
			return 0xffffff00 | (x>>2)&0xff
		}
		v.add(10)
		return (x >> 6) & 0xff
	case 0x8000:
		v.add(2)
		x = v.get16()
		v.add(16)
		return x
	default:
		v.add(2)
		x = v.get16() << 16
		v.add(16)
		x |= v.get16()
		v.add(16)
		return x
	}
}

// add parses a filter definition (unrar's AddVMCode) and queues its block.
func (f *filterState29) add(u *unpacker, first byte, code []byte) error {
	in := vmBits{b: code}
	num := f.last
	if first&0x80 != 0 {
		n := in.readData()
		switch {
		case n == 0:
			f.reset()
			num = 0
		case uint64(n-1) > uint64(len(f.kinds)) || n-1 > maxFilters29:
			// Checked before the conversion: on a 32-bit int, n-1 could
			// turn negative.
			return errBadFilter
		default:
			num = int(n - 1)
		}
	}
	if num > len(f.kinds) || num > maxFilters29 {
		return errBadFilter
	}
	f.last = num
	isNew := num == len(f.kinds)
	if f.kinds == nil {
		// Streams define a few dozen filters at most, as a rule.
		f.kinds, f.lengths = make([]vmFilterKind, 0, 64), make([]int, 0, 64)
	}
	if isNew {
		f.kinds = append(f.kinds, vmNone)
		f.lengths = append(f.lengths, 0)
	}
	if len(u.filters) >= maxFilters29 {
		return errTooMany
	}
	if u.filters == nil {
		u.filters = make([]filter29, 0, 64) // more are rarely pending
	}
	start := int64(in.readData())
	if first&0x40 != 0 {
		start += 258
	}
	var flt filter29
	flt.start = u.unp + start
	if first&0x20 != 0 {
		n := in.readData()
		if n > vmMemSize {
			return errBadFilter
		}
		f.lengths[num] = int(n)
	}
	flt.length = f.lengths[num]
	flt.r[4] = uint32(flt.length)
	if first&0x10 != 0 {
		mask := in.get16() >> 9
		in.add(7)
		for i := 0; i < 7; i++ {
			if mask&(1<<i) != 0 {
				flt.r[i] = in.readData()
			}
		}
	}
	if isNew {
		n := in.readData()
		if n == 0 || n >= maxFilterCode29 || uint64(in.pos/8)+uint64(n) > uint64(len(code)) {
			return errBadFilter
		}
		size := int(n)
		if cap(f.prog) < size {
			f.prog = make([]byte, 0, max(size, 256)) // the standard filters' are shorter
		}
		prog := f.prog[:0]
		for i := 0; i < size; i++ {
			prog = append(prog, byte(in.get16()>>8))
			in.add(8)
		}
		f.prog = prog
		kind, err := identifyVMFilter(prog)
		if err != nil {
			return err
		}
		f.kinds[num] = kind
	}
	flt.kind = f.kinds[num]
	// Flag 0x08 announces global data for a VM program; the standard
	// filters do not use it, and unrar ignores it too.
	if in.over() {
		return errBadFilter
	}
	if flt.kind == vmNone {
		return errBadFilter
	}
	u.filters = append(u.filters, flt)
	return nil
}

// identifyVMFilter recognises a standard filter by its program's length and
// CRC32, as unrar does; any other program is refused.
func identifyVMFilter(prog []byte) (vmFilterKind, error) {
	var x byte
	for _, c := range prog[1:] {
		x ^= c
	}
	if x != prog[0] {
		return vmNone, errBadFilter
	}
	sum := crc32.ChecksumIEEE(prog)
	for _, s := range standardFilters {
		if s.length == len(prog) && s.crc == sum {
			return s.kind, nil
		}
	}
	return vmNone, archive.Unsupportedf("rar: unknown RAR VM filter program (%d bytes, CRC32 %08x)", len(prog), sum)
}

// runFilters runs the filter at the head of the queue, and any following
// filters on the same block, leaving the result in u.out.
func (u *unpacker) runFilters() error {
	f := u.filters[0]
	n := f.length
	if need := 2 * n; len(u.fmem) < need {
		// Filter memory for the largest block the file can hold, taken
		// once: 2×vmMemSize, or less for a smaller file.
		m := 2 * vmMemSize
		if u.size >= 0 && u.size < vmMemSize {
			m = rarshared.RoundPow2(max(2*int(u.size), 4<<10))
		}
		rarshared.PutBuf(u.fmem)
		u.fmem = rarshared.GetBuf(max(m, rarshared.RoundPow2(need)))
	}
	s := f.start & u.mask
	if e := s + int64(n); e <= int64(len(u.win)) {
		copy(u.fmem, u.win[s:e])
	} else {
		c := copy(u.fmem, u.win[s:])
		copy(u.fmem[c:n], u.win)
	}
	out := runVMFilter(&f, u.fmem, uint32(f.start-u.fileStart))
	k := 1
	for ; k < len(u.filters); k++ {
		g := u.filters[k]
		if g.start != f.start || g.length != len(out) {
			break
		}
		if len(out) > 0 && &out[0] != &u.fmem[0] {
			copy(u.fmem, out)
		}
		out = runVMFilter(&g, u.fmem, uint32(g.start-u.fileStart))
	}
	u.filters = append(u.filters[:0], u.filters[k:]...)
	u.wr = f.start + int64(n)
	u.out = out
	return nil
}
