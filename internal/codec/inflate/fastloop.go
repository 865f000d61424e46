package inflate

import "encoding/binary"

// fastInput is how much input the fast loop needs in the buffer: one
// iteration refills at most three times, seven bytes each, and every
// refill loads eight bytes.
const fastInput = 32

// At the end of the source the fast loop goes on over zero padding, as
// long as the bits it consumes are input: one iteration consumes at most
// tailBits (two literals, then a length and a distance: 22+20+28 bits,
// 22+31+29 with Deflate64's lengths), and after each refill at least 56
// bits are buffered, so an iteration that starts with ip ≤ iend-tailSlack
// consumes only bits below iend. Its refills (with the one on entry, at
// most three before the last) load up to 3*7+8-tailSlack = 25 bytes past
// iend; tailPad rounds that up.
const (
	tailBits  = 88
	tailSlack = (tailBits - 56) / 8
	tailPad   = 32
)

// huffman decodes a compressed block until it ends or the output chunk is
// full: the fast loop while eight-byte loads stay inside the input read
// (or its zero padding once the source has ended), symbol by symbol near
// its end.
func (f *Inflater) huffman() {
	for f.op < f.flushAt && f.err == nil && f.state == stateHuffman {
		if f.iend-f.ip < fastInput {
			f.topUp()
		}
		switch {
		case f.iend-f.ip >= fastInput:
			f.fast(f.iend - fastInput)
		case f.srcErr != nil && 8*(f.iend-f.ip)+int(f.bitsleft) >= tailBits:
			f.padInput(tailPad)
			f.fast(f.iend - tailSlack)
			f.unpad()
		default:
			f.slow()
		}
	}
}

// padInput zeroes the pad bytes after the input, moving the input to the
// front of the buffer first if they do not fit (the input is short: the
// source has ended).
func (f *Inflater) padInput(pad int) {
	if f.iend+pad > inBufSize {
		keep := min(f.ip, 8)
		n := copy(f.in[:], f.in[f.ip-keep:f.iend])
		f.ip, f.iend = keep, n
	}
	clear(f.in[f.iend : f.iend+pad])
}

// unpad gives back the zero padding loaded past the input: zero bits
// above bitsleft, none of them consumed.
func (f *Inflater) unpad() {
	if f.ip > f.iend {
		f.bitsleft -= uint(8 * (f.ip - f.iend))
		f.ip = f.iend
	}
}

// Short-period matches are written as eight-byte words holding the period
// repeated: patMul[d] spreads d bytes over a word, and patStride[d] is the
// largest multiple of d that fits in a word.
var (
	patMul    = [8]uint64{0, 0x0101010101010101, 0x0001000100010001, 0x0001000001000001, 0x0000000100000001, 0x0000010000000001, 0x0001000000000001, 0x0100000000000001}
	patStride = [8]int{0, 8, 8, 6, 8, 5, 6, 7}
)

// match copies length bytes from dist back (dist ≥ 1, checked against the
// output by the caller), writing up to 16 bytes past the end, which stays
// below outSize (flushAt leaves room).
func match(buf *outBuf, op, dist, length int) {
	out := buf[:]
	src := op - dist
	end := op + length
	switch {
	case dist >= 16:
		if length > 64 && dist >= length {
			copy(out[op:end], out[src:src+length])
			return
		}
		for {
			*(*[16]byte)(out[op&outMask:]) = *(*[16]byte)(out[src&outMask:])
			op += 16
			src += 16
			if op >= end {
				return
			}
		}
	case dist >= 8:
		for {
			*(*[8]byte)(out[op&outMask:]) = *(*[8]byte)(out[src&outMask:])
			op += 8
			src += 8
			if op >= end {
				return
			}
		}
	default:
		// The period's bytes, spread over a word, then written a stride
		// at a time (a memset for dist 1).
		d := dist & 7
		v := binary.LittleEndian.Uint64(out[src&outMask:]) & (1<<(8*uint(d)) - 1) * patMul[d]
		stride := patStride[d]
		for {
			binary.LittleEndian.PutUint64(out[op&outMask:], v)
			op += stride
			if op >= end {
				return
			}
		}
	}
}

// fast is the inner loop, in the manner of libdeflate. Each table entry
// carries its symbol's bit counts, so one lookup decodes a literal, a
// length with its extra bits or a distance with its extra bits. The bit
// buffer is refilled without branches: eight bytes are loaded and as many
// whole bytes as fit are taken, leaving at least 56 bits, which cover a
// length and a distance of deflate (at most 20 and 28 bits) or up to
// three literals from the root table (11 bits each). Deflate64's length
// with 16 extra bits is followed by a conditional refill.
//
// Entering, the input holds at least fastInput bytes (or tailBits bits
// before zero padding, see huffman) and op < flushAt; the loop stops when
// ip passes ipLimit or op reaches flushAt, at the end of the block or at
// an error. Indexes are masked (see inBuf): they stay inside anyway.
func (f *Inflater) fast(ipLimit int) {
	buf := f.out
	in, out := f.in[:], buf[:] // slices of constant length: no nil checks
	ip, op := f.ip, f.op
	opLimit := f.flushAt
	bitbuf, bitsleft := f.bitbuf, f.bitsleft
	lt, dt := f.lit, f.dist
	const lmask, dmask = 1<<litRootBits - 1, 1<<distRootBits - 1

	bitbuf |= binary.LittleEndian.Uint64(in[ip&inMask:]) << (bitsleft & 63)
	ip += int(63-bitsleft) >> 3
	bitsleft |= 56
	e := lt[bitbuf&lmask]
	for {
		if e&flagLit != 0 {
			// Up to three literals from the bits loaded.
			bitbuf >>= e & 63
			bitsleft -= uint(e & 63)
			out[op&outMask] = byte(e >> 16)
			e = lt[bitbuf&lmask]
			if e&flagLit != 0 {
				bitbuf >>= e & 63
				bitsleft -= uint(e & 63)
				out[(op+1)&outMask] = byte(e >> 16)
				e = lt[bitbuf&lmask]
				if e&flagLit != 0 {
					bitbuf >>= e & 63
					bitsleft -= uint(e & 63)
					out[(op+2)&outMask] = byte(e >> 16)
					op += 3
					bitbuf |= binary.LittleEndian.Uint64(in[ip&inMask:]) << (bitsleft & 63)
					ip += int(63-bitsleft) >> 3
					bitsleft |= 56
					e = lt[bitbuf&lmask]
					if op >= opLimit || ip > ipLimit {
						break
					}
					continue
				}
				op += 2
			} else {
				op++
			}
			// A length, the end or a long code follows: the entry
			// looked up stays right, as refilling adds bits above.
			bitbuf |= binary.LittleEndian.Uint64(in[ip&inMask:]) << (bitsleft & 63)
			ip += int(63-bitsleft) >> 3
			bitsleft |= 56
		}
		if e&flagExc != 0 {
			if e&flagSub != 0 {
				bitbuf >>= e & 63
				bitsleft -= uint(e & 63)
				e = lt[int(e>>16)+int(bitbuf)&(1<<shiftOf(e)-1)]
				if e&flagLit != 0 {
					bitbuf >>= e & 63
					bitsleft -= uint(e & 63)
					out[op&outMask] = byte(e >> 16)
					op++
					bitbuf |= binary.LittleEndian.Uint64(in[ip&inMask:]) << (bitsleft & 63)
					ip += int(63-bitsleft) >> 3
					bitsleft |= 56
					e = lt[bitbuf&lmask]
					if op >= opLimit || ip > ipLimit {
						break
					}
					continue
				}
			}
			if e&flagExc != 0 {
				if e&flagEnd != 0 {
					bitbuf >>= e & 63
					bitsleft -= uint(e & 63)
					f.state = stateHeader
				} else {
					f.err = ErrSymbol
				}
				break
			}
		}

		// A length, then its distance.
		saved := bitbuf
		bitbuf >>= e & 63
		bitsleft -= uint(e & 63)
		length := int(e>>16) + int(saved&(1<<(e&63)-1)>>shiftOf(e))
		if bitsleft < 32 {
			// Only after Deflate64's 16 extra bits.
			bitbuf |= binary.LittleEndian.Uint64(in[ip&inMask:]) << (bitsleft & 63)
			ip += int(63-bitsleft) >> 3
			bitsleft |= 56
		}
		e = dt[bitbuf&dmask]
		if e&flagExc != 0 {
			if e&flagSub != 0 {
				bitbuf >>= e & 63
				bitsleft -= uint(e & 63)
				e = dt[int(e>>16)+int(bitbuf)&(1<<shiftOf(e)-1)]
			}
			if e&flagExc != 0 {
				f.err = ErrSymbol
				break
			}
		}
		saved = bitbuf
		bitbuf >>= e & 63
		bitsleft -= uint(e & 63)
		dist := int(e>>16) + int(saved&(1<<(e&63)-1)>>shiftOf(e))
		if dist > op {
			f.err = ErrDistance
			break
		}
		bitbuf |= binary.LittleEndian.Uint64(in[ip&inMask:]) << (bitsleft & 63)
		ip += int(63-bitsleft) >> 3
		bitsleft |= 56
		e = lt[bitbuf&lmask]

		if dist >= 16 && length <= 32 {
			// Most matches: two 16-byte words, unconditionally.
			src := op - dist
			*(*[16]byte)(out[op&outMask:]) = *(*[16]byte)(out[src&outMask:])
			*(*[16]byte)(out[(op+16)&outMask:]) = *(*[16]byte)(out[(src+16)&outMask:])
		} else {
			match(buf, op, dist, length)
		}
		op += length
		if op >= opLimit || ip > ipLimit {
			break
		}
	}
	f.ip, f.op, f.bitbuf, f.bitsleft = ip, op, bitbuf, bitsleft
}

// slow decodes one symbol (and its match) with bounds-checked refills.
func (f *Inflater) slow() {
	e, ok := f.sym(f.lit[:], litRootBits)
	if !ok {
		return
	}
	switch {
	case e&flagLit != 0:
		f.out[f.op] = byte(e >> 16)
		f.op++
		return
	case e&flagEnd != 0:
		f.state = stateHeader
		return
	}
	v, ok := f.bits(extraOf(e))
	if !ok {
		return
	}
	length := int(e>>16) + int(v)
	e, ok = f.sym(f.dist[:], distRootBits)
	if !ok {
		return
	}
	v, ok = f.bits(extraOf(e))
	if !ok {
		return
	}
	d := int(e>>16) + int(v)
	if d > f.op {
		f.err = ErrDistance
		return
	}
	match(f.out, f.op, d, length)
	f.op += length
}
