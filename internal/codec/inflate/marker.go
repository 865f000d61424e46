package inflate

import (
	"encoding/binary"
	"io"
)

// Decoding without the window, for a decoder of one deflate stream in
// parallel pieces (the approach of rapidgzip: Knespel and Brunst, HPDC
// 2023). A piece starting at a block boundary in the middle of the stream
// is decoded before the 32 KiB of output that precede it are known: a
// back-reference into them cannot give its bytes, so the output is 16-bit
// and such a byte comes out as a marker naming its place in that window.
// Once the previous piece is decoded, Resolve replaces the markers. When
// the last 32 KiB of output hold no marker, no later byte can need one, and
// the caller goes on with an Inflater (ResetAt), which is faster.

// Marker is added to a window index in a MarkerDecoder's output: a value v
// at or above Marker stands for byte v-Marker of the 32 KiB window that
// precedes the start (index 0 is the oldest); smaller values are bytes.
const Marker = 0x8000

// MarkerWindow is the size of the unknown window: deflate's.
const MarkerWindow = 32 << 10

// MarkerDecoder decodes deflate (not Deflate64) from a block boundary in
// the middle of a stream held in memory, without its window.
type MarkerDecoder struct {
	src      []byte
	pos      int    // next byte of src for the bit buffer
	bitbuf   uint64 // bits above bitsleft are zero or the next input bits
	bitsleft uint
	err      error

	out        []uint16 // MarkerWindow markers, then the output
	op         int      // end of the output in out
	limit      int      // the output may not reach past out[limit] before out grows
	maxLimit   int      // nor ever past this
	lastMarker int      // out[lastMarker:op] holds no marker
	scanned    int      // out[:scanned] has been searched for markers

	lit     *litTable
	dist    *distTable
	tables  dynTables
	lengths codeLengths
}

// Outcome says why MarkerDecoder.Decode stopped.
type Outcome int

// Outcomes of Decode. Except for Cut, decoding stopped at a block
// boundary after the whole of the output.
const (
	// Cut: an error, the end of the input or the output limit inside a
	// block; the output ends at the last block boundary.
	Cut Outcome = iota
	// Final: the final block ended.
	Final
	// Stopped: the stop position or the stop output was reached.
	Stopped
	// Clean: the last 32 KiB of output hold no marker; decoding goes on
	// with an Inflater from End, its window the last 32 KiB of output.
	Clean
)

// Result is what MarkerDecoder.Decode did.
type Result struct {
	Outcome Outcome
	End     int64 // bit position in src of the block boundary where the output ends
	Blocks  int   // whole blocks decoded
	N       int   // symbols of output
	Err     error // for Cut: what ended decoding (io.ErrUnexpectedEOF at the end of src)
}

// Output returns the output in buf, the buffer Decode returned with r.
func (r Result) Output(buf []uint16) []uint16 { return buf[MarkerWindow : MarkerWindow+r.N] }

// NewMarkerDecoder returns a MarkerDecoder.
func NewMarkerDecoder() *MarkerDecoder { return new(MarkerDecoder) }

// markerSlack is how much longer than the output a buffer of Decode is:
// the markers of the window before it, and room for the word copies of
// matches to overshoot.
const markerSlack = MarkerWindow + 2*maxDeflateMatch + 64

// Decode decodes src from bit start, a block boundary, until the first
// block boundary after minBlocks blocks that is at or past bit stopBit or
// has stopOut symbols of output or more (Stopped), the end of the final
// block (Final), a boundary after which the last 32 KiB hold no marker
// (Clean), or an error, the end of src or more than maxOut symbols of
// output inside a block (Cut). The output goes to buf, grown as needed
// (nil is fine), which Decode returns: Result.Output finds it there.
func (d *MarkerDecoder) Decode(buf []uint16, src []byte, start, stopBit int64, stopOut, maxOut, minBlocks int) (Result, []uint16) {
	res := Result{End: start}
	if start < 0 || start >= int64(len(src))*8 {
		res.Err = io.ErrUnexpectedEOF
		return res, buf
	}
	d.src, d.pos, d.bitbuf, d.bitsleft, d.err = src, int(start/8), 0, 0, nil
	d.refill()
	d.bitbuf >>= start % 8
	d.bitsleft -= uint(start % 8)
	if len(buf) < markerSlack+1<<16 {
		// A first guess: four symbols per input byte.
		buf = make([]uint16, markerSlack+min(maxOut, max(4*(len(src)-int(start/8)), 1<<16)))
	}
	d.out, d.op = buf, MarkerWindow
	d.maxLimit = MarkerWindow + maxOut
	d.limit = min(len(buf)-(markerSlack-MarkerWindow), d.maxLimit)
	for i := range d.out[:MarkerWindow] {
		d.out[i] = Marker + uint16(i)
	}
	d.lastMarker, d.scanned = MarkerWindow, MarkerWindow
	for {
		res.N = d.op - MarkerWindow
		if res.Blocks >= max(minBlocks, 1) {
			switch {
			case res.End >= stopBit || res.N >= stopOut:
				res.Outcome = Stopped
				return res, d.out
			case d.clean():
				res.Outcome = Clean
				return res, d.out
			}
		}
		final, ok := d.block()
		if !ok {
			d.op = MarkerWindow + res.N
			res.Outcome, res.Err = Cut, d.err
			return res, d.out
		}
		res.Blocks++
		res.End = d.bitPos()
		if final {
			res.N = d.op - MarkerWindow
			res.Outcome = Final
			return res, d.out
		}
	}
}

// grow makes room for n more symbols of output, and reports false when
// they would pass the maximum.
func (d *MarkerDecoder) grow(n int) bool {
	if d.op+n <= d.limit {
		return true
	}
	if d.op+n > d.maxLimit {
		d.fail(errOutputLimit)
		return false
	}
	size := min(max(2*len(d.out), d.op+n+markerSlack), d.maxLimit+markerSlack)
	out := make([]uint16, size)
	copy(out, d.out[:d.op])
	d.out = out
	d.limit = min(size-(markerSlack-MarkerWindow), d.maxLimit)
	return true
}

// clean reports whether the last 32 KiB of output hold no marker. It
// searches the output not searched before from its end, so each symbol
// is looked at once at most, and where markers are dense, few are.
func (d *MarkerDecoder) clean() bool {
	for i := d.op - 1; i >= d.scanned; i-- {
		if d.out[i] >= Marker {
			d.lastMarker = i + 1
			break
		}
	}
	d.scanned = d.op
	return d.op-d.lastMarker >= MarkerWindow
}

// bitPos is the bit position in src of the next bit.
func (d *MarkerDecoder) bitPos() int64 { return int64(d.pos)*8 - int64(d.bitsleft) }

// refill loads whole bytes into the bit buffer, up to 56 bits or more, or
// as many as src has.
func (d *MarkerDecoder) refill() {
	if d.pos+8 <= len(d.src) {
		d.bitbuf |= binary.LittleEndian.Uint64(d.src[d.pos:]) << (d.bitsleft & 63)
		d.pos += int(63-d.bitsleft) >> 3
		d.bitsleft |= 56
		return
	}
	for d.bitsleft <= 56 && d.pos < len(d.src) {
		d.bitbuf &= 1<<d.bitsleft - 1
		d.bitbuf |= uint64(d.src[d.pos]) << d.bitsleft
		d.pos++
		d.bitsleft += 8
	}
}

// fail records err unless an error is recorded.
func (d *MarkerDecoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// bits implements bitSource.
func (d *MarkerDecoder) bits(n uint) (uint32, bool) {
	if d.bitsleft < n {
		d.refill()
		if d.bitsleft < n {
			d.fail(io.ErrUnexpectedEOF)
			return 0, false
		}
	}
	v := uint32(d.bitbuf & (1<<n - 1))
	d.bitbuf >>= n
	d.bitsleft -= n
	return v, true
}

func (d *MarkerDecoder) alignToByte() {
	d.bitbuf >>= d.bitsleft % 8
	d.bitsleft -= d.bitsleft % 8
}

func (d *MarkerDecoder) buildCodeLengthCode(cl []uint8) bool {
	return buildTable(d.tables.clen[:], cl, clenRootBits, clenEntries)
}

func (d *MarkerDecoder) codeLengthSym() (uint32, bool) {
	e, _, ok := d.sym(d.tables.clen[:], clenRootBits)
	return e >> 16, ok
}

// sym decodes the next code with table t and consumes it with its extra
// bits, whose value it returns.
func (d *MarkerDecoder) sym(t []uint32, rootBits uint) (e, extra uint32, ok bool) {
	if d.bitsleft < maxCodeLen+13 {
		d.refill()
	}
	b := d.bitbuf
	if d.bitsleft < 64 {
		b &= 1<<d.bitsleft - 1 // the bits past the input are zero
	}
	used := uint(0)
	e = t[b&(1<<rootBits-1)]
	if e&flagSub != 0 {
		used = rootBits
		b >>= rootBits
		e = t[int(e>>16)+int(b)&(1<<shiftOf(e)-1)]
	}
	n := used + consumeOf(e)
	switch {
	case e&flagInvalid != 0:
		if d.bitsleft >= maxCodeLen {
			d.fail(ErrSymbol)
		} else {
			d.fail(io.ErrUnexpectedEOF)
		}
		return 0, 0, false
	case n > d.bitsleft:
		d.fail(io.ErrUnexpectedEOF)
		return 0, 0, false
	}
	extra = uint32(b&(1<<consumeOf(e)-1)) >> shiftOf(e)
	d.bitbuf >>= n
	d.bitsleft -= n
	return e, extra, true
}

// block decodes one block and reports whether it was the final one.
func (d *MarkerDecoder) block() (final bool, ok bool) {
	final, typ, n, err := readBlockHeader(d)
	if err != nil {
		d.fail(err)
		return false, false
	}
	switch typ {
	case blockStored:
		return final, d.stored(n)
	case blockFixed:
		t := &fixedTables()[0]
		d.lit, d.dist = &t.lit, &t.dist
	case blockDynamic:
		nlit, ndist, err := readCodeLengths(d, &d.lengths, false)
		if err == nil && (!buildTable(d.tables.lit[:], d.lengths.all[:nlit], litRootBits, symEntries[0][0]) ||
			!buildTable(d.tables.dist[:], d.lengths.all[nlit:nlit+ndist], distRootBits, symEntries[0][1])) {
			err = ErrCodeLengths
		}
		if err != nil {
			d.fail(err)
			return false, false
		}
		d.lit, d.dist = &d.tables.lit, &d.tables.dist
	}
	for d.err == nil {
		if d.op >= d.limit-maxDeflateMatch && d.limit < d.maxLimit && !d.grow(maxDeflateMatch+1) {
			break
		}
		if len(d.src)-d.pos >= fastInput && d.op < d.limit-maxDeflateMatch {
			if d.fast() {
				return final, true
			}
		} else if end, ok := d.slow(); end || !ok {
			return final, ok
		}
	}
	return final, false
}

// stored copies a stored block of n bytes.
func (d *MarkerDecoder) stored(n int) bool {
	if !d.grow(n) {
		return false
	}
	// The bit buffer holds whole bytes after the length.
	for ; n > 0 && d.bitsleft >= 8; n-- {
		d.out[d.op] = uint16(byte(d.bitbuf))
		d.op++
		d.bitbuf >>= 8
		d.bitsleft -= 8
	}
	if n == 0 {
		return true
	}
	if n > len(d.src)-d.pos {
		d.fail(io.ErrUnexpectedEOF)
		return false
	}
	d.bitbuf = 0 // empty: the bytes come from src directly
	for i, b := range d.src[d.pos : d.pos+n] {
		d.out[d.op+i] = uint16(b)
	}
	d.op += n
	d.pos += n
	return true
}

// errOutputLimit ends a Decode whose output would not fit.
var errOutputLimit = errorString("inflate: output limit")

type errorString string

func (e errorString) Error() string { return string(e) }

// slow decodes one symbol (and its match) with checked reads, and reports
// whether it was the end of the block.
func (d *MarkerDecoder) slow() (end, ok bool) {
	e, extra, ok := d.sym(d.lit[:], litRootBits)
	if !ok {
		return false, false
	}
	switch {
	case e&flagLit != 0:
		if !d.grow(1) {
			return false, false
		}
		d.out[d.op] = uint16(byte(e >> 16))
		d.op++
		return false, true
	case e&flagEnd != 0:
		return true, true
	}
	length := int(e>>16) + int(extra)
	e, extra, ok = d.sym(d.dist[:], distRootBits)
	if !ok {
		return false, false
	}
	dist := int(e>>16) + int(extra)
	switch {
	case dist > d.op:
		d.fail(ErrDistance)
		return false, false
	case !d.grow(length):
		return false, false
	}
	matchMarked(d.out, d.op, dist, length)
	d.op += length
	return false, true
}

// matchMarked copies length symbols from dist back (1 <= dist <= op),
// writing up to 32 symbols past the end.
func matchMarked(out []uint16, op, dist, length int) {
	src := op - dist
	end := op + length
	switch {
	case dist >= 16:
		if length > 64 && dist >= length {
			copy(out[op:end], out[src:src+length])
			return
		}
		for {
			*(*[8]uint16)(out[op:]) = *(*[8]uint16)(out[src:])
			*(*[8]uint16)(out[op+8:]) = *(*[8]uint16)(out[src+8:])
			op += 16
			src += 16
			if op >= end {
				return
			}
		}
	case dist >= 8:
		for {
			*(*[8]uint16)(out[op:]) = *(*[8]uint16)(out[src:])
			op += 8
			src += 8
			if op >= end {
				return
			}
		}
	default:
		for ; op < end; op++ {
			out[op] = out[op-dist]
		}
	}
}

// fast is MarkerDecoder's inner loop, the Inflater's (fastloop.go) with
// 16-bit output. Entering, src holds at least fastInput bytes from pos
// and op is below limit-maxDeflateMatch; it returns true at the end of the
// block, false when either no longer holds or at an error.
func (d *MarkerDecoder) fast() bool {
	in, out := d.src, d.out
	ip, op := d.pos, d.op
	ipLimit, opLimit := len(in)-fastInput, d.limit-maxDeflateMatch
	bitbuf, bitsleft := d.bitbuf, d.bitsleft
	lt, dt := d.lit, d.dist
	const lmask, dmask = 1<<litRootBits - 1, 1<<distRootBits - 1
	end := false

	bitbuf |= binary.LittleEndian.Uint64(in[ip:]) << (bitsleft & 63)
	ip += int(63-bitsleft) >> 3
	bitsleft |= 56
	e := lt[bitbuf&lmask]
	for {
		if e&flagLit != 0 {
			bitbuf >>= e & 63
			bitsleft -= uint(e & 63)
			out[op] = uint16(byte(e >> 16))
			e = lt[bitbuf&lmask]
			if e&flagLit != 0 {
				bitbuf >>= e & 63
				bitsleft -= uint(e & 63)
				out[op+1] = uint16(byte(e >> 16))
				e = lt[bitbuf&lmask]
				if e&flagLit != 0 {
					bitbuf >>= e & 63
					bitsleft -= uint(e & 63)
					out[op+2] = uint16(byte(e >> 16))
					op += 3
					bitbuf |= binary.LittleEndian.Uint64(in[ip:]) << (bitsleft & 63)
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
			bitbuf |= binary.LittleEndian.Uint64(in[ip:]) << (bitsleft & 63)
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
					out[op] = uint16(byte(e >> 16))
					op++
					bitbuf |= binary.LittleEndian.Uint64(in[ip:]) << (bitsleft & 63)
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
					end = true
				} else {
					d.fail(ErrSymbol)
				}
				break
			}
		}

		saved := bitbuf
		bitbuf >>= e & 63
		bitsleft -= uint(e & 63)
		length := int(e>>16) + int(saved&(1<<(e&63)-1)>>shiftOf(e))
		e = dt[bitbuf&dmask]
		if e&flagExc != 0 {
			if e&flagSub != 0 {
				bitbuf >>= e & 63
				bitsleft -= uint(e & 63)
				e = dt[int(e>>16)+int(bitbuf)&(1<<shiftOf(e)-1)]
			}
			if e&flagExc != 0 {
				d.fail(ErrSymbol)
				break
			}
		}
		saved = bitbuf
		bitbuf >>= e & 63
		bitsleft -= uint(e & 63)
		dist := int(e>>16) + int(saved&(1<<(e&63)-1)>>shiftOf(e))
		if dist > op {
			d.fail(ErrDistance)
			break
		}
		bitbuf |= binary.LittleEndian.Uint64(in[ip:]) << (bitsleft & 63)
		ip += int(63-bitsleft) >> 3
		bitsleft |= 56
		e = lt[bitbuf&lmask]

		if dist >= 16 && length <= 32 {
			// Four 16-byte words (a 32-byte array would be a memmove call).
			src := op - dist
			*(*[8]uint16)(out[op:]) = *(*[8]uint16)(out[src:])
			*(*[8]uint16)(out[op+8:]) = *(*[8]uint16)(out[src+8:])
			*(*[8]uint16)(out[op+16:]) = *(*[8]uint16)(out[src+16:])
			*(*[8]uint16)(out[op+24:]) = *(*[8]uint16)(out[src+24:])
		} else {
			matchMarked(out, op, dist, length)
		}
		op += length
		if op >= opLimit || ip > ipLimit {
			break
		}
	}
	d.pos, d.op, d.bitbuf, d.bitsleft = ip, op, bitbuf, bitsleft
	return end
}

// hasMarker reports whether s holds a marker.
func hasMarker(s []uint16) bool {
	var acc uint16
	for _, v := range s {
		acc |= v
	}
	return acc&Marker != 0
}

// Resolve writes to dst (as long as src) the bytes of src, a
// MarkerDecoder's output, with each marker replaced by its byte of window,
// the output that preceded the start (its last 32 KiB count; shorter at
// the start of a stream). It reports false when a marker names a byte
// before window's start: the output was wrong or the stream corrupt.
func Resolve(dst []byte, src []uint16, window []byte) bool {
	if len(window) > MarkerWindow {
		window = window[len(window)-MarkerWindow:]
	}
	first := MarkerWindow - len(window) // the oldest index window holds
	dst = dst[:len(src)]
	for i, v := range src {
		if v < Marker {
			dst[i] = byte(v)
			continue
		}
		k := int(v-Marker) - first
		if k < 0 {
			return false
		}
		dst[i] = window[k]
	}
	return true
}
