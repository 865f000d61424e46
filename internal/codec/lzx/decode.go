package lzx

import "encoding/binary"

// decodeBlock decodes symbols of a verbatim or aligned block into the
// window from d.wpos up to end. A match may pass end by up to over bytes
// (the block's data beyond a frame's end): what passes is left in
// d.pendLen for the next frame, and returned.
func (d *Decoder) decodeBlock(end int, aligned bool, over int) (int, error) {
	w := d.window
	op := d.wpos
	// A match may reach back over what this stream has decoded, which is
	// op - base at op, and at most the whole window.
	base := int64(d.fstart) - d.total
	// Matches are copied eight bytes at a time, writing up to seven
	// bytes past their end, while no byte there is still history: before
	// the stream has filled the window once (always, for WIM chunks).
	fastEnd := int(max(int64(len(w))+base, 0))
	main, length, al := d.main, d.length, d.aligned
	mainFast, lenFast, alFast := main.fast, length.fast, al.fast
	r0, r1, r2 := d.r[0], d.r[1], d.r[2]
	// The bit reader in locals, kept in registers; saved on every exit.
	src, pos, bb, nb := d.src, d.pos, d.bb, d.nb
	for op < end {
		// Enough for the main symbol; the longer items refill on their
		// own.
		if nb < 16 {
			pos, bb, nb = refillBits(src, pos, bb, nb)
		}
		// Main symbol: a literal, or a length header and offset slot.
		var s int
		if e := mainFast[bb>>(64-11)]; e&31 != 0 {
			l := uint(e & 31)
			bb <<= l
			nb -= l
			s = int(e >> 5)
		} else {
			sym, l := main.slow(uint32(bb >> (64 - maxCodeLen)))
			if l == 0 {
				d.r, d.pos, d.bb, d.nb = [3]uint32{r0, r1, r2}, pos, bb, nb
				return 0, ErrCode
			}
			bb <<= l
			nb -= l
			s = sym
		}
		if s < numChars {
			w[op] = byte(s)
			op++
			continue
		}
		s -= numChars
		ml := s & 7
		slot := s >> 3
		if ml == 7 {
			if nb < 16 {
				pos, bb, nb = refillBits(src, pos, bb, nb)
			}
			e := lenFast[bb>>(64-10)]
			l := uint(e & 31)
			v := int(e >> 5)
			if l == 0 {
				v, l = length.slow(uint32(bb >> (64 - maxCodeLen)))
				if l == 0 {
					d.r, d.pos, d.bb, d.nb = [3]uint32{r0, r1, r2}, pos, bb, nb
					return 0, ErrCode
				}
			}
			bb <<= l
			nb -= l
			ml += v
		}
		ml += minMatch
		var off uint32
		switch slot {
		case 0:
			off = r0
		case 1:
			off = r1
			r1 = r0
			r0 = off
		case 2:
			off = r2
			r2 = r0
			r0 = off
		default:
			eb := uint(extraBits[slot])
			off = slotBase[slot] - 2
			if nb < 17 {
				pos, bb, nb = refillBits(src, pos, bb, nb)
			}
			if aligned && eb >= 3 {
				if eb > 3 {
					off += uint32(bb>>(64-(eb-3))) << 3
					bb <<= eb - 3
					nb -= eb - 3
				}
				if nb < 16 {
					pos, bb, nb = refillBits(src, pos, bb, nb)
				}
				e := alFast[bb>>(64-7)]
				l := uint(e & 31)
				if l == 0 {
					d.r, d.pos, d.bb, d.nb = [3]uint32{r0, r1, r2}, pos, bb, nb
					return 0, ErrCode
				}
				bb <<= l
				nb -= l
				off += e >> 5
			} else if eb > 0 {
				off += uint32(bb >> (64 - eb))
				bb <<= eb
				nb -= eb
			}
			r2 = r1
			r1 = r0
			r0 = off
		}
		if int64(off) > int64(op)-base || int(off) > len(w) || ml > end-op+over {
			d.r, d.pos, d.bb, d.nb = [3]uint32{r0, r1, r2}, pos, bb, nb
			return 0, ErrMatch
		}
		if ml > end-op {
			// The match runs on into the next frame, as Microsoft's
			// encoders write (7-Zip and chmlib read it so).
			d.pendLen, d.pendOff = ml-(end-op), int(off)
			copyMatch(w, op, int(off), end-op)
			op = end
			break
		}
		if o := int(off); o >= 8 && o <= op && ml <= 64 && op+ml+8 <= fastEnd {
			for i := 0; i < ml; i += 8 {
				binary.LittleEndian.PutUint64(w[op+i:], binary.LittleEndian.Uint64(w[op-o+i:]))
			}
		} else {
			copyMatch(w, op, int(off), ml)
		}
		op += ml
	}
	d.r, d.pos, d.bb, d.nb = [3]uint32{r0, r1, r2}, pos, bb, nb
	d.wpos = op
	if d.overrun() {
		return 0, ErrTruncated
	}
	return d.pendLen, nil
}

// copyMatch copies n bytes to w[op:] from off bytes back in the ring
// window, byte by byte where they overlap. w[op:op+n] is inside w.
func copyMatch(w []byte, op, off, n int) {
	from := op - off
	if from < 0 {
		// The match starts in the window's older part, at its end.
		from += len(w)
		k := min(n, len(w)-from)
		copy(w[op:op+k], w[from:from+k])
		op += k
		n -= k
		from = 0
	}
	if off >= n {
		copy(w[op:op+n], w[from:from+n])
		return
	}
	for i := 0; i < n; i++ {
		w[op+i] = w[from+i]
	}
}

// refillBits tops a bit buffer up to at least 49 bits from 16-bit
// little-endian words of src, zeros past its end (see Decoder.refill).
func refillBits(src []byte, pos int, bb uint64, nb uint) (int, uint64, uint) {
	if pos >= 0 && pos+8 <= len(src) {
		// Four words at once, in stream order; those that do not fit
		// whole are loaded again next time (the bits below the nb counted
		// are the next word's, or zeros).
		u := binary.LittleEndian.Uint64(src[pos:])
		u = u<<32 | u>>32
		u = u&0xffff0000ffff0000>>16 | u&0x0000ffff0000ffff<<16
		k := (64 - nb) >> 4
		return pos + int(2*k), bb | u>>nb, nb + 16*k
	}
	for nb <= 48 {
		var w uint64
		if pos+1 < len(src) {
			w = uint64(src[pos]) | uint64(src[pos+1])<<8
		} else if pos < len(src) {
			w = uint64(src[pos])
		}
		pos += 2
		bb |= w << (48 - nb)
		nb += 16
	}
	return pos, bb, nb
}
