package inflate

import (
	"encoding/binary"
	"io"
	"sync"
)

// Inflater decodes deflate (RFC 1951) or Deflate64 from a source it reads
// ahead of the decoder in large chunks, so it may consume bytes past the end
// of the compressed stream: use it when the caller bounds the source (a zip
// entry of known compressed size), or take the excess back with Rest. Its
// inner loop (fastloop.go) works on byte slices with a 64-bit bit buffer
// refilled eight bytes at a time, decodes each symbol with one lookup in
// tables whose entries carry their bit counts (fasttable.go), and copies
// matches in 16- and 8-byte words into one large output buffer.
//
// Reader, by contrast, reads one byte at a time and never past the stream.
type Inflater struct {
	src    io.Reader
	srcErr error
	in     *inBuf
	ip     int
	iend   int

	bitbuf   uint64 // bits above bitsleft are zero or the next input bits
	bitsleft uint

	d64        bool
	err        error
	state      int
	final      bool
	storedLeft int

	lit     *litTable
	dist    *distTable
	tables  *dynTables
	lengths codeLengths

	out     *outBuf // window, then output, then slack for one match
	win     int
	flushAt int
	op      int
	rp      int

	span span // positioned decoding (segment.go)
}

// dynTables are the tables of dynamic blocks, allocated once per Inflater.
type dynTables struct {
	lit  litTable
	dist distTable
	clen [clenTableSize]uint32
}

// The buffers are arrays of a power-of-two size (plus padding for word
// loads and stores) so that the fast loop's indexes, masked, need no
// bounds checks: the masks never change an index, which the loop keeps
// inside the buffer.
const (
	inBufSize = 32 << 10
	inMask    = inBufSize - 1
	outSize   = 256 << 10
	outMask   = outSize - 1
	// outSlack follows the longest match, which may start at flushAt+2
	// (after literals): the word copies' overshoot.
	outSlack = 64
)

type (
	inBuf  [inBufSize + 8]byte
	outBuf [outSize + 16]byte
)

// fixedTables returns the tables of fixed-code blocks, per mode, built
// on first use (they are 86 KiB: not a cost for programs that never
// decode a fixed block).
var fixedTables = sync.OnceValue(func() *[2]struct {
	lit  litTable
	dist distTable
} {
	t := new([2]struct {
		lit  litTable
		dist distTable
	})
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	var d [32]uint8
	for i := range d {
		d[i] = 5
	}
	for m := range t {
		buildTable(t[m].lit[:], l[:], litRootBits, symEntries[m][0])
		buildTable(t[m].dist[:], d[:], distRootBits, symEntries[m][1])
	}
	return t
})

// NewInflater returns an Inflater of deflate (d64 false) or Deflate64
// reading from r.
func NewInflater(r io.Reader, d64 bool) *Inflater {
	return newInflater(r, d64, new(inBuf), new(outBuf), new(dynTables))
}

// newInflater is NewInflater with the buffers and tables given.
func newInflater(r io.Reader, d64 bool, in *inBuf, out *outBuf, tables *dynTables) *Inflater {
	f := &Inflater{d64: d64, in: in, out: out, tables: tables}
	f.win = 32 << 10
	maxMatch := maxDeflateMatch
	if d64 {
		f.win, maxMatch = windowSize, 3+0xffff
	}
	f.flushAt = outSize - maxMatch - outSlack
	f.Reset(r)
	return f
}

// Reset makes f decode a new stream from r, keeping its buffers.
func (f *Inflater) Reset(r io.Reader) {
	f.src, f.srcErr = r, nil
	f.ip, f.iend = 0, 0
	f.bitbuf, f.bitsleft = 0, 0
	f.err, f.state, f.final, f.storedLeft = nil, stateHeader, false, 0
	f.op, f.rp = 0, 0
	f.span = span{stopBit: -1}
}

// ResetDict is Reset with a preset dictionary: matches of the new stream
// may reach back into the last 32 KiB (64 KiB for Deflate64) of dict,
// which is not output. MSZIP cabinets carry the window from one block's
// stream to the next this way.
func (f *Inflater) ResetDict(r io.Reader, dict []byte) {
	f.Reset(r)
	if len(dict) > f.win {
		dict = dict[len(dict)-f.win:]
	}
	f.op = copy(f.out[:], dict)
	f.rp = f.op
}

func (f *Inflater) mode() int {
	if f.d64 {
		return 1
	}
	return 0
}

// Read decompresses into p.
func (f *Inflater) Read(p []byte) (int, error) {
	for {
		if f.rp < f.op {
			n := copy(p, f.out[f.rp:f.op])
			f.rp += n
			return n, nil
		}
		if f.err != nil {
			return 0, f.err
		}
		if f.op >= f.flushAt {
			copy(f.out[:], f.out[f.op-f.win:f.op])
			f.span.slid += int64(f.op - f.win)
			f.op, f.rp = f.win, f.win
		}
		switch f.state {
		case stateHeader:
			f.header()
		case stateStored:
			f.stored()
		case stateHuffman:
			f.huffman()
		default:
			f.err = io.EOF
		}
	}
}

// Rest returns the input the Inflater read past the end of the stream:
// after Read has returned io.EOF, the bytes that follow the final block
// (a container's trailer, the next member). They stay valid until the next
// Read or Reset.
func (f *Inflater) Rest() []byte {
	if f.state != stateEnd {
		return nil
	}
	return f.in[f.ip-int(f.bitsleft>>3) : f.iend]
}

// topUp moves the unread input to the front of the buffer and reads more,
// unless the source has ended.
func (f *Inflater) topUp() {
	if f.srcErr != nil {
		return
	}
	// Keep the eight bytes before ip: the bit buffer may hold them, and
	// Rest hands them back.
	keep := min(f.ip, 8)
	n := copy(f.in[:], f.in[f.ip-keep:f.iend])
	f.ip, f.iend = keep, n
	for f.iend < inBufSize/2 && f.srcErr == nil {
		m, err := f.src.Read(f.in[f.iend:inBufSize])
		f.iend += m
		f.span.read += int64(m)
		if err != nil {
			f.srcErr = err
		}
		if m == 0 && err == nil {
			break
		}
	}
}

// fill brings bitsleft up to n (at most 56) bits, or as far as the input
// goes; it reports whether n bits are there.
func (f *Inflater) fill(n uint) bool {
	if f.bitsleft >= n {
		return true
	}
	if f.iend-f.ip >= 8 {
		// As the fast loop does: whole bytes, up to 56 bits or more.
		f.bitbuf |= binary.LittleEndian.Uint64(f.in[f.ip&inMask:]) << (f.bitsleft & 63)
		f.ip += int(63-f.bitsleft) >> 3
		f.bitsleft |= 56
		return true
	}
	for f.bitsleft < n {
		if f.ip >= f.iend {
			f.topUp()
			if f.ip >= f.iend {
				return false
			}
		}
		f.bitbuf &= 1<<f.bitsleft - 1
		f.bitbuf |= uint64(f.in[f.ip]) << f.bitsleft
		f.ip++
		f.bitsleft += 8
	}
	return true
}

// inputEnded records why bits ran out.
func (f *Inflater) inputEnded() {
	if f.srcErr != nil && f.srcErr != io.EOF {
		f.err = f.srcErr
	} else {
		f.err = io.ErrUnexpectedEOF
	}
}

func (f *Inflater) bits(n uint) (uint32, bool) {
	if !f.fill(n) {
		f.inputEnded()
		return 0, false
	}
	v := uint32(f.bitbuf & (1<<n - 1))
	f.bitbuf >>= n
	f.bitsleft -= n
	return v, true
}

// sym decodes one symbol with table t of rootBits, refilling byte by
// byte, and consumes its code (not its extra bits).
func (f *Inflater) sym(t []uint32, rootBits uint) (uint32, bool) {
	f.fill(maxCodeLen) // may stop short at the end of the input
	e := t[f.bitbuf&(1<<rootBits-1)]
	l := shiftOf(e)
	if e&flagSub != 0 {
		e = t[int(e>>16)+int(f.bitbuf>>rootBits)&(1<<shiftOf(e)-1)]
		l = rootBits + shiftOf(e)
	}
	switch {
	case e&flagInvalid != 0:
		if f.bitsleft >= maxCodeLen {
			f.err = ErrSymbol
		} else {
			f.inputEnded()
		}
		return 0, false
	case l > f.bitsleft:
		f.inputEnded()
		return 0, false
	}
	f.bitbuf >>= l
	f.bitsleft -= l
	return e, true
}

func (f *Inflater) alignToByte() {
	f.bitbuf >>= f.bitsleft % 8
	f.bitsleft -= f.bitsleft % 8
}

// header reads a block header.
func (f *Inflater) header() {
	if f.final {
		f.state = stateEnd
		f.err = io.EOF
		return
	}
	if f.span.stopBit >= 0 && f.atBoundary() {
		return
	}
	final, typ, n, err := readBlockHeader(f)
	if err != nil {
		if err != errNoInput {
			f.err = err
		}
		return
	}
	f.final = final
	switch typ {
	case blockStored:
		f.storedLeft = n
		f.state = stateStored
	case blockFixed:
		t := &fixedTables()[f.mode()]
		f.lit, f.dist = &t.lit, &t.dist
		f.state = stateHuffman
	case blockDynamic:
		if f.dynamic() {
			f.lit, f.dist = &f.tables.lit, &f.tables.dist
			f.state = stateHuffman
		}
	}
}

// stored copies a stored block into the output.
func (f *Inflater) stored() {
	for f.storedLeft > 0 && f.op < f.flushAt {
		if f.bitsleft >= 8 {
			f.out[f.op] = byte(f.bitbuf)
			f.bitbuf >>= 8
			f.bitsleft -= 8
			f.op++
			f.storedLeft--
			continue
		}
		f.bitbuf = 0 // the bytes are taken from the buffer directly
		if f.ip >= f.iend {
			f.topUp()
			if f.ip >= f.iend {
				f.inputEnded()
				return
			}
		}
		n := min(f.storedLeft, f.iend-f.ip, f.flushAt-f.op)
		copy(f.out[f.op:], f.in[f.ip:f.ip+n])
		f.op += n
		f.ip += n
		f.storedLeft -= n
	}
	if f.storedLeft == 0 {
		f.state = stateHeader
	}
}

func (f *Inflater) buildCodeLengthCode(cl []uint8) bool {
	return buildTable(f.tables.clen[:], cl, clenRootBits, clenEntries)
}

func (f *Inflater) codeLengthSym() (uint32, bool) {
	e, ok := f.sym(f.tables.clen[:], clenRootBits)
	return e >> 16, ok
}

// dynamic reads a dynamic block's code lengths and builds its tables.
func (f *Inflater) dynamic() bool {
	if f.iend-f.ip < headerInput {
		f.topUp()
	}
	var nlit, ndist int
	var err error
	switch {
	case f.iend-f.ip >= headerInput:
		nlit, ndist, err = f.fastCodeLengths(&f.lengths)
	case f.srcErr != nil:
		// The rest of the input is short: read it over zero padding,
		// then check that only input was consumed.
		f.padInput(headerInput)
		nlit, ndist, err = f.fastCodeLengths(&f.lengths)
		if f.consumedPastEnd() {
			f.inputEnded()
			err = errNoInput
		} else {
			f.unpad()
		}
	default:
		nlit, ndist, err = readCodeLengths(f, &f.lengths, f.d64)
	}
	if err == nil {
		m := f.mode()
		if !buildTable(f.tables.lit[:], f.lengths.all[:nlit], litRootBits, symEntries[m][0]) ||
			!buildTable(f.tables.dist[:], f.lengths.all[nlit:nlit+ndist], distRootBits, symEntries[m][1]) {
			err = ErrCodeLengths
		}
	}
	if err == ErrCodeLengths {
		f.err = err
	}
	return err == nil
}
