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
// the middle of a stream held in memory, without its window. It decodes
// into a ring of a power-of-two size (masked indexes need no bounds
// checks): the caller's output buffer when it can hold one, so that the
// output stays where it was decoded (see Decode), else a ring of its own
// from which it moves the output out in large pieces, like the Inflater.
type MarkerDecoder struct {
	src      []byte
	pos      int    // next byte of src for the bit buffer
	bitbuf   uint64 // bits above bitsleft are zero or the next input bits
	bitsleft uint
	err      error

	ring    *markerRing
	own     *markerRing // the ring when the caller's buffer cannot be one, made on first use
	direct  bool        // ring is the caller's buffer, and dst is ring[MarkerWindow:flushed]
	op      int         // end of the output in ring
	flushed int         // ring[:flushed] is in dst (or the window before the start)
	dst     []uint16    // the output moved out of the ring
	maxOut  int
	flushAt int

	lastMarker int // dst[lastMarker:] holds no marker (-1: before dst)
	scanned    int // dst[:scanned] has been searched for markers

	// Interrupt, when set, is called at each block boundary past
	// minBlocks; Decode stops there (Interrupted) when it reports true:
	// the caller learnt the window, or that the output is of no use.
	Interrupt func() bool

	lit     *litTable
	dist    *distTable
	tables  dynTables
	lengths codeLengths
}

// The ring: the window, then output up to flushAt, then room for a match
// and the overshoot of word copies. It is large enough to hold a parallel
// gzip piece's output whole (4 Mi symbols, 8 MiB).
const (
	ringSize = 1 << 22
	ringMask = ringSize - 1
)

type markerRing [ringSize + 16]uint16

// MarkerRingLen is the capacity of a Decode buffer that Decode decodes
// into directly.
const MarkerRingLen = len(markerRing{})

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
	// Interrupted: Interrupt reported true.
	Interrupted
)

// Result is what MarkerDecoder.Decode did.
type Result struct {
	Outcome Outcome
	End     int64 // bit position in src of the block boundary where the output ends
	Blocks  int   // whole blocks decoded
	Err     error // for Cut: what ended decoding (io.ErrUnexpectedEOF at the end of src)
}

// NewMarkerDecoder returns a MarkerDecoder.
func NewMarkerDecoder() *MarkerDecoder {
	return &MarkerDecoder{flushAt: ringSize - maxDeflateMatch - 32}
}

// Decode decodes src from bit start, a block boundary, until the first
// block boundary after minBlocks blocks that is at or past bit stopBit or
// has stopOut symbols of output or more (Stopped), the end of the final
// block (Final), a boundary after which the last 32 KiB hold no marker
// (Clean) or where Interrupt reports true (Interrupted), or an error, the
// end of src or more than maxOut symbols of output (Cut, the output then
// ending at the last boundary within maxOut). When dst's capacity is
// MarkerRingLen or more, its memory is the ring: the output is decoded in
// place and returned as dst[MarkerWindow:][:n], unless it outgrows the
// ring, when it is moved to memory Decode allocates (at least
// MarkerRingLen long), which it returns. Otherwise the output is appended
// to dst[:0], which Decode returns.
func (d *MarkerDecoder) Decode(dst []uint16, src []byte, start, stopBit int64, stopOut, maxOut, minBlocks int) (Result, []uint16) {
	res := Result{End: start}
	if start < 0 || start >= int64(len(src))*8 {
		res.Err = io.ErrUnexpectedEOF
		return res, dst[:0]
	}
	d.src, d.pos, d.bitbuf, d.bitsleft, d.err = src, int(start/8), 0, 0, nil
	d.refill()
	d.bitbuf >>= start % 8
	d.bitsleft -= uint(start % 8)
	d.direct = cap(dst) >= MarkerRingLen
	if d.direct {
		d.ring = (*markerRing)(dst[:MarkerRingLen])
	} else {
		if d.own == nil {
			d.own = new(markerRing)
		}
		d.ring = d.own
	}
	for i := range MarkerWindow {
		d.ring[i] = Marker + uint16(i)
	}
	d.op, d.flushed = MarkerWindow, MarkerWindow
	d.dst, d.maxOut = dst[:0], maxOut
	if d.direct {
		d.dst = d.ring[MarkerWindow:MarkerWindow]
	}
	d.lastMarker, d.scanned = -1, 0
	end, n := start, 0 // the last boundary whose output is in dst
	for {
		if !d.flush() {
			res.Outcome, res.End, res.Err = Cut, end, d.err
			return res, d.dst[:n]
		}
		end, n = res.End, len(d.dst)
		if res.Blocks >= max(minBlocks, 1) {
			switch {
			case res.End >= stopBit || n >= stopOut:
				res.Outcome = Stopped
				return res, d.dst
			case d.clean():
				res.Outcome = Clean
				return res, d.dst
			case d.Interrupt != nil && d.Interrupt():
				res.Outcome = Interrupted
				return res, d.dst
			}
		}
		final, ok := d.block()
		if !ok {
			res.Outcome, res.Err = Cut, d.err
			return res, d.dst[:n]
		}
		res.Blocks++
		res.End = d.bitPos()
		if final {
			if !d.flush() {
				res.Outcome, res.End, res.Err = Cut, end, d.err
				return res, d.dst[:n]
			}
			res.Outcome = Final
			return res, d.dst
		}
	}
}

// flush moves the output out of the ring, and the window to its start
// when the output is near its end. It fails past maxOut.
func (d *MarkerDecoder) flush() bool {
	if len(d.dst)+d.op-d.flushed > d.maxOut {
		d.fail(errOutputLimit)
		return false
	}
	switch n := len(d.dst) + d.op - d.flushed; {
	case d.direct && d.op < d.flushAt:
		// The output stays in the ring.
		d.dst = d.ring[MarkerWindow:d.op]
	case d.direct:
		// It outgrew the ring: it moves out, and the ring goes on as one.
		dst := make([]uint16, n, max(2*n, 4*len(d.src), MarkerRingLen))
		copy(dst, d.ring[MarkerWindow:d.op])
		d.dst, d.direct = dst, false
	default:
		if n > cap(d.dst) {
			// Doubling: fewer copies than append's growth of large slices.
			dst := make([]uint16, len(d.dst), max(2*cap(d.dst), n, 4*len(d.src)))
			copy(dst, d.dst)
			d.dst = dst
		}
		d.dst = append(d.dst, d.ring[d.flushed:d.op]...)
	}
	d.flushed = d.op
	if d.op >= d.flushAt {
		copy(d.ring[:], d.ring[d.op-MarkerWindow:d.op])
		d.op, d.flushed = MarkerWindow, MarkerWindow
	}
	return true
}

// clean reports whether the last 32 KiB of output hold no marker. It
// searches the output not searched before from its end, so each symbol
// is looked at once at most, and where markers are dense, few are.
func (d *MarkerDecoder) clean() bool {
	for i := len(d.dst) - 1; i >= d.scanned; i-- {
		if d.dst[i] >= Marker {
			d.lastMarker = i
			break
		}
	}
	d.scanned = len(d.dst)
	return len(d.dst)-(d.lastMarker+1) >= MarkerWindow
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
		if d.op >= d.flushAt && !d.flush() {
			break
		}
		if len(d.src)-d.pos >= fastInput {
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
	for n > 0 {
		if d.op >= d.flushAt && !d.flush() {
			return false
		}
		k := min(n, d.flushAt-d.op)
		// The bit buffer holds whole bytes after the length.
		for ; k > 0 && d.bitsleft >= 8; k-- {
			d.ring[d.op] = uint16(byte(d.bitbuf))
			d.op++
			n--
			d.bitbuf >>= 8
			d.bitsleft -= 8
		}
		if k == 0 {
			continue
		}
		if k > len(d.src)-d.pos {
			d.fail(io.ErrUnexpectedEOF)
			return false
		}
		d.bitbuf = 0 // empty: the bytes come from src directly
		for i, b := range d.src[d.pos : d.pos+k] {
			d.ring[d.op+i] = uint16(b)
		}
		d.op += k
		d.pos += k
		n -= k
	}
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
		d.ring[d.op&ringMask] = uint16(byte(e >> 16))
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
	if dist > d.op {
		d.fail(ErrDistance)
		return false, false
	}
	matchMarked(d.ring, d.op, dist, length)
	d.op += length
	return false, true
}

// matchMarked copies length symbols from dist back (1 <= dist <= op),
// writing up to 15 symbols past the end, which stays inside the ring
// (flushAt leaves room).
func matchMarked(ring *markerRing, op, dist, length int) {
	out := ring[:]
	src := op - dist
	end := op + length
	switch {
	case dist >= 8:
		for {
			*(*[8]uint16)(out[op&ringMask:]) = *(*[8]uint16)(out[src&ringMask:])
			op += 8
			src += 8
			if op >= end {
				return
			}
		}
	default:
		for ; op < end; op++ {
			out[op&ringMask] = out[(op-dist)&ringMask]
		}
	}
}

// fast is MarkerDecoder's inner loop, the Inflater's (fastloop.go) with
// 16-bit output. Entering, src holds at least fastInput bytes from pos
// and op is below flushAt; it returns true at the end of the block, false
// when either no longer holds or at an error.
func (d *MarkerDecoder) fast() bool {
	in, out := d.src, d.ring[:]
	ip, op := d.pos, d.op
	ipLimit, opLimit := len(in)-fastInput, d.flushAt
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
			out[op&ringMask] = uint16(byte(e >> 16))
			e = lt[bitbuf&lmask]
			if e&flagLit != 0 {
				bitbuf >>= e & 63
				bitsleft -= uint(e & 63)
				out[(op+1)&ringMask] = uint16(byte(e >> 16))
				e = lt[bitbuf&lmask]
				if e&flagLit != 0 {
					bitbuf >>= e & 63
					bitsleft -= uint(e & 63)
					out[(op+2)&ringMask] = uint16(byte(e >> 16))
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
					out[op&ringMask] = uint16(byte(e >> 16))
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

		if dist >= 8 && length <= 16 {
			src := op - dist
			*(*[8]uint16)(out[op&ringMask:]) = *(*[8]uint16)(out[src&ringMask:])
			*(*[8]uint16)(out[(op+8)&ringMask:]) = *(*[8]uint16)(out[(src+8)&ringMask:])
		} else {
			matchMarked(d.ring, op, dist, length)
		}
		op += length
		if op >= opLimit || ip > ipLimit {
			break
		}
	}
	d.pos, d.op, d.bitbuf, d.bitsleft = ip, op, bitbuf, bitsleft
	return end
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
