package lzma

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/unpack-dev/unpack/internal/hugemem"
)

// decoder is the LZMA symbol decoder shared by Reader1 and Reader2: the
// probability model, the coder state, the range decoder and the circular
// dictionary window. It owns its buffers and reuses them across resets.
type decoder struct {
	p   probs
	lit []uint16 // litSize probabilities per literal coder, 1<<(lc+lp) coders

	lc, lp, pb int

	state uint32
	rep   [4]uint32 // distances minus one of the last four matches

	rng, code uint32

	// win is the dictionary: a circular buffer of dictCap+winSlack bytes.
	// pos is the write position; everything before it since the last
	// wrap (and, when wrapped, everything after it) is history.
	win     []byte
	dictCap int  // largest valid match distance
	pos     int  // next write position in win
	wrapped bool // win has wrapped at least once since the dictionary reset
	pendLen int  // bytes of a match left to copy when it overran the last limit

	// The input: in[ip:inEnd] are unread bytes. When inFinal is set they
	// are all there is, and in has maxSymbolBytes zero bytes after inEnd.
	in      []byte
	ip      int
	inEnd   int
	inFinal bool
}

// Results of decoder.run besides errors.
const (
	runLimit   = iota // the output position reached the limit (or a match is pending)
	runInput          // more input is needed before the next symbol
	runMarker         // the end-of-payload marker was decoded
	runOverrun        // the symbol read past the end of the final input
)

// initWindow prepares a window for a dictionary of size bytes, reusing the
// previous allocation when it is large enough. The contents are not reset.
// A window that cannot be addressed (on 32-bit systems) is an ErrLimit error.
func (d *decoder) initWindow(size int64) error {
	c := dictCap(size)
	if c > math.MaxInt-winSlack {
		return DictLimit(c, math.MaxInt-winSlack)
	}
	d.dictCap = int(c)
	n := d.dictCap + winSlack
	if cap(d.win) >= n {
		d.win = d.win[:n]
	} else {
		d.win = hugemem.Bytes(windowCap(n))[:n]
	}
	return nil
}

// windowCap is the capacity allocated for a window of n bytes. Large
// windows are rounded up by less than 1/512 of their size, so that a later
// window a few bytes larger reuses the allocation instead of faulting in a
// new one: a 7z folder's dictionary is the smaller of the coder's and the
// folder's size, and folders of one archive often differ by a few bytes.
func windowCap(n int) int {
	if n < hugemem.Min {
		return n
	}
	g := 1 << (bits.Len(uint(n)) - 10) // at most n/512
	if r := (n + g - 1) &^ (g - 1); r > n {
		return r
	}
	return n
}

// resetDict forgets the dictionary contents.
func (d *decoder) resetDict() {
	d.pos = 0
	d.wrapped = false
	d.pendLen = 0
}

// setProps installs new lc/lp/pb values; the caller resets the state.
func (d *decoder) setProps(lc, lp, pb int) {
	d.lc, d.lp, d.pb = lc, lp, pb
	n := litSize << (lc + lp)
	if cap(d.lit) >= n {
		d.lit = d.lit[:n]
	} else {
		d.lit = make([]uint16, n)
	}
}

// resetState resets the probabilities, the state and the rep distances.
func (d *decoder) resetState() {
	d.p.reset()
	fillProbs(d.lit)
	d.state = 0
	d.rep = [4]uint32{}
	d.pendLen = 0
}

// initRC starts the range decoder on the next five input bytes, which the
// caller has made available. The first byte must be zero.
func (d *decoder) initRC() error {
	b := d.in[d.ip : d.ip+5]
	d.ip += 5
	if b[0] != 0 {
		return ErrRangeInit
	}
	d.rng = 0xFFFFFFFF
	d.code = binary.BigEndian.Uint32(b[1:])
	return nil
}

// finished reports whether the range decoder ended cleanly: code zero and
// no byte read beyond the input.
func (d *decoder) finished() bool { return d.code == 0 && d.ip <= d.inEnd }

// litNext is the state after a literal.
var litNext = [numStates]uint32{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5}

// run decodes symbols into the window from d.pos up to limit (at most
// len(d.win)). A match that would cross limit is cut there and its rest
// left in d.pendLen. With once set, one symbol is decoded even at limit:
// that is how the optional end marker after a known size is read (a
// literal there is ErrSize, a match is left wholly pending).
func (d *decoder) run(limit int, once bool) (int, error) {
	win := d.win
	pos := d.pos
	if d.pendLen > 0 {
		n := min(d.pendLen, limit-pos)
		pos = copyMatch(win, pos, int(d.rep[0])+1, n)
		d.pendLen -= n
		if d.pendLen > 0 {
			d.pos = pos
			return runLimit, nil
		}
	}

	in := d.in
	ip := d.ip
	inLimit := d.inEnd - maxSymbolBytes
	if d.inFinal {
		inLimit = d.inEnd
	}
	rng, code := d.rng, d.code
	state := d.state
	rep0, rep1, rep2, rep3 := d.rep[0], d.rep[1], d.rep[2], d.rep[3]
	p := &d.p
	lit := d.lit
	lc := uint(d.lc)
	lpMask := 1<<d.lp - 1
	pbMask := 1<<d.pb - 1
	dictCap := d.dictCap
	wrapped := d.wrapped
	status := runLimit
	var err error
	var b uint32
	var q [maxQueued]queuedCopy
	nq := 0
	qDist := queueDist

	for pos < limit || once {
		once = false
		if ip > inLimit {
			status = runInput
			break
		}
		posState := pos & pbMask
		rng, code, ip, b = rcBit(rng, code, &p.isMatch[state][posState], in, ip)
		if b == 0 {
			// A literal, coded with the previous byte's high bits and
			// the position's low bits as context.
			if pos >= limit {
				err = ErrSize
				break
			}
			if nq > 0 {
				copyQueued(win, q[:nq])
				nq = 0
			}
			var prev uint32
			if pos > 0 {
				prev = uint32(win[pos-1])
			} else if wrapped {
				prev = uint32(win[len(win)-1])
			}
			base := litSize * (((pos & lpMask) << lc) + int(prev>>(8-lc)))
			probs := (*[litSize]uint16)(lit[base : base+litSize])
			var sym uint32
			if state < litStates {
				sym, rng, code, ip = tree8((*[256]uint16)(probs[:256]), rng, code, in, ip)
			} else {
				// A matched literal: while its bits agree with the byte
				// at rep0, they are coded with their own probabilities.
				src := pos - int(rep0) - 1
				if src < 0 {
					src += len(win)
				}
				sym, rng, code, ip = decodeMatchedLiteral(probs, uint(win[src]), rng, code, in, ip)
			}
			win[pos] = byte(sym)
			pos++
			state = litNext[state]
			continue
		}

		var n int // match length
		rng, code, ip, b = rcBit(rng, code, &p.isRep[state], in, ip)
		if b == 0 {
			// A match with a new distance.
			if state < litStates {
				state = 7
			} else {
				state = 10
			}
			rep3, rep2, rep1 = rep2, rep1, rep0
			var l uint32
			l, rng, code, ip = decodeLen(&p.matchLen, posState, rng, code, in, ip)
			n = int(l) + minMatchLen

			var dist uint32
			dist, rng, code, ip = decodeDist(p, min(l, lenToPosStates-1), rng, code, in, ip)
			if dist == 0xFFFFFFFF {
				status = runMarker
				break
			}
			rep0 = dist
		} else {
			rng, code, ip, b = rcBit(rng, code, &p.isRepG0[state], in, ip)
			if b == 0 {
				rng, code, ip, b = rcBit(rng, code, &p.isRep0Long[state][posState], in, ip)
				if b == 0 {
					// A short rep: one byte from rep0.
					if state < litStates {
						state = 9
					} else {
						state = 11
					}
					n = 1
				}
			} else {
				var dist uint32
				rng, code, ip, b = rcBit(rng, code, &p.isRepG1[state], in, ip)
				if b == 0 {
					dist = rep1
				} else {
					rng, code, ip, b = rcBit(rng, code, &p.isRepG2[state], in, ip)
					if b == 0 {
						dist = rep2
					} else {
						dist = rep3
						rep3 = rep2
					}
					rep2 = rep1
				}
				rep1 = rep0
				rep0 = dist
			}
			if n == 0 {
				if state < litStates {
					state = 8
				} else {
					state = 11
				}
				var l uint32
				l, rng, code, ip = decodeLen(&p.repLen, posState, rng, code, in, ip)
				n = int(l) + minMatchLen
			}
		}

		avail := pos
		if wrapped || avail > dictCap {
			avail = dictCap
		}
		if uint(rep0) >= uint(avail) {
			err = ErrDistance
			break
		}
		if rest := limit - pos; n > rest {
			d.pendLen = n - rest
			n = rest
		}
		if src := pos - int(rep0) - 1; src >= 0 && rep0 >= 7 && n <= 32 && pos+32 <= len(win) {
			// The common short match: queued when its source is far
			// back (or others are queued), else copied right away.
			if nq == 0 && rep0 < qDist {
				w := win[pos : pos+32]
				s := win[src : src+32]
				binary.LittleEndian.PutUint64(w, binary.LittleEndian.Uint64(s))
				binary.LittleEndian.PutUint64(w[8:], binary.LittleEndian.Uint64(s[8:]))
				if n > 16 {
					binary.LittleEndian.PutUint64(w[16:], binary.LittleEndian.Uint64(s[16:]))
					binary.LittleEndian.PutUint64(w[24:], binary.LittleEndian.Uint64(s[24:]))
				}
				pos += n
			} else {
				if nq == maxQueued {
					copyQueued(win, q[:nq])
					nq = 0
				}
				q[nq%maxQueued] = queuedCopy{pos, src, n}
				nq++
				pos += n
			}
		} else {
			if nq > 0 {
				copyQueued(win, q[:nq])
				nq = 0
			}
			pos = copyMatch(win, pos, int(rep0)+1, n)
		}
		if d.pendLen > 0 {
			break
		}
	}

	copyQueued(win, q[:nq])
	if ip > d.inEnd && err == nil {
		status = runOverrun
	}
	d.pos = pos
	d.ip = ip
	d.rng, d.code = rng, code
	d.state = state
	d.rep = [4]uint32{rep0, rep1, rep2, rep3}
	return status, err
}

// The parts of a symbol below are decoded outside run (decodeMatchedLiteral
// and decodeDist are marked go:noinline; the trees exceed the inlining
// budget): inlined, their loops would share run's registers with its many
// live values, and the compiler would spill the range decoder state to the
// stack on every bit.

// tree8 decodes an 8-bit symbol with the bit tree probs (a plain literal,
// the high length coder).
func tree8(probs *[256]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	w := (*[8]byte)(in[ip : ip+8]) // see rcNorm8
	k := 0
	var b, nv uint
	sym := uint(1)
	v := uint(probs[1])
	for sym < 0x80 {
		rng, code, b, nv, v = rcBitNext(rng, code, v, uint(probs[2*sym]), uint(probs[2*sym+1]))
		probs[sym] = uint16(nv)
		rng, code, k = rcNorm8(rng, code, w, k)
		sym = sym<<1 | b
	}
	rng, code, b, nv, _ = rcBitNext(rng, code, v, 0, 0)
	probs[sym&0xFF] = uint16(nv)
	rng, code, k = rcNorm8(rng, code, w, k)
	return uint32(sym<<1|b) - 0x100, rng, code, ip + k
}

// tree6 decodes a 6-bit symbol with the bit tree probs.
func tree6(probs *[64]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	w := (*[8]byte)(in[ip : ip+8]) // see rcNorm8
	k := 0
	var b, nv uint
	sym := uint(1)
	v := uint(probs[1])
	for sym < 0x20 {
		rng, code, b, nv, v = rcBitNext(rng, code, v, uint(probs[2*sym]), uint(probs[2*sym+1]))
		probs[sym] = uint16(nv)
		rng, code, k = rcNorm8(rng, code, w, k)
		sym = sym<<1 | b
	}
	rng, code, b, nv, _ = rcBitNext(rng, code, v, 0, 0)
	probs[sym&0x3F] = uint16(nv)
	rng, code, k = rcNorm8(rng, code, w, k)
	return uint32(sym<<1|b) - 0x40, rng, code, ip + k
}

// tree3 decodes a 3-bit symbol with the bit tree probs (the low and mid
// length coders).
func tree3(probs *[8]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	w := (*[8]byte)(in[ip : ip+8]) // see rcNorm8
	k := 0
	var b, nv uint
	sym := uint(1)
	v := uint(probs[1])
	for sym < 4 {
		rng, code, b, nv, v = rcBitNext(rng, code, v, uint(probs[2*sym]), uint(probs[2*sym+1]))
		probs[sym] = uint16(nv)
		rng, code, k = rcNorm8(rng, code, w, k)
		sym = sym<<1 | b
	}
	rng, code, b, nv, _ = rcBitNext(rng, code, v, 0, 0)
	probs[sym&7] = uint16(nv)
	rng, code, k = rcNorm8(rng, code, w, k)
	return uint32(sym<<1|b) - 8, rng, code, ip + k
}

// treeAlign decodes the four low distance bits, coded least significant
// first with the bit tree probs.
func treeAlign(probs *[1 << alignBits]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	w := (*[8]byte)(in[ip : ip+8]) // see rcNorm8
	k := 0
	var b, nv uint
	var r uint32
	m := uint(1)
	v := uint(probs[1])
	for i := uint32(0); m < 8; i++ {
		rng, code, b, nv, v = rcBitNext(rng, code, v, uint(probs[2*m]), uint(probs[2*m+1]))
		probs[m] = uint16(nv)
		rng, code, k = rcNorm8(rng, code, w, k)
		m = m<<1 | b
		r |= uint32(b) << i
	}
	rng, code, b, nv, _ = rcBitNext(rng, code, v, 0, 0)
	probs[m&15] = uint16(nv)
	rng, code, k = rcNorm8(rng, code, w, k)
	return r | uint32(b)<<3, rng, code, ip + k
}

// decodeMatchedLiteral decodes a literal after a match, given the byte mb
// at distance rep0: while the literal's bits agree with mb's, they are
// coded with probabilities of their own (offs selects the set). As in the
// bit trees, both candidates for the next bit's probability are loaded
// before the bit is known.
//
//go:noinline
func decodeMatchedLiteral(probs *[litSize]uint16, mb uint, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	w := (*[8]byte)(in[ip : ip+8]) // see rcNorm8
	k := 0
	var b, nv uint
	sym := uint(1)
	offs := uint(0x100)
	mb <<= 1
	i := offs + mb&offs + sym // the current bit's probability
	v := uint(probs[i])
	for sym < 0x80 {
		// After a 0 the set stays when the match bit was 0; after a 1,
		// when it was 1; otherwise offs drops to 0 (plain literal bits).
		mbit := mb & offs
		mb <<= 1
		o0, o1 := mbit^offs, mbit
		i0 := o0 + mb&o0 + sym<<1
		i1 := o1 + mb&o1 + sym<<1 + 1
		rng, code, b, nv, v = rcBitNext(rng, code, v, uint(probs[i0]), uint(probs[i1]))
		probs[i] = uint16(nv)
		rng, code, k = rcNorm8(rng, code, w, k)
		sym = sym<<1 | b
		offs, i = o1, i1
		if b == 0 {
			offs, i = o0, i0
		}
	}
	rng, code, b, nv, _ = rcBitNext(rng, code, v, 0, 0)
	probs[i] = uint16(nv)
	rng, code, k = rcNorm8(rng, code, w, k)
	return uint32(sym<<1|b) - 0x100, rng, code, ip + k
}

// decodeDist decodes the distance of a match (minus one) with the slot
// coder of lenState; 0xFFFFFFFF is the end marker.
//
//go:noinline
func decodeDist(p *probs, lenState uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	var b uint32
	var slot uint32
	slot, rng, code, ip = tree6(&p.posSlot[lenState&(lenToPosStates-1)], rng, code, in, ip)
	if slot < 4 {
		return slot, rng, code, ip
	}
	nd := slot>>1 - 1
	dist := (2 | slot&1) << nd
	if slot < endPosModel {
		base := dist - slot
		m := uint32(1)
		for i := uint32(0); i < nd; i++ {
			rng, code, b = rcBitBL(rng, code, &p.posSpecial[base+m])
			rng, code, ip = rcNorm(rng, code, in, ip)
			m = m<<1 | b
			dist |= b << i
		}
		return dist, rng, code, ip
	}
	var direct uint32
	for i := nd - alignBits; i > 0; i-- {
		rng, code, ip, b = rcDirect(rng, code, in, ip)
		direct = direct<<1 | b
	}
	var low uint32
	low, rng, code, ip = treeAlign(&p.align, rng, code, in, ip)
	return dist + direct<<alignBits + low, rng, code, ip
}

// maxQueued is how many short matches run decodes before it copies them.
const maxQueued = 8

// queueDist is the distance (minus one) from which a short match is queued:
// nearer sources are likely in the cache. Tests lower it to queue every
// short match.
var queueDist uint32 = 1 << 16

// queuedCopy is a short match decoded but not yet copied: n <= 32 bytes
// from src to dst, src at least 8 bytes back, and 32 bytes of room at both.
type queuedCopy struct{ dst, src, n int }

// copyQueued copies the queued matches in order. Matches whose distances are
// far back in the window mostly miss the cache: run queues them until a
// literal needs the window's bytes (its context is the previous byte and the
// byte at rep0) so that their loads are in flight together, where copying
// each right away puts the wait for its source in front of the next
// symbol's decoding. The copies are 8-byte moves: each reads bytes at least
// 8 back, already final, and the bytes written past a match's end are
// overwritten by the next one or lie beyond any valid distance (winSlack).
func copyQueued(win []byte, q []queuedCopy) {
	for _, c := range q {
		w := win[c.dst : c.dst+32]
		s := win[c.src : c.src+32]
		binary.LittleEndian.PutUint64(w, binary.LittleEndian.Uint64(s))
		binary.LittleEndian.PutUint64(w[8:], binary.LittleEndian.Uint64(s[8:]))
		if c.n > 16 {
			binary.LittleEndian.PutUint64(w[16:], binary.LittleEndian.Uint64(s[16:]))
			binary.LittleEndian.PutUint64(w[24:], binary.LittleEndian.Uint64(s[24:]))
		}
	}
}

// decodeLen decodes a match length minus minMatchLen (0..271).
func decodeLen(lp *lenProbs, posState int, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	var b uint32
	rng, code, ip, b = rcBit(rng, code, &lp.choice, in, ip)
	if b == 0 {
		return tree3(&lp.low[posState&(posStatesMax-1)], rng, code, in, ip)
	}
	rng, code, ip, b = rcBit(rng, code, &lp.choice2, in, ip)
	if b == 0 {
		var sym uint32
		sym, rng, code, ip = tree3(&lp.mid[posState&(posStatesMax-1)], rng, code, in, ip)
		return sym + 8, rng, code, ip
	}
	var sym uint32
	sym, rng, code, ip = tree8(&lp.high, rng, code, in, ip)
	return sym + 16, rng, code, ip
}

// copyMatch copies n bytes from dist bytes back to pos in the circular
// window win and returns the new position. pos+n <= len(win) and
// 0 < dist <= len(win)-winSlack.
func copyMatch(win []byte, pos, dist, n int) int {
	end := pos + n
	src := pos - dist
	if src >= 0 && dist >= 8 && n <= 32 && end+8 <= len(win) {
		// Short and not overlapping within 8 bytes: copy 8 at a time,
		// writing up to 7 bytes past end (history beyond any distance).
		for pos < end {
			binary.LittleEndian.PutUint64(win[pos:], binary.LittleEndian.Uint64(win[src:]))
			pos += 8
			src += 8
		}
		return end
	}
	if src < 0 {
		// The source starts before the wrap: copy up to the window end
		// first. Reading ahead of pos is safe: those bytes are older
		// history not yet overwritten (dist < len(win)).
		src += len(win)
		k := copy(win[pos:end], win[src:])
		pos += k
		if pos == end {
			return end
		}
		src = 0
	}
	switch {
	case pos-src >= end-pos:
		copy(win[pos:end], win[src:])
	case pos-src >= 8 && end+8 <= len(win):
		// Overlapping, but each 8-byte step reads bytes already written.
		for pos < end {
			binary.LittleEndian.PutUint64(win[pos:], binary.LittleEndian.Uint64(win[src:]))
			pos += 8
			src += 8
		}
	default:
		// Short period: double the copied span each step, keeping the
		// source at its start so the period is preserved.
		for pos < end {
			pos += copy(win[pos:end], win[src:pos])
		}
	}
	return end
}
