package rar4

import "github.com/unpack-dev/unpack/internal/codec/rar/rarshared"

// vmFilterKind names a standard RAR 3 VM filter.
type vmFilterKind uint8

// The standard filters unrar recognises.
const (
	vmNone vmFilterKind = iota
	vmE8
	vmE8E9
	vmItanium
	vmDelta
	vmRGB
	vmAudio
	vmUpcase // an early text filter, still recognised by old unrar
)

// standardFilters identifies the standard filter programs by length and
// CRC32 of their VM code.
var standardFilters = [...]struct {
	length int
	crc    uint32
	kind   vmFilterKind
}{
	{53, 0xad576887, vmE8},
	{57, 0x3cd7e57e, vmE8E9},
	{120, 0x3769893f, vmItanium},
	{29, 0x0e06077d, vmDelta},
	{149, 0x1c2c5dc8, vmRGB},
	{216, 0xbc85e701, vmAudio},
	{40, 0x46b9c560, vmUpcase},
}

// runVMFilter runs filter f over mem[:f.length] (mem has room for twice
// vmMemSize) and returns the filtered bytes, which lie in mem. fileOffset
// is the block's position in the file, for the branch converters. A filter
// whose parameters are out of range leaves the data unchanged, as unrar does.
func runVMFilter(f *filter29, mem []byte, fileOffset uint32) []byte {
	n := f.length
	data := mem[:n]
	switch f.kind {
	case vmE8, vmE8E9:
		if n >= 4 {
			rarshared.E8(data, fileOffset, f.kind == vmE8E9, false)
		}
		return data
	case vmItanium:
		if n >= 21 {
			vmFilterItanium(data, fileOffset)
		}
		return data
	case vmDelta:
		// Registers are compared as read (uint32), then converted: on a
		// 32-bit int a large register would turn negative.
		if 2*n > vmMemSize || f.r[0] == 0 || f.r[0] > 1024 {
			return data
		}
		dst := mem[n : 2*n]
		rarshared.Undelta(dst, data, int(f.r[0]))
		return dst
	case vmRGB:
		if 2*n > vmMemSize || n < 3 || f.r[0] < 3 || f.r[0]-3 > uint32(n) || f.r[1] > 2 {
			return data
		}
		width, posR := int(f.r[0])-3, int(f.r[1])
		dst := mem[n : 2*n]
		vmFilterRGB(dst, data, width, posR)
		return dst
	case vmAudio:
		if 2*n > vmMemSize || f.r[0] == 0 || f.r[0] > 128 {
			return data
		}
		ch := int(f.r[0])
		dst := mem[n : 2*n]
		vmFilterAudio(dst, data, ch)
		return dst
	case vmUpcase:
		if n >= 0x3c000/2 {
			return data
		}
		return mem[n : n+vmFilterUpcase(mem[n:2*n], data)]
	}
	return data
}

// vmFilterUpcase undoes the text filter: byte 2 escapes the next byte,
// which is lowered by 32 unless it is 2 itself. It returns the output
// length.
func vmFilterUpcase(dst, src []byte) int {
	d := 0
	for s := 0; s < len(src); {
		c := src[s]
		s++
		if c == 2 && s < len(src) {
			if c = src[s]; c != 2 {
				c -= 32
			}
			s++
		}
		dst[d] = c
		d++
	}
	return d
}

func vmItaniumGet(d []byte, bitPos, count uint) uint32 {
	i := bitPos / 8
	x := uint32(d[i]) | uint32(d[i+1])<<8 | uint32(d[i+2])<<16 | uint32(d[i+3])<<24
	return (x >> (bitPos & 7)) & (uint32(0xffffffff) >> (32 - count))
}

func vmItaniumSet(d []byte, v uint32, bitPos, count uint) {
	i := bitPos / 8
	sh := bitPos & 7
	and := ^((uint32(0xffffffff) >> (32 - count)) << sh)
	v <<= sh
	for k := uint(0); k < 4; k++ {
		d[i+k] &= byte(and)
		d[i+k] |= byte(v)
		and = and>>8 | 0xff000000
		v >>= 8
	}
}

// vmFilterItanium undoes the IA-64 branch conversion.
func vmFilterItanium(data []byte, fileOffset uint32) {
	masks := [16]byte{4, 4, 6, 6, 0, 0, 7, 7, 4, 4, 0, 0, 4, 4, 0, 0}
	fileOffset >>= 4
	for pos := 0; pos < len(data)-21; pos += 16 {
		b := int(data[pos]&0x1f) - 0x10
		if b >= 0 {
			if m := masks[b]; m != 0 {
				d := data[pos:]
				for i := uint(0); i <= 2; i++ {
					if m&(1<<i) == 0 {
						continue
					}
					start := i*41 + 5
					if vmItaniumGet(d, start+37, 4) == 5 {
						off := vmItaniumGet(d, start+13, 20)
						vmItaniumSet(d, (off-fileOffset)&0xfffff, start+13, 20)
					}
				}
			}
		}
		fileOffset++
	}
}

// vmFilterRGB undoes the RAR 3 image predictor.
func vmFilterRGB(dst, src []byte, width, posR int) {
	n := len(src)
	s := 0
	for c := 0; c < 3; c++ {
		var prev uint32
		for i := c; i < n; i += 3 {
			pred := prev
			if i >= width+3 {
				up := uint32(dst[i-width])
				upLeft := uint32(dst[i-width-3])
				pred = prev + up - upLeft
				pa := absVM(int32(pred - prev))
				pb := absVM(int32(pred - up))
				pc := absVM(int32(pred - upLeft))
				switch {
				case pa <= pb && pa <= pc:
					pred = prev
				case pb <= pc:
					pred = up
				default:
					pred = upLeft
				}
			}
			b := byte(pred) - src[s]
			s++
			dst[i] = b
			prev = uint32(b)
		}
	}
	for i := posR; i < n-2; i += 3 {
		g := dst[i+1]
		dst[i] += g
		dst[i+2] += g
	}
}

func absVM(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// vmFilterAudio undoes the RAR 3 audio predictor.
func vmFilterAudio(dst, src []byte, ch int) {
	n := len(src)
	s := 0
	for c := 0; c < ch; c++ {
		var prevByte, prevDelta uint32
		var dif [7]uint32
		var d1, d2, d3 int32
		var k1, k2, k3 int32
		count := 0
		for i := c; i < n; i += ch {
			d3 = d2
			d2 = int32(prevDelta) - d1
			d1 = int32(prevDelta)
			pred := 8*prevByte + uint32(k1*d1+k2*d2+k3*d3)
			pred = (pred >> 3) & 0xff
			cur := uint32(src[s])
			s++
			pred -= cur
			dst[i] = byte(pred)
			prevDelta = uint32(int32(int8(byte(pred) - byte(prevByte))))
			prevByte = pred & 0xff
			d := int32(int8(cur)) << 3
			dif[0] += uint32(absVM(d))
			dif[1] += uint32(absVM(d - d1))
			dif[2] += uint32(absVM(d + d1))
			dif[3] += uint32(absVM(d - d2))
			dif[4] += uint32(absVM(d + d2))
			dif[5] += uint32(absVM(d - d3))
			dif[6] += uint32(absVM(d + d3))
			if count&0x1f == 0 {
				minDif, num := dif[0], 0
				dif[0] = 0
				for j := 1; j < 7; j++ {
					if dif[j] < minDif {
						minDif, num = dif[j], j
					}
					dif[j] = 0
				}
				switch num {
				case 1:
					if k1 >= -16 {
						k1--
					}
				case 2:
					if k1 < 16 {
						k1++
					}
				case 3:
					if k2 >= -16 {
						k2--
					}
				case 4:
					if k2 < 16 {
						k2++
					}
				case 5:
					if k3 >= -16 {
						k3--
					}
				case 6:
					if k3 < 16 {
						k3++
					}
				}
			}
			count++
		}
	}
}
