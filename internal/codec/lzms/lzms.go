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
// decisions) selects the probability entry.
type decisions struct {
	state uint32
	mask  uint32
	probs [numOtherProbs]prob // the first mask+1 in use
}

// prob is a probability entry: the last 64 bits decoded with it (the
// newest lowest) and how many of them are zeros.
type prob struct {
	recent uint64
	zeros  uint32
}

func (b *decisions) init(n int) {
	b.state, b.mask = 0, uint32(n-1)
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

	usages  []int32 // undoX86's, kept with x86Base from block to block
	x86Base int32
}

// decodeBit range-decodes one decision of class b.
func (d *Decoder) decodeBit(b *decisions) uint32 {
	if d.rng <= 0xffff {
		d.normalize()
	}
	bit, rng, code := decide(&b.probs[b.state&(numOtherProbs-1)], d.rng, d.code)
	d.rng, d.code = rng, code
	b.state = (b.state<<1 | bit) & b.mask
	return bit
}

// decide decodes one bit with probability entry p from the normalized
// range decoder state (rng, code), and updates p. It is small enough to
// inline where the loop decodes the main decision itself.
func decide(p *prob, rng, code uint32) (bit, rng2, code2 uint32) {
	// The probability of a 0 is the share of zeros among the last 64
	// bits, kept within 1/64..63/64.
	pr := min(max(p.zeros, 1), probMax-1)
	bound := (rng >> probBits) * pr
	if code < bound {
		rng = bound
	} else {
		rng -= bound
		code -= bound
		bit = 1
	}
	// The oldest bit leaves, the new one enters.
	p.zeros += uint32(p.recent>>63) - bit
	p.recent = p.recent<<1 | uint64(bit)
	return bit, rng, code
}

// normalize shifts the next 16 bits into the range decoder.
//
//go:noinline
func (d *Decoder) normalize() {
	d.rng <<= 16
	d.code <<= 16
	if d.fwd+2 <= len(d.src) {
		d.code |= uint32(binary.LittleEndian.Uint16(d.src[d.fwd:]))
		d.fwd += 2
	}
}

// ensure makes at least n (<= 32) bits available in buf.
func (d *Decoder) ensure(n uint) {
	if d.left < n {
		d.refill()
	}
}

// refill makes at least 49 bits available in buf. Below the bits
// counted in left are the next word's bits, or zeros; before the start of
// src are zeros.
func (d *Decoder) refill() {
	if d.back >= 8 {
		// Four words at once (the little-endian word just below back is
		// the next): those that do not fit whole are loaded again.
		v := binary.LittleEndian.Uint64(d.src[d.back-8:])
		d.buf |= v >> d.left
		k := (64 - d.left) >> 4
		d.back -= int(2 * k)
		d.left += 16 * k
		return
	}
	for d.left <= 48 {
		if d.back >= 2 {
			d.back -= 2
			d.buf |= uint64(binary.LittleEndian.Uint16(d.src[d.back:])) << (48 - d.left)
		}
		d.left += 16
	}
}

// readBits reads n (<= 30) verbatim bits.
func (d *Decoder) readBits(n uint8) uint32 {
	if n == 0 {
		return 0
	}
	d.ensure(uint(n))
	v := uint32(d.buf >> (64 - n))
	d.buf <<= n
	d.left -= uint(n)
	return v
}

// symbol decodes one symbol of code a and counts it.
func (d *Decoder) symbol(a *adaptive) (int, error) {
	d.ensure(maxCodeLen)
	e := a.table[d.buf>>(64-tableBits)]
	if e&entrySub != 0 {
		e = a.table[e&^entrySub+uint32(d.buf>>(64-maxCodeLen))&(1<<subBits-1)]
	}
	if e&entrySym == 0 {
		return 0, ErrCode
	}
	l := uint(e & 15)
	d.buf <<= l
	d.left -= l
	sym := int(e>>4) & (1<<symBits - 1)
	a.freqs[sym]++
	a.until--
	if a.until == 0 {
		a.rebuildCode(&d.s)
	}
	return sym, nil
}

// rebuildCode makes the code of the frequencies counted, then halves
// them.
func (a *adaptive) rebuildCode(s *scratch) {
	a.build(s)
	for i, f := range a.freqs {
		a.freqs[i] = f>>1 + 1
	}
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
	if err := d.items(dst); err != nil {
		return err
	}
	if d.usages == nil {
		d.usages = make([]int32, 65536)
	}
	d.x86Base = undoX86(dst, d.usages, d.x86Base)
	return nil
}

// items decodes the literals and matches that make dst.
func (d *Decoder) items(dst []byte) error {
	lzQueue := [numRepeats + 1]uint32{1, 2, 3, 4}
	deltaQueue := [numRepeats + 1]uint64{1, 2, 3, 4}
	var lzPending uint32
	var deltaPending uint64
	lzStill, deltaStill := -1, -1
	main := &d.main
	out := 0
	for out < len(dst) {
		// The main decision, as decodeBit makes it, without the call.
		if d.rng <= 0xffff {
			d.normalize()
		}
		isMatch, rng, code := decide(&main.probs[main.state&(numMainProbs-1)], d.rng, d.code)
		d.rng, d.code = rng, code
		main.state = (main.state<<1 | isMatch) & (numMainProbs - 1)
		if isMatch == 0 {
			sym, err := d.symbol(&d.literal)
			if err != nil {
				return err
			}
			dst[out] = byte(sym)
			out++
			continue
		}
		if d.decodeBit(&d.match) == 0 {
			// An LZ match. The offset used last joins the queue only
			// after the next item, unless that is this one.
			if lzPending != 0 && out != lzStill {
				copy(lzQueue[1:], lzQueue[:numRepeats])
				lzQueue[0] = lzPending
				lzPending = 0
			}
			var offset uint32
			if d.decodeBit(&d.lz) == 0 {
				slot, err := d.symbol(&d.lzOffset)
				if err != nil {
					return err
				}
				offset = offsetBase[slot] + d.readBits(offsetExtra[slot])
			} else {
				i := 0
				for i < numRepeats-1 && d.decodeBit(&d.lzRep[i]) != 0 {
					i++
				}
				offset = lzQueue[i]
				copy(lzQueue[i:], lzQueue[i+1:])
			}
			if lzPending != 0 {
				copy(lzQueue[1:], lzQueue[:numRepeats])
				lzQueue[0] = lzPending
			}
			lzPending = offset
			length, err := d.matchLength()
			if err != nil {
				return err
			}
			if length > uint32(len(dst)-out) {
				return ErrLength
			}
			if offset > uint32(out) {
				return ErrOffset
			}
			n, o := int(length), int(offset)
			if n <= 16 {
				// A byte at a time: copy's call costs more than a short
				// match, overlapping or not.
				m := dst[out-o : out-o+n]
				w := dst[out : out+n]
				for i := range w {
					w[i] = m[i]
				}
			} else {
				// What is copied repeats with period o: copy what is
				// there, doubling.
				start, end := out-o, out+n
				for p := out; p < end; {
					p += copy(dst[p:end], dst[start:p])
				}
			}
			out += n
			lzStill = out
			continue
		}
		// A delta match: dst[i] = dst[i-offset] + dst[i-span] -
		// dst[i-offset-span], offset a multiple of span.
		if deltaPending != 0 && out != deltaStill {
			copy(deltaQueue[1:], deltaQueue[:numRepeats])
			deltaQueue[0] = deltaPending
			deltaPending = 0
		}
		var power, raw uint32
		if d.decodeBit(&d.delta) == 0 {
			p, err := d.symbol(&d.power)
			if err != nil {
				return err
			}
			slot, err := d.symbol(&d.deltaOffset)
			if err != nil {
				return err
			}
			power, raw = uint32(p), offsetBase[slot]+d.readBits(offsetExtra[slot])
		} else {
			i := 0
			for i < numRepeats-1 && d.decodeBit(&d.deltaRep[i]) != 0 {
				i++
			}
			v := deltaQueue[i]
			copy(deltaQueue[i:], deltaQueue[i+1:])
			power, raw = uint32(v>>32), uint32(v)
		}
		if deltaPending != 0 {
			copy(deltaQueue[1:], deltaQueue[:numRepeats])
			deltaQueue[0] = deltaPending
		}
		deltaPending = uint64(power)<<32 | uint64(raw)
		length, err := d.matchLength()
		if err != nil {
			return err
		}
		span := uint64(1) << power
		offset := uint64(raw) << power
		if offset>>32 != 0 || offset+span > uint64(out) {
			return ErrOffset
		}
		if length > uint32(len(dst)-out) {
			return ErrLength
		}
		o, s := int(offset), int(span)
		for i := out; i < out+int(length); i++ {
			dst[i] = dst[i-o] + dst[i-s] - dst[i-o-s]
		}
		out += int(length)
		deltaStill = out
	}
	return nil
}

func (d *Decoder) matchLength() (uint32, error) {
	slot, err := d.symbol(&d.length)
	if err != nil {
		return 0, err
	}
	return lengthBase[slot] + d.readBits(lengthExtra[slot]), nil
}
