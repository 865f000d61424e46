package lzx

// decodeBlock decodes symbols of a verbatim or aligned block into the
// window from d.wpos up to end, which no match may pass.
func (d *Decoder) decodeBlock(end int, aligned bool) error {
	w := d.window
	op := d.wpos
	// A match may reach back over what this stream has decoded, which is
	// op - base at op, and at most the whole window.
	base := int64(d.fstart) - d.total
	main, length, al := d.main, d.length, d.aligned
	r0, r1, r2 := d.r[0], d.r[1], d.r[2]
	for op < end {
		if d.nb < 49 {
			d.refill()
		}
		// Main symbol: a literal, or a length header and offset slot.
		var s int
		if e := main.fast[d.bb>>(64-11)]; e&31 != 0 {
			l := uint(e & 31)
			d.bb <<= l
			d.nb -= l
			s = int(e >> 5)
		} else {
			sym, l := main.slow(uint32(d.bb >> (64 - maxCodeLen)))
			if l == 0 {
				d.r = [3]uint32{r0, r1, r2}
				return ErrCode
			}
			d.bb <<= l
			d.nb -= l
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
			if d.nb < 16 {
				d.refill()
			}
			e := length.fast[d.bb>>(64-10)]
			l := uint(e & 31)
			v := int(e >> 5)
			if l == 0 {
				v, l = length.slow(uint32(d.bb >> (64 - maxCodeLen)))
				if l == 0 {
					d.r = [3]uint32{r0, r1, r2}
					return ErrCode
				}
			}
			d.bb <<= l
			d.nb -= l
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
			if d.nb < 17 {
				d.refill()
			}
			if aligned && eb >= 3 {
				if eb > 3 {
					off += uint32(d.bb>>(64-(eb-3))) << 3
					d.bb <<= eb - 3
					d.nb -= eb - 3
				}
				if d.nb < 16 {
					d.refill()
				}
				e := al.fast[d.bb>>(64-7)]
				l := uint(e & 31)
				if l == 0 {
					d.r = [3]uint32{r0, r1, r2}
					return ErrCode
				}
				d.bb <<= l
				d.nb -= l
				off += e >> 5
			} else if eb > 0 {
				off += uint32(d.bb >> (64 - eb))
				d.bb <<= eb
				d.nb -= eb
			}
			r2 = r1
			r1 = r0
			r0 = off
		}
		if ml > end-op || int64(off) > int64(op)-base || int(off) > len(w) {
			d.r = [3]uint32{r0, r1, r2}
			return ErrMatch
		}
		from := op - int(off)
		if from < 0 {
			// The match starts in the window's older half, past its end.
			from += len(w)
			k := min(ml, len(w)-from)
			copy(w[op:op+k], w[from:from+k])
			op += k
			ml -= k
			from = 0
		}
		if int(off) >= ml {
			copy(w[op:op+ml], w[from:from+ml])
			op += ml
		} else {
			for i := 0; i < ml; i++ {
				w[op+i] = w[from+i]
			}
			op += ml
		}
	}
	d.r = [3]uint32{r0, r1, r2}
	d.wpos = op
	if d.overrun() {
		return ErrTruncated
	}
	return nil
}
