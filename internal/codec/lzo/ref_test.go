package lzo

import "encoding/binary"

// refDecompress1X is Decompress1X as it was written first, with its checks
// in closures: the oracle of FuzzLZO1X.
func refDecompress1X(dst, src []byte) (int, bool) {
	ip, op := 0, 0
	in, out := len(src), len(dst)
	var t int

	// extend reads the zero bytes and final byte of a long length.
	extend := func(base int) (int, bool) {
		n := 0
		for {
			if ip >= in {
				return 0, false
			}
			b := src[ip]
			ip++
			if b != 0 {
				n += base + int(b)
				break
			}
			n += 255
			if n > out {
				return 0, false
			}
		}
		return n, true
	}
	// literals copies n bytes from the input. Short runs (most are) go
	// as one 8-byte word where both buffers have the room: what lies
	// beyond n in dst is written over later.
	literals := func(n int) bool {
		if n > in-ip || n > out-op {
			return false
		}
		if n <= 8 && in-ip >= 8 && out-op >= 8 {
			binary.LittleEndian.PutUint64(dst[op:], binary.LittleEndian.Uint64(src[ip:]))
		} else {
			copy(dst[op:op+n], src[ip:ip+n])
		}
		op += n
		ip += n
		return true
	}
	// match copies n bytes from dist bytes back in the output.
	match := func(dist, n int) bool {
		if dist > op || dist <= 0 || n > out-op {
			return false
		}
		from := op - dist
		switch {
		case dist >= 8 && out-op >= n+8:
			// Word by word: each word read ends at or before op+i, so it
			// is already written.
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
		return true
	}

	if in == 0 {
		return 0, false
	}
	state := 0 // literals copied by the last instruction: 0, 1-3, or 4 for more
	if src[0] > 17 {
		t = int(src[0]) - 17
		ip = 1
		if !literals(t) {
			return 0, false
		}
		state = min(t, 4)
	}
	for {
		if ip >= in {
			return 0, false
		}
		t = int(src[ip])
		ip++
		var dist, n int
		switch {
		case t >= 64: // M2: 3 to 8 bytes within 2 KiB
			if ip >= in {
				return 0, false
			}
			dist = 1 + (t>>2)&7 + int(src[ip])<<3
			ip++
			n = t>>5 + 1
		case t >= 32: // M3: within 16 KiB
			n = t & 31
			if n == 0 {
				var ok bool
				if n, ok = extend(31); !ok {
					return 0, false
				}
			}
			n += 2
			if in-ip < 2 {
				return 0, false
			}
			dist = 1 + int(src[ip])>>2 + int(src[ip+1])<<6
			ip += 2
		case t >= 16: // M4: 16 to 48 KiB, or the end
			hi := (t & 8) << 11
			n = t & 7
			if n == 0 {
				var ok bool
				if n, ok = extend(7); !ok {
					return 0, false
				}
			}
			n += 2
			if in-ip < 2 {
				return 0, false
			}
			dist = hi + int(src[ip])>>2 + int(src[ip+1])<<6
			ip += 2
			if dist == 0 {
				if ip != in {
					return 0, false
				}
				return op, true
			}
			dist += m4Base
		case state == 0: // a run of 4 or more literals
			n = t
			if n == 0 {
				var ok bool
				if n, ok = extend(15); !ok {
					return 0, false
				}
			}
			if !literals(n + 3) {
				return 0, false
			}
			state = 4
			continue
		default: // M1: 2 bytes within 1 KiB, or 3 bytes 2-3 KiB back after a run
			if ip >= in {
				return 0, false
			}
			dist = 1 + t>>2 + int(src[ip])<<2
			ip++
			n = 2
			if state == 4 {
				dist += m2MaxOffset
				n = 3
			}
		}
		if !match(dist, n) {
			return 0, false
		}
		state = int(src[ip-2]) & 3
		if !literals(state) {
			return 0, false
		}
	}
}
