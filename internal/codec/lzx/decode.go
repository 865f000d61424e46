package lzx

import (
	"encoding/binary"
	"math/bits"
)

// Table sizes of the fast look-ups: codes up to this long resolve in one.
const (
	mainBits    = 11
	lengthBits  = 10
	alignedBits = 7
)

// decodeBlock decodes symbols of a verbatim or aligned block into buf
// from d.wpos up to end. A match may pass end by up to over bytes (the
// block's data beyond a frame's end): what passes is left in d.pendLen
// for the next frame, and returned.
func (d *Decoder) decodeBlock(end int, aligned bool, over int) (int, error) {
	w := d.buf
	op := d.wpos
	// A match may reach back to buf[lo] (where the stream started, or 0
	// once the window has slid) and over at most the window. These and
	// the rarely used values stay in d: the loop's registers are few.
	d.lo = 0
	if s := int64(d.fstart) - d.total; s > 0 {
		d.lo = int(s)
	}
	d.limit = end + over
	d.alignedBlock = aligned
	mainFast := (*[1 << mainBits]uint32)(d.main.fast)
	// The bit reader in locals, kept in registers; saved on every exit.
	src, pos, bb, nb := d.src, d.pos, d.bb, d.nb
	for op < end {
		// Enough for the main symbol; the longer items refill on their
		// own. refillBits's common case, written out: it is too large
		// for the compiler to inline.
		if nb < 16 {
			if uint(pos)+8 <= uint(len(src)) {
				u := bits.RotateLeft64(binary.LittleEndian.Uint64(src[pos:]), 32)
				u = u&0xffff0000ffff0000>>16 | u&0x0000ffff0000ffff<<16
				k := (64 - nb) >> 4
				pos, bb, nb = pos+int(2*k), bb|u>>(nb&63), nb+16*k
			} else {
				pos, bb, nb = refillTail(src, pos, bb, nb)
			}
		}
		// Main symbol: a literal, or a length header and offset slot.
		e := mainFast[bb>>(64-mainBits)]
		l := uint(e & 31)
		s := int(e >> 5)
		if l == 0 {
			if s, l = d.main.slow(uint32(bb >> (64 - maxCodeLen))); l == 0 {
				goto badCode
			}
		}
		bb <<= l & 63 // the mask spares the compiler's shift-by-64 guard
		nb -= l
		for s < numChars {
			// Literals run on here while the bits last without a refill.
			w[op] = byte(s)
			op++
			if nb < 16 || op >= end {
				break
			}
			e := mainFast[bb>>(64-mainBits)]
			l := uint(e & 31)
			if l == 0 {
				break
			}
			s = int(e >> 5)
			bb <<= l & 63
			nb -= l
		}
		if s < numChars {
			continue
		}
		s -= numChars
		ml := s & 7
		if ml == 7 {
			if nb < 16 {
				pos, bb, nb = refillBits(src, pos, bb, nb)
			}
			e := (*[1 << lengthBits]uint32)(d.length.fast)[bb>>(64-lengthBits)]
			l := uint(e & 31)
			v := int(e >> 5)
			if l == 0 {
				if v, l = d.length.slow(uint32(bb >> (64 - maxCodeLen))); l == 0 {
					goto badCode
				}
			}
			bb <<= l & 63
			nb -= l
			ml += v
		}
		ml += minMatch
		var off uint32
		switch slot := s >> 3; slot {
		case 0:
			off = d.r[0]
		case 1:
			off = d.r[1]
			d.r[1] = d.r[0]
			d.r[0] = off
		case 2:
			off = d.r[2]
			d.r[2] = d.r[0]
			d.r[0] = off
		default:
			eb := uint(extraBits[slot])
			off = slotBase[slot] - 2
			if nb < 17 {
				pos, bb, nb = refillBits(src, pos, bb, nb)
			}
			if eb >= 3 && d.alignedBlock {
				if eb > 3 {
					off += uint32(bb>>((67-eb)&63)) << 3
					bb <<= (eb - 3) & 63
					nb -= eb - 3
				}
				if nb < 16 {
					pos, bb, nb = refillBits(src, pos, bb, nb)
				}
				e := (*[1 << alignedBits]uint32)(d.aligned.fast)[bb>>(64-alignedBits)]
				l := uint(e & 31)
				if l == 0 {
					goto badCode
				}
				bb <<= l & 63
				nb -= l
				off += e >> 5
			} else if eb > 0 {
				off += uint32(bb >> ((64 - eb) & 63))
				bb <<= eb & 63
				nb -= eb
			}
			d.r[2] = d.r[1]
			d.r[1] = d.r[0]
			d.r[0] = off
		}
		o := int(off)
		if o > d.winSize || o > op-d.lo || ml > d.limit-op {
			goto badMatch
		}
		if ml > end-op {
			// The match runs on into the next frame, as Microsoft's
			// encoders write (7-Zip and chmlib read it so).
			d.pendLen, d.pendOff = ml-(end-op), o
			copyMatch(w, op, o, end-op)
			op = end
			break
		}
		if o >= 8 {
			// In words: what is written past the match's end is not
			// history (buf is linear), and buf has room past end.
			binary.LittleEndian.PutUint64(w[op:], binary.LittleEndian.Uint64(w[op-o:]))
			for i := 8; i < ml; i += 8 {
				binary.LittleEndian.PutUint64(w[op+i:], binary.LittleEndian.Uint64(w[op-o+i:]))
			}
		} else {
			copyMatch(w, op, o, ml)
		}
		op += ml
	}
	d.pos, d.bb, d.nb = pos, bb, nb
	d.wpos = op
	if d.overrun() {
		return 0, ErrTruncated
	}
	return d.pendLen, nil
badCode:
	d.pos, d.bb, d.nb = pos, bb, nb
	return 0, ErrCode
badMatch:
	d.pos, d.bb, d.nb = pos, bb, nb
	return 0, ErrMatch
}

// copyMatch copies n bytes to w[op:] from off bytes back; where they
// overlap, the off bytes repeat. w[op-off:op+n] is inside w.
func copyMatch(w []byte, op, off, n int) {
	from := op - off
	for n > 0 {
		// w[from:op] is a whole number of repeats: copy it all.
		k := copy(w[op:op+n], w[from:op])
		op += k
		n -= k
	}
}

// refillBits tops a bit buffer up to at least 49 bits from 16-bit
// little-endian words of src, zeros past its end (see Decoder.refill).
func refillBits(src []byte, pos int, bb uint64, nb uint) (int, uint64, uint) {
	if uint(pos)+8 > uint(len(src)) {
		return refillTail(src, pos, bb, nb)
	}
	// Four words at once, in stream order; those that do not fit whole
	// are loaded again next time (the bits below the nb counted are the
	// next word's, or zeros).
	u := bits.RotateLeft64(binary.LittleEndian.Uint64(src[pos:]), 32)
	u = u&0xffff0000ffff0000>>16 | u&0x0000ffff0000ffff<<16
	k := (64 - nb) >> 4
	return pos + int(2*k), bb | u>>(nb&63), nb + 16*k
}

// refillTail is refillBits near the end of src, word by word.
//
//go:noinline
func refillTail(src []byte, pos int, bb uint64, nb uint) (int, uint64, uint) {
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
