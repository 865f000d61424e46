package lzms

import "encoding/binary"

// undoX86 reverses LZMS's x86 translation in place: where the data look
// like x86 code (two references to one 16-bit target within a window),
// the 32-bit operands of calls (E8), RIP-relative LEA/MOV (48/4C 8D/8B
// xx05), indirect calls (FF 15) and lock adds (F0 83 05) were made
// absolute by the compressor; they are made relative again. usages is
// scratch of 65536 entries.
func undoX86(data []byte, usages []int32) {
	size := len(data)
	if size <= 17 {
		return
	}
	for i := range usages[:65536] {
		usages[i] = -x86IDWindow - 1
	}
	lastX86 := int32(-x86MaxTransOff - 1)
	// No translation starts in the last 16 bytes; the first byte is
	// never looked at.
	end := size - 16
	scan := data[:end]
	for p := 1; p < end; {
		// Most bytes start no instruction of interest: skip them in a
		// loop of their own.
		for p < len(scan) && !x86Lead[scan[p]] {
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
		if i-usages[target] <= x86IDWindow {
			lastX86 = i
		}
		usages[target] = i
		p += 4
	}
}

// x86Lead marks the bytes undoX86 looks at: the first bytes of the
// instructions translated, and of jumps (skipped with their operands).
var x86Lead = [256]bool{0xFF: true, 0xF0: true, 0x48: true, 0x4C: true, 0xE8: true, 0xE9: true}
