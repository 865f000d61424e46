// Package lzms decodes LZMS, Microsoft's compression of WIM solid
// resources and ESD files (--compress=LZMS, --solid in wimlib-imagex). It
// has no published specification; the format followed here is the one
// wimlib documents and implements (lzms_decompress.c), which reads
// Windows' output:
//
//   - the compressed block is read in 16-bit little-endian units from both
//     ends: forwards, a range coder gives the bits choosing between item
//     kinds, with adaptive probabilities (the zeros among the last 64 bits
//     seen in each state); backwards, a bitstream gives Huffman symbols
//     and verbatim bits;
//   - five adaptive Huffman codes (literals, LZ offset slots, length
//     slots, delta offset slots, delta powers), rebuilt every 512 or 1024
//     symbols from their frequencies, which are then halved;
//   - LZ matches and delta matches (a byte-wise difference at a span of a
//     power of two), each with an explicit offset or one of three recent
//     ones, whose queue takes a new entry one item late;
//   - a final pass undoing the x86 address translation.
//
// A block decodes to an output size the container knows; Decode fills
// exactly that.
//
// # Security concerns
//
// Every match is checked against the output written so far and the room
// left; bits past either end of the input read as zeros and the output
// size bounds the work. The decoder's tables are fixed-size; the caller
// sizes dst (a WIM chunk, bounded by its memory limit).
package lzms

import (
	"encoding/binary"
	"math/bits"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Errors Decode returns; each is archive.ErrCorrupt.
var (
	ErrShort  = archive.Corruptf("lzms: compressed block shorter than 4 bytes or of odd length")
	ErrCode   = archive.Corruptf("lzms: a code word with no symbol")
	ErrOffset = archive.Corruptf("lzms: match offset before the start of the block")
	ErrLength = archive.Corruptf("lzms: match runs past the end of the block")
)

// decisions is one class of range-coded decisions: its state (the last
// decisions, as many as select one of its probability entries) selects
// the probability entry. The main and match classes have fewer entries,
// and the loop keeps their states itself.
type decisions struct {
	state uint32
	probs [numOtherProbs]prob // the first n in use
}

// prob is a probability entry: the last 64 bits decoded with it (the
// newest lowest) and how many of them are zeros.
type prob struct {
	recent uint64
	zeros  uint32
}

func (b *decisions) init(n int) {
	b.state = 0
	for i := range b.probs[:n] {
		b.probs[i] = prob{initialRecent, 64 - uint32(bits.OnesCount64(initialRecent))}
	}
}

// Decoder decodes LZMS blocks; the zero value is ready and is reused.
type Decoder struct {
	src []byte

	// range decoder, reading forwards
	rng, code uint32
	fwd       int

	// bitstream, reading backwards
	buf  uint64
	left uint
	back int

	main, match, lz, delta decisions
	lzRep, deltaRep        [numRepeats - 1]decisions

	literal, lzOffset, length, deltaOffset, power adaptive
	s                                             scratch
	q                                             queues
	out                                           int // bytes of the block decoded

	usages  []int32 // undoX86's, kept with x86Base from block to block
	x86Base int32
}

// queues are the recent offsets of LZ and delta matches (a delta
// match's power above its raw offset): each offset used joins its queue
// only after the next item, unless that is a match of the same kind.
type queues struct {
	lz                  [numRepeats + 1]uint32
	delta               [numRepeats + 1]uint64
	lzPending           uint32
	deltaPending        uint64
	lzStill, deltaStill int
}

// decide decodes one bit with probability entry p from the normalized
// range decoder state (rng, code), and updates p.
func decide(p *prob, rng, code uint32) (bit, rng2, code2 uint32) {
	// The probability of a 0 is the share of zeros among the last 64
	// bits, kept within 1/64..63/64.
	bound := (rng >> probBits) * clampProb[p.zeros&127]
	if code < bound {
		rng = bound
	} else {
		rng -= bound
		code -= bound
		bit = 1
	}
	// The oldest bit leaves, the new one enters.
	r := p.recent
	p.zeros += uint32(r>>63) - bit
	p.recent = r<<1 | uint64(bit)
	return bit, rng, code
}

// clampProb keeps a probability within 1/64..63/64.
var clampProb = func() (t [128]uint32) {
	for i := range t {
		t[i] = min(max(uint32(i), 1), probMax-1)
	}
	return t
}()

// bit decodes one decision of class b, one of numOtherProbs entries, from the normalized range decoder
// state (rng, code).
func (b *decisions) bit(rng, code uint32) (bit, rng2, code2 uint32) {
	bit, rng, code = decide(&b.probs[b.state&(numOtherProbs-1)], rng, code)
	b.state = (b.state<<1 | bit) & (numOtherProbs - 1)
	return bit, rng, code
}

// normalize shifts the next 16 bits into the range decoder (rng, code)
// when its range is down to 16 bits. It is rare: the position in src
// stays in d.
func (d *Decoder) normalize(rng, code uint32) (uint32, uint32) {
	if rng <= 0xffff {
		return d.shiftIn(rng, code)
	}
	return rng, code
}

//go:noinline
func (d *Decoder) shiftIn(rng, code uint32) (uint32, uint32) {
	rng <<= 16
	code <<= 16
	// Past the end of src come zeros.
	if f := d.fwd; f >= 0 && f+1 < len(d.src) {
		code |= uint32(d.src[f]) | uint32(d.src[f+1])<<8
		d.fwd = f + 2
	}
	return rng, code
}

// refill makes at least 49 bits available in buf, of which left are.
// Below the bits counted in left are the next word's bits, or zeros;
// before the start of src are zeros. The position in src stays in d.
//
//go:noinline
func (d *Decoder) refill(buf uint64, left uint) (uint64, uint) {
	back, src := d.back, d.src
	if back >= 8 && back <= len(src) {
		// Four words at once (the little-endian word just below back is
		// the next): those that do not fit whole are loaded again.
		v := binary.LittleEndian.Uint64(src[back-8:])
		buf |= v >> (left & 63)
		k := (64 - left) >> 4
		d.back = back - int(2*k)
		return buf, left + 16*k
	}
	for left <= 48 {
		if back >= 2 && back <= len(src) {
			back -= 2
			buf |= uint64(binary.LittleEndian.Uint16(src[back:])) << (48 - left)
		}
		left += 16
	}
	d.back = back
	return buf, left
}

func (d *Decoder) reset(src []byte, n int) {
	d.src = src
	d.rng = 0xffffffff
	d.code = uint32(binary.LittleEndian.Uint16(src))<<16 | uint32(binary.LittleEndian.Uint16(src[2:]))
	d.fwd = 4
	d.buf, d.left, d.back = 0, 0, len(src)
	d.main.init(numMainProbs)
	d.match.init(numMatchProbs)
	d.lz.init(numOtherProbs)
	d.delta.init(numOtherProbs)
	for i := range d.lzRep {
		d.lzRep[i].init(numOtherProbs)
		d.deltaRep[i].init(numOtherProbs)
	}
	slots := numOffsetSlots(n)
	d.literal.init(numLiteralSyms, literalRebuild, &d.s)
	d.lzOffset.init(slots, offsetRebuild, &d.s)
	d.length.init(numLengthSyms, lengthRebuild, &d.s)
	d.deltaOffset.init(slots, offsetRebuild, &d.s)
	d.power.init(numPowerSyms, powerRebuild, &d.s)
	d.q = queues{lz: [numRepeats + 1]uint32{1, 2, 3, 4}, delta: [numRepeats + 1]uint64{1, 2, 3, 4}, lzStill: -1, deltaStill: -1}
	d.out = 0
}

// Decode decompresses the LZMS block src into all of dst.
func (d *Decoder) Decode(dst, src []byte) error {
	if len(src) < 4 || len(src)&1 != 0 {
		return ErrShort
	}
	if len(dst) == 0 {
		return nil
	}
	d.reset(src, len(dst))
	if err := d.items(dst, len(dst)); err != nil {
		return err
	}
	if d.usages == nil {
		d.usages = make([]int32, 65536)
	}
	d.x86Base = undoX86(dst, d.usages, d.x86Base)
	return nil
}

// DecodeRaw decodes the LZMS block src into all of dst as Decode does,
// but leaves the x86 translation in (X86 undoes it on copies), and calls
// progress with the length of dst decoded so far, about every step bytes
// and at the end: the bytes below it are not written again, so another
// goroutine may read them once told.
func (d *Decoder) DecodeRaw(dst, src []byte, step int, progress func(n int)) error {
	if len(src) < 4 || len(src)&1 != 0 {
		return ErrShort
	}
	if len(dst) == 0 {
		return nil
	}
	d.reset(src, len(dst))
	for d.out < len(dst) {
		if err := d.items(dst, d.out+min(max(step, 1), len(dst)-d.out)); err != nil {
			return err
		}
		progress(d.out)
	}
	return nil
}

// items decodes the literals and matches that make dst, from d.out until
// end or past it (a run of literals or a match may go on). The range
// decoder and the bitstream live in locals here, and every decision and
// symbol is decoded in the loop (the helpers inline).
func (d *Decoder) items(dst []byte, end int) error {
	rng, code := d.rng, d.code
	buf, left := d.buf, d.left
	// The queues of recent offsets, used by matches only, stay in memory.
	mainState := d.main.state
	var bit, sym, n uint32
	out := d.out
	for out < end {
		// Literals, in a loop of their own that calls nothing, so that
		// its values stay in registers: it leaves for a normalization,
		// a code rebuild, or a refill near the start of src.
		rng, code = d.normalize(rng, code)
		if left < maxCodeLen {
			buf, left = d.refill(buf, left)
		}
		if d.literal.until == 0 {
			d.literal.rebuildCode(&d.s)
		}
		for {
			bit, rng, code = decide(&d.main.probs[mainState&(numMainProbs-1)], rng, code)
			mainState = (mainState<<1 | bit) & (numMainProbs - 1)
			if bit != 0 {
				break
			}
			sym, n = d.literal.lookup(buf)
			if n == 0 {
				if sym, n = d.literal.long(buf); n == 0 {
					return ErrCode
				}
			}
			buf <<= n & 15
			left -= uint(n)
			d.literal.freqs[sym&symMask]++
			d.literal.until--
			dst[out] = byte(sym)
			out++
			if d.literal.until == 0 || out >= len(dst) || rng <= 0xffff {
				break
			}
			if left < maxCodeLen {
				back := d.back
				if back < 8 || back > len(d.src) {
					break
				}
				// refill's four words at once.
				buf |= binary.LittleEndian.Uint64(d.src[back-8:]) >> (left & 63)
				k := (64 - left) >> 4
				d.back = back - int(2*k)
				left += 16 * k
			}
		}
		if bit == 0 {
			continue
		}
		rng, code = d.normalize(rng, code)
		bit, rng, code = decide(&d.match.probs[d.match.state&(numMatchProbs-1)], rng, code)
		d.match.state = (d.match.state<<1 | bit) & (numMatchProbs - 1)
		if bit == 0 {
			// An LZ match. The offset used last joins the queue only
			// after the next item, unless that is this one.
			if d.q.lzPending != 0 && out != d.q.lzStill {
				d.q.lz[3], d.q.lz[2], d.q.lz[1], d.q.lz[0] = d.q.lz[2], d.q.lz[1], d.q.lz[0], d.q.lzPending
				d.q.lzPending = 0
			}
			var offset uint32
			rng, code = d.normalize(rng, code)
			bit, rng, code = decide(&d.lz.probs[d.lz.state&(numOtherProbs-1)], rng, code)
			d.lz.state = (d.lz.state<<1 | bit) & (numOtherProbs - 1)
			if bit == 0 {
				sym, n = d.lzOffset.lookup(buf)
				if n == 0 {
					if sym, n = d.lzOffset.long(buf); n == 0 {
						return ErrCode
					}
				}
				buf <<= n & 15
				left -= uint(n)
				d.lzOffset.count(sym, &d.s)
				extra := uint(offsetExtra[sym&symMask])
				if left < extra {
					buf, left = d.refill(buf, left)
				}
				// No extra bits read none: two shifts, the second
				// below 64; extra is at most 30.
				offset = offsetBase[sym&symMask] + uint32(buf>>1>>((63-extra)&63))
				buf <<= extra & 63
				left -= extra
			} else {
				i := 0
				for i < numRepeats-1 {
					rng, code = d.normalize(rng, code)
					bit, rng, code = d.lzRep[i].bit(rng, code)
					if bit == 0 {
						break
					}
					i++
				}
				offset = d.q.lz[i]
				copy(d.q.lz[i:], d.q.lz[i+1:])
			}
			if d.q.lzPending != 0 {
				d.q.lz[3], d.q.lz[2], d.q.lz[1], d.q.lz[0] = d.q.lz[2], d.q.lz[1], d.q.lz[0], d.q.lzPending
			}
			d.q.lzPending = offset
			if left < maxCodeLen {
				buf, left = d.refill(buf, left)
			}
			sym, n = d.length.lookup(buf)
			if n == 0 {
				if sym, n = d.length.long(buf); n == 0 {
					return ErrCode
				}
			}
			buf <<= n & 15
			left -= uint(n)
			d.length.count(sym, &d.s)
			extra := uint(lengthExtra[sym&63])
			if left < extra {
				buf, left = d.refill(buf, left)
			}
			length := lengthBase[sym&63] + uint32(buf>>1>>((63-extra)&63))
			buf <<= extra & 63
			left -= extra
			if length > uint32(len(dst)-out) {
				return ErrLength
			}
			if offset > uint32(out) {
				return ErrOffset
			}
			n, o := int(length), int(offset)
			switch {
			case o >= 8 && n <= 16 && len(dst)-out >= 16:
				// Eight bytes at a time: each load reads bytes written
				// before it, and what is written past the match is
				// written over later.
				w, m := dst[out:out+16], dst[out-o:out-o+16]
				binary.LittleEndian.PutUint64(w, binary.LittleEndian.Uint64(m))
				binary.LittleEndian.PutUint64(w[8:], binary.LittleEndian.Uint64(m[8:]))
			case n <= 16:
				// A byte at a time: copy's call costs more than a short
				// match, overlapping or not.
				m := dst[out-o : out-o+n]
				w := dst[out : out+n]
				for i := range w {
					w[i] = m[i]
				}
			default:
				// What is copied repeats with period o: copy what is
				// there, doubling.
				start, end := out-o, out+n
				for p := out; p < end; {
					p += copy(dst[p:end], dst[start:p])
				}
			}
			out += n
			d.q.lzStill = out
			continue
		}
		// A delta match: dst[i] = dst[i-offset] + dst[i-span] -
		// dst[i-offset-span], offset a multiple of span.
		if d.q.deltaPending != 0 && out != d.q.deltaStill {
			d.q.delta[3], d.q.delta[2], d.q.delta[1], d.q.delta[0] = d.q.delta[2], d.q.delta[1], d.q.delta[0], d.q.deltaPending
			d.q.deltaPending = 0
		}
		var power, raw uint32
		rng, code = d.normalize(rng, code)
		bit, rng, code = d.delta.bit(rng, code)
		if bit == 0 {
			sym, n = d.power.lookup(buf)
			if n == 0 {
				if sym, n = d.power.long(buf); n == 0 {
					return ErrCode
				}
			}
			buf <<= n & 15
			left -= uint(n)
			d.power.count(sym, &d.s)
			power = sym
			if left < maxCodeLen {
				buf, left = d.refill(buf, left)
			}
			sym, n = d.deltaOffset.lookup(buf)
			if n == 0 {
				if sym, n = d.deltaOffset.long(buf); n == 0 {
					return ErrCode
				}
			}
			buf <<= n & 15
			left -= uint(n)
			d.deltaOffset.count(sym, &d.s)
			extra := uint(offsetExtra[sym&symMask])
			if left < extra {
				buf, left = d.refill(buf, left)
			}
			raw = offsetBase[sym&symMask] + uint32(buf>>1>>((63-extra)&63))
			buf <<= extra & 63
			left -= extra
		} else {
			i := 0
			for i < numRepeats-1 {
				rng, code = d.normalize(rng, code)
				bit, rng, code = d.deltaRep[i].bit(rng, code)
				if bit == 0 {
					break
				}
				i++
			}
			v := d.q.delta[i]
			copy(d.q.delta[i:], d.q.delta[i+1:])
			power, raw = uint32(v>>32), uint32(v)
		}
		if d.q.deltaPending != 0 {
			d.q.delta[3], d.q.delta[2], d.q.delta[1], d.q.delta[0] = d.q.delta[2], d.q.delta[1], d.q.delta[0], d.q.deltaPending
		}
		d.q.deltaPending = uint64(power)<<32 | uint64(raw)
		if left < maxCodeLen {
			buf, left = d.refill(buf, left)
		}
		sym, n = d.length.lookup(buf)
		if n == 0 {
			if sym, n = d.length.long(buf); n == 0 {
				return ErrCode
			}
		}
		buf <<= n & 15
		left -= uint(n)
		d.length.count(sym, &d.s)
		extra := uint(lengthExtra[sym&63])
		if left < extra {
			buf, left = d.refill(buf, left)
		}
		length := lengthBase[sym&63] + uint32(buf>>1>>((63-extra)&63))
		buf <<= extra & 63
		left -= extra
		span := uint64(1) << power
		offset := uint64(raw) << power
		if offset>>32 != 0 || offset+span > uint64(out) {
			return ErrOffset
		}
		if length > uint32(len(dst)-out) {
			return ErrLength
		}
		o, sp := int(offset), int(span)
		for i := out; i < out+int(length); i++ {
			dst[i] = dst[i-o] + dst[i-sp] - dst[i-o-sp]
		}
		out += int(length)
		d.q.deltaStill = out
	}
	d.main.state = mainState
	d.rng, d.code = rng, code
	d.buf, d.left = buf, left
	d.out = out
	return nil
}
