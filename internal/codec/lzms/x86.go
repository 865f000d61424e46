package lzms

import (
	"encoding/binary"
	"math"
)

// undoX86 reverses LZMS's x86 translation in place: where the data look
// like x86 code (two references to one 16-bit target within a window),
// the 32-bit operands of calls (E8), RIP-relative LEA/MOV (48/4C 8D/8B
// xx05), indirect calls (FF 15) and lock adds (F0 83 05) were made
// absolute by the compressor; they are made relative again.
//
// usages (65536 entries) holds where each target was last seen, as
// positions counted from base; it is kept from one call to the next, with
// the next base returned past every position stored and a window more,
// so that nothing from an earlier block counts as recent. Zeroed usages
// go with base 0.
func undoX86(data []byte, usages []int32, base int32) int32 {
	size := len(data)
	if size <= 17 {
		return base
	}
	if base == 0 || int64(base)+int64(size)+x86IDWindow+1 > math.MaxInt32 {
		clearUsages(usages)
		base = 0
	}
	s := x86Scan{usages: usages, base: base, lastX86: -x86MaxTransOff - 1, p: 1}
	// No translation starts in the last 16 bytes.
	s.scan(data, size-16, true)
	return base + int32(size) + x86IDWindow + 1
}

// clearUsages marks every target as not seen within the window.
func clearUsages(usages []int32) {
	for i := range usages[:65536] {
		usages[i] = -x86IDWindow - 1
	}
}

// x86Scan is the x86 pass through one block: the usage table, the last
// instruction that counted as x86, and the next position to look at (the
// first byte is never looked at).
type x86Scan struct {
	usages  []int32
	base    int32
	lastX86 int32
	p       int
	patches []patch // the translations not made in place, in order
}

// patch is an operand's value with the translation undone, at the
// position in the block of its first byte.
type patch struct {
	at int
	v  uint32
}

// scan looks at the instructions that start before upto; their bytes
// (up to seven from the start) are in data, and are read as the
// compressor left them. Each operand translated back is written into
// data when inPlace, or else added to s.patches. The position reached
// is in s.p: every byte before it is final.
func (s *x86Scan) scan(data []byte, upto int, inPlace bool) {
	scan := data[:upto]
	p := s.p
	for p < upto {
		// Most bytes start no instruction of interest: skip them in a
		// loop of their own, four at a time.
		for p+4 <= len(scan) {
			q := scan[p : p+4]
			if x86Lead[q[0]]|x86Lead[q[1]]|x86Lead[q[2]]|x86Lead[q[3]] != 0 {
				break
			}
			p += 4
		}
		for p < len(scan) && x86Lead[scan[p]] == 0 {
			p++
		}
		if p >= len(scan) {
			break
		}
		var opLen int
		maxOff := int32(x86MaxTransOff)
		switch b := data[p]; b {
		case 0xFF:
			if data[p+1] == 0x15 {
				opLen = 2
			}
		case 0xF0:
			if data[p+1] == 0x83 && data[p+2] == 0x05 {
				opLen = 3
			}
		case 0x48, 0x4C:
			if data[p+2]&0x07 == 0x05 && (data[p+1] == 0x8D || data[p+1] == 0x8B && b&0x04 == 0 && data[p+2]&0xF0 == 0) {
				opLen = 3
			}
		case 0xE8:
			opLen = 1
			maxOff >>= 1
		case 0xE9:
			// Jumps are left alone, and so are their operands.
			p += 5
			continue
		}
		if opLen == 0 {
			p++
			continue
		}
		i := int32(p)
		p += opLen
		n := binary.LittleEndian.Uint32(data[p:])
		if i-s.lastX86 <= maxOff {
			n -= uint32(i)
			if inPlace {
				binary.LittleEndian.PutUint32(data[p:], n)
			} else {
				s.patches = append(s.patches, patch{p, n})
			}
		}
		// The target is read from the operand as translated back.
		target := uint16(i) + uint16(n)
		i += int32(opLen) + 3
		if s.base+i-s.usages[target] <= x86IDWindow {
			s.lastX86 = i
		}
		s.usages[target] = s.base + i
		p += 4
	}
	s.p = p
}

// x86Lead marks the bytes undoX86 looks at: the first bytes of the
// instructions translated, and of jumps (skipped with their operands).
var x86Lead = [256]uint8{0xFF: 1, 0xF0: 1, 0x48: 1, 0x4C: 1, 0xE8: 1, 0xE9: 1}

// X86 undoes the x86 translation of a block that DecodeRaw decodes, on
// copies of its bytes taken in order, while the rest is still being
// decoded (the block itself stays as decoded: later matches copy from
// it). The zero value is ready for Reset.
type X86 struct {
	s    x86Scan
	size int
	used int // patches before it lie before every later copy
}

// Reset starts on a block of size bytes.
func (x *X86) Reset(size int) {
	if x.s.usages == nil {
		x.s.usages = make([]int32, 65536)
	}
	clearUsages(x.s.usages)
	x.s.base, x.s.lastX86, x.s.p = 0, -x86MaxTransOff-1, 1
	x.s.patches = x.s.patches[:0]
	x.size, x.used = size, 0
}

// Advance looks at the instructions that start before limit in data (the
// block, of which n bytes are decoded) and returns how many bytes from
// the start of the block are final: Copy may take them. Passing the end
// of the next copy as limit keeps the patches kept few.
func (x *X86) Advance(data []byte, n, limit int) int {
	end := x.size - 16
	if x.size <= 17 || x.s.p >= end {
		return n
	}
	upto := min(n-7, end, limit)
	if upto > x.s.p {
		x.s.scan(data[:n], upto, false)
	}
	if x.s.p >= end {
		return n
	}
	return min(x.s.p, n)
}

// Copy copies data[off:off+len(out)] into out with the translation
// undone; off+len(out) is at most what Advance returned. Copies go
// forwards: one from before where an earlier one ended needs Reset and
// Advance again.
func (x *X86) Copy(out, data []byte, off int) {
	copy(out, data[off:])
	end := off + len(out)
	ps := x.s.patches
	i := x.used
	for i < len(ps) && ps[i].at+4 <= off {
		i++
	}
	x.used = i
	for ; i < len(ps) && ps[i].at < end; i++ {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], ps[i].v)
		for j, c := range b {
			if k := ps[i].at + j - off; k >= 0 && k < len(out) {
				out[k] = c
			}
		}
	}
	// Forget the patches behind, now and then.
	if x.used >= 1024 && x.used >= len(ps)/2 {
		x.s.patches = ps[:copy(ps, ps[x.used:])]
		x.used = 0
	}
}
