package bcj

import "encoding/binary"

// Test-only encoders: the forward transforms, so decoding can be checked
// by round trips on data that hits every branch of the decoders.

type encoder struct {
	name string
	enc  func(start uint32, b []byte)
	dec  func(start uint32) Converter
}

var encoders = []encoder{
	{"x86", encX86, func(s uint32) Converter { return NewX86(s) }},
	{"x86generic", encX86, func(s uint32) Converter { return genericX86{NewX86(s)} }},
	{"arm", encARM, func(s uint32) Converter { return NewARM(s) }},
	{"armthumb", encARMThumb, func(s uint32) Converter { return NewARMThumb(s) }},
	{"arm64", encARM64, func(s uint32) Converter { return NewARM64(s) }},
	{"ppc", encPPC, func(s uint32) Converter { return NewPPC(s) }},
	{"sparc", encSPARC, func(s uint32) Converter { return NewSPARC(s) }},
	{"ia64", encIA64, func(s uint32) Converter { return NewIA64(s) }},
}

func encX86(start uint32, buf []byte) {
	if len(buf) < 5 {
		return
	}
	var prevMask uint32
	prevPos := start - 5
	for i := 0; i <= len(buf)-5; {
		if buf[i]&0xFE != 0xE8 {
			i++
			continue
		}
		off := start + uint32(i) - prevPos
		prevPos = start + uint32(i)
		if off > 5 {
			prevMask = 0
		} else {
			for k := uint32(0); k < off; k++ {
				prevMask = (prevMask & 0x77) << 1
			}
		}
		b := buf[i+4]
		if test86MSByte(b) && x86Allowed[(prevMask>>1)&7] && prevMask>>1 < 0x10 {
			src := binary.LittleEndian.Uint32(buf[i+1:])
			var dest uint32
			for {
				dest = src + start + uint32(i) + 5
				if prevMask == 0 {
					break
				}
				n := x86BitNumber[(prevMask>>1)&7] * 8
				if !test86MSByte(byte(dest >> (24 - n))) {
					break
				}
				src = dest ^ (1<<(32-n) - 1)
			}
			dest &= 0x01FFFFFF
			if dest&0x01000000 != 0 {
				dest |= 0xFF000000
			}
			binary.LittleEndian.PutUint32(buf[i+1:], dest)
			i += 5
			prevMask = 0
		} else {
			i++
			prevMask |= 1
			if test86MSByte(b) {
				prevMask |= 0x10
			}
		}
	}
}

func encARM(start uint32, buf []byte) {
	for i := 0; i+4 <= len(buf); i += 4 {
		if buf[i+3] == 0xEB {
			src := (uint32(buf[i+2])<<16 | uint32(buf[i+1])<<8 | uint32(buf[i])) << 2
			dest := (src + start + uint32(i) + 8) >> 2
			buf[i], buf[i+1], buf[i+2] = byte(dest), byte(dest>>8), byte(dest>>16)
		}
	}
}

func encARMThumb(start uint32, buf []byte) {
	for i := 0; i+4 <= len(buf); i += 2 {
		if buf[i+1]&0xF8 == 0xF0 && buf[i+3]&0xF8 == 0xF8 {
			src := (uint32(buf[i+1]&7)<<19 | uint32(buf[i])<<11 | uint32(buf[i+3]&7)<<8 | uint32(buf[i+2])) << 1
			dest := (src + start + uint32(i) + 4) >> 1
			buf[i+1] = 0xF0 | byte(dest>>19)&7
			buf[i] = byte(dest >> 11)
			buf[i+3] = 0xF8 | byte(dest>>8)&7
			buf[i+2] = byte(dest)
			i += 2
		}
	}
}

func encARM64(start uint32, buf []byte) {
	for i := 0; i+4 <= len(buf); i += 4 {
		pc := start + uint32(i)
		ins := binary.LittleEndian.Uint32(buf[i:])
		if ins>>26 == 0x25 {
			binary.LittleEndian.PutUint32(buf[i:], 0x94000000|(ins+pc>>2)&0x03FFFFFF)
		} else if ins&0x9F000000 == 0x90000000 {
			src := ins>>29&3 | ins>>3&0x001FFFFC
			if (src+0x00020000)&0x001C0000 != 0 {
				continue
			}
			dest := src + pc>>12
			ins &= 0x9000001F
			ins |= (dest&3)<<29 | (dest&0x0003FFFC)<<3 | -(dest&0x00020000)&0x00E00000
			binary.LittleEndian.PutUint32(buf[i:], ins)
		}
	}
}

func encPPC(start uint32, buf []byte) {
	for i := 0; i+4 <= len(buf); i += 4 {
		ins := binary.BigEndian.Uint32(buf[i:])
		if ins&0xFC000003 == 0x48000001 {
			dest := ins&0x03FFFFFC + start + uint32(i)
			binary.BigEndian.PutUint32(buf[i:], 0x48000000|dest&0x03FFFFFF|1)
		}
	}
}

func encSPARC(start uint32, buf []byte) {
	for i := 0; i+4 <= len(buf); i += 4 {
		b0, b1 := buf[i], buf[i+1]
		if (b0 == 0x40 && b1&0xC0 == 0) || (b0 == 0x7F && b1&0xC0 == 0xC0) {
			src := binary.BigEndian.Uint32(buf[i:]) << 2
			dest := (src + start + uint32(i)) >> 2
			dest = (-(dest>>22&1)<<22)&0x3FFFFFFF | dest&0x3FFFFF | 0x40000000
			binary.BigEndian.PutUint32(buf[i:], dest)
		}
	}
}

func encIA64(start uint32, buf []byte) {
	for i := 0; i+16 <= len(buf); i += 16 {
		mask := ia64Slots[buf[i]&0x1F]
		for slot, bitPos := 0, uint(5); slot < 3; slot, bitPos = slot+1, bitPos+41 {
			if mask>>slot&1 == 0 {
				continue
			}
			at, shift := i+int(bitPos>>3), bitPos&7
			var raw [8]byte
			copy(raw[:6], buf[at:at+6])
			ins := binary.LittleEndian.Uint64(raw[:])
			norm := ins >> shift
			if norm>>37&0xF != 0x5 || norm>>9&0x7 != 0 {
				continue
			}
			src := (uint32(norm>>13&0xFFFFF) | uint32(norm>>36&1)<<20) << 4
			dest := (start + uint32(i) + src) >> 4
			norm &^= uint64(0x8FFFFF) << 13
			norm |= uint64(dest&0xFFFFF)<<13 | uint64(dest&0x100000)<<16
			ins = ins&(1<<shift-1) | norm<<shift
			binary.LittleEndian.PutUint64(raw[:], ins)
			copy(buf[at:at+6], raw[:6])
		}
	}
}
