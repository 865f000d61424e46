package rarshared

import (
	"bytes"
	"encoding/binary"
)

// E8 undoes the x86 CALL (and with e9, JMP) address transform of RAR 3's
// E8/E8E9 standard filters and RAR 5's E8/E8E9 filters over buf, whose
// first byte is at offset in the file. RAR 5 takes the position modulo
// 16 MiB (wrap); RAR 3 does not: the two differ once a file passes 16 MiB.
func E8(buf []byte, offset uint32, e9, wrap bool) {
	const fileSize = 0x1000000
	end := len(buf) - 4 // an opcode needs 4 bytes after it
	if end <= 0 {
		return
	}
	// The next 0xe8 and 0xe9 at or after i, found with IndexByte.
	n8, n9 := -1, -1
	for i := 0; ; {
		if n8 < i {
			n8 = indexFrom(buf[:end], 0xe8, i)
		}
		if e9 && n9 < i {
			n9 = indexFrom(buf[:end], 0xe9, i)
		}
		i = n8
		if e9 && n9 < i {
			i = n9
		}
		if i >= end {
			return
		}
		i++
		off := uint32(i) + offset
		if wrap {
			off %= fileSize
		}
		a := buf[i : i+4 : i+4]
		addr := binary.LittleEndian.Uint32(a)
		if addr&0x80000000 != 0 {
			if (addr+off)&0x80000000 == 0 {
				binary.LittleEndian.PutUint32(a, addr+fileSize)
			}
		} else if (addr-fileSize)&0x80000000 != 0 {
			binary.LittleEndian.PutUint32(a, addr-off)
		}
		i += 4
	}
}

// indexFrom returns the index of the first c in b at or after from, or
// len(b).
func indexFrom(b []byte, c byte, from int) int {
	if from >= len(b) {
		return len(b)
	}
	if j := bytes.IndexByte(b[from:], c); j >= 0 {
		return from + j
	}
	return len(b)
}

// Undelta undoes byte-wise delta coding of ch interleaved channels (the
// DELTA filter of RAR 3 and RAR 5): src holds each channel's differences,
// one channel after the other; dst (at least as long) gets the channels
// interleaved. Each channel's run of src is one slice, so only the strided
// store is bounds-checked.
func Undelta(dst, src []byte, ch int) {
	n := len(src)
	dst = dst[:n]
	if ch == 1 {
		var prev byte
		for i, b := range src {
			prev -= b
			dst[i] = prev
		}
		return
	}
	s := 0
	for c := 0; c < ch && c < n; c++ {
		cnt := (n - c + ch - 1) / ch
		in := src[s : s+cnt : s+cnt]
		s += cnt
		var prev byte
		d := c
		for _, b := range in {
			prev -= b
			dst[d] = prev
			d += ch
		}
	}
}
