// Package lzo decodes LZO1X blocks, the compressed data of lzop files and
// of squashfs images made with -comp lzo.
package lzo

import "encoding/binary"

// LZO1X decompression, as lzo1x_decompress_safe does it: every read of the
// input and every write and look-behind of the output is checked, so a
// hostile block gives errLZO, never a panic. LZO1X-1, LZO1X-1(15) and
// LZO1X-999 all write this one stream format.
//
// The stream is a sequence of instructions (see the Linux kernel's
// Documentation/staging/lzo.rst): literal runs, and matches M1 to M4 of
// which the low two bits of the byte before the match's last one give the
// number of literals (0 to 3) that follow; M4 with a zero distance ends it.

// Distance bases of the match kinds.
const (
	m2MaxOffset = 0x0800
	m4Base      = 0x4000
)

// Decompress1X decodes the LZO1X block src into dst and returns the
// number of bytes written and whether the block decoded: it must end with
// its end marker exactly at the end of src and decode to at most len(dst)
// bytes. Bytes of dst past those returned may have been written over.
func Decompress1X(dst, src []byte) (int, bool) {
	n := decompress1X(dst, src)
	return n, n >= 0
}

// decompress1XGeneric is Decompress1X in Go, the twin of the assembly: it
// returns the length decoded, or -1.
func decompress1XGeneric(dst, src []byte) int {
	ip, op := 0, 0
	in, out := len(src), len(dst)
	if in == 0 {
		return -1
	}
	state := 0 // literals copied by the last instruction: 0, 1-3, or 4 for more
	if src[0] > 17 {
		n := int(src[0]) - 17
		ip = 1
		if n > in-ip || n > out-op {
			return -1
		}
		copy(dst[op:op+n], src[ip:ip+n])
		op += n
		ip += n
		state = min(n, 4)
	}
	for ip < in {
		t := int(src[ip])
		ip++
		var dist, n int
		switch {
		case t >= 64: // M2: 3 to 8 bytes within 2 KiB
			if ip >= in {
				return -1
			}
			dist = 1 + (t>>2)&7 + int(src[ip])<<3
			ip++
			n = t>>5 + 1
		case t >= 32: // M3: within 16 KiB
			n = t & 31
			if n == 0 {
				if n, ip = extend(src, ip, 31, out); n < 0 {
					return -1
				}
			}
			n += 2
			if in-ip < 2 {
				return -1
			}
			dist = 1 + int(src[ip])>>2 + int(src[ip+1])<<6
			ip += 2
		case t >= 16: // M4: 16 to 48 KiB, or the end
			hi := (t & 8) << 11
			n = t & 7
			if n == 0 {
				if n, ip = extend(src, ip, 7, out); n < 0 {
					return -1
				}
			}
			n += 2
			if in-ip < 2 {
				return -1
			}
			dist = hi + int(src[ip])>>2 + int(src[ip+1])<<6
			ip += 2
			if dist == 0 {
				if ip != in {
					return -1
				}
				return op
			}
			dist += m4Base
		case state == 0: // a run of 4 or more literals
			n = t
			if n == 0 {
				if n, ip = extend(src, ip, 15, out); n < 0 {
					return -1
				}
			}
			n += 3
			if n > in-ip || n > out-op {
				return -1
			}
			if n <= 16 && in-ip >= 16 && out-op >= 16 {
				// Most runs are short: two words (what lies past n in
				// dst is written over later).
				binary.LittleEndian.PutUint64(dst[op:], binary.LittleEndian.Uint64(src[ip:]))
				binary.LittleEndian.PutUint64(dst[op+8:], binary.LittleEndian.Uint64(src[ip+8:]))
			} else {
				copy(dst[op:op+n], src[ip:ip+n])
			}
			op += n
			ip += n
			state = 4
			continue
		default: // M1: 2 bytes within 1 KiB, or 3 bytes 2-3 KiB back after a run
			if ip >= in {
				return -1
			}
			dist = 1 + t>>2 + int(src[ip])<<2
			ip++
			n = 2
			if state == 4 {
				dist += m2MaxOffset
				n = 3
			}
		}

		// The match: n bytes from dist back (dist >= 1 by construction).
		if dist > op || n > out-op {
			return -1
		}
		from := op - dist
		switch {
		case dist >= 8 && out-op >= n+8:
			// Word by word: each word read ends at or before op+i, so it
			// is already written; what lies past n is written over later.
			for i := 0; i < n; i += 8 {
				binary.LittleEndian.PutUint64(dst[op+i:], binary.LittleEndian.Uint64(dst[from+i:]))
			}
		case dist >= n:
			copy(dst[op:op+n], dst[from:from+n])
		default:
			for i := range n {
				dst[op+i] = dst[from+i]
			}
		}
		op += n

		// Then 0 to 3 literals, the low bits of the match's byte before
		// its last; as one 8-byte word where both buffers have the room.
		state = int(src[ip-2]) & 3
		if in-ip >= 8 && out-op >= 8 {
			binary.LittleEndian.PutUint64(dst[op:], binary.LittleEndian.Uint64(src[ip:]))
		} else if state > in-ip || state > out-op {
			return -1
		} else {
			copy(dst[op:op+state], src[ip:ip+state])
		}
		op += state
		ip += state
	}
	return -1
}

// extend reads the zero bytes and final byte of a long length from src at
// ip: it returns the length and where it ends, or -1 where src ends first
// or the length passes limit.
func extend(src []byte, ip, base, limit int) (int, int) {
	n := 0
	for ; ip < len(src); ip++ {
		if b := src[ip]; b != 0 {
			return n + base + int(b), ip + 1
		}
		if n += 255; n > limit {
			return -1, ip
		}
	}
	return -1, ip
}
