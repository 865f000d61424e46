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
		for i := range usages[:65536] {
			usages[i] = -x86IDWindow - 1
		}
		base = 0
	}
	lastX86 := int32(-x86MaxTransOff - 1)
	// No translation starts in the last 16 bytes; the first byte is
	// never looked at.
	end := size - 16
	scan := data[:end]
	for p := 1; p < end; {
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
		if i-lastX86 <= maxOff {
			n := binary.LittleEndian.Uint32(data[p:])
			binary.LittleEndian.PutUint32(data[p:], n-uint32(i))
		}
		target := uint16(i) + binary.LittleEndian.Uint16(data[p:])
		i += int32(opLen) + 3
		if base+i-usages[target] <= x86IDWindow {
			lastX86 = i
		}
		usages[target] = base + i
		p += 4
	}
	return base + int32(size) + x86IDWindow + 1
}

// x86Lead marks the bytes undoX86 looks at: the first bytes of the
// instructions translated, and of jumps (skipped with their operands).
var x86Lead = [256]uint8{0xFF: 1, 0xF0: 1, 0x48: 1, 0x4C: 1, 0xE8: 1, 0xE9: 1}
