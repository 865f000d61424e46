package deflate64

import (
	"encoding/binary"
	"io"
)

// Inflater decodes deflate (RFC 1951) or Deflate64 from a source it reads
// ahead of the decoder in large chunks, so it may consume bytes past the end
// of the compressed stream: use it when the caller bounds the source (a zip
// entry of known compressed size). Its inner loop works on byte slices with
// a 64-bit bit buffer refilled eight bytes at a time and copies matches
// eight bytes at a time.
//
// Reader, by contrast, reads one byte at a time and never past the stream.
type Inflater struct {
	src    io.Reader
	srcErr error
	in     []byte
	ip     int
	iend   int

	bitbuf   uint64 // bits above bitsleft are zero or the next input bits
	bitsleft uint

	d64        bool
	err        error
	state      int
	final      bool
	storedLeft int

	lit, dist      *table
	dynLit, dynDis table
	clen           table
	lengths        codeLengths

	out     []byte // window, then output, then slack for one match
	win     int
	flushAt int
	op      int
	rp      int
}

const (
	inBufSize = 32 << 10
	outChunk  = 128 << 10
)

var fixed = func() (t [2][2]table) {
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
		t[m][0].build(l[:], litPrimary, symEntries[m][0])
		t[m][1].build(d[:], distPrimary, symEntries[m][1])
	}
	return t
}()

// NewInflater returns an Inflater of deflate (d64 false) or Deflate64
// reading from r.
func NewInflater(r io.Reader, d64 bool) *Inflater {
	f := &Inflater{d64: d64, in: make([]byte, inBufSize)}
	f.win = 32 << 10
	maxMatch := 258
	if d64 {
		f.win, maxMatch = windowSize, 3+0xffff
	}
	f.flushAt = f.win + outChunk
	f.out = make([]byte, f.flushAt+maxMatch+16)
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
			copy(f.out, f.out[f.op-f.win:f.op])
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
	n := copy(f.in, f.in[f.ip-keep:f.iend])
	f.ip, f.iend = keep, n
	for f.iend < len(f.in)/2 && f.srcErr == nil {
		m, err := f.src.Read(f.in[f.iend:])
		f.iend += m
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

// sym decodes one symbol with t, one table lookup at a time.
func (f *Inflater) sym(t *table) (uint32, bool) {
	f.fill(maxCodeLen) // may stop short at the end of the input
	e := t.prim[f.bitbuf&(1<<t.primary-1)&(1<<litPrimary-1)]
	if e>>10&7 == kindLink {
		e = t.links[e>>16+uint32(f.bitbuf>>t.primary)&(1<<(e&31)-1)]
	}
	l := uint(e & 31)
	switch {
	case e>>10&7 == kindInvalid:
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
		f.lit, f.dist = &fixed[f.mode()][0], &fixed[f.mode()][1]
		f.state = stateHuffman
	case blockDynamic:
		if f.dynamic() {
			f.lit, f.dist = &f.dynLit, &f.dynDis
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

func (f *Inflater) buildCodeLengthCode(cl []uint8) bool { return f.clen.build(cl, 7, clenEntries) }

func (f *Inflater) codeLengthSym() (uint32, bool) {
	e, ok := f.sym(&f.clen)
	return e >> 16, ok
}

// dynamic reads a dynamic block's code lengths and builds its tables.
func (f *Inflater) dynamic() bool {
	nlit, ndist, err := readCodeLengths(f, &f.lengths, f.d64)
	if err == nil {
		m := f.mode()
		if !f.dynLit.build(f.lengths.all[:nlit], litPrimary, symEntries[m][0]) ||
			!f.dynDis.build(f.lengths.all[nlit:nlit+ndist], distPrimary, symEntries[m][1]) {
			err = ErrCodeLengths
		}
	}
	if err == ErrCodeLengths {
		f.err = err
	}
	return err == nil
}

// huffman decodes a compressed block until it ends or the output chunk is
// full: the fast loop while eight-byte loads stay inside the input buffer,
// symbol by symbol near its end.
func (f *Inflater) huffman() {
	for f.op < f.flushAt && f.err == nil && f.state == stateHuffman {
		if f.iend-f.ip < 32 {
			f.topUp()
		}
		if f.iend-f.ip >= 32 {
			f.fast()
		} else {
			f.slow()
		}
	}
}

// match copies length bytes from dist back; the caller checked dist and
// that the output has room for length plus 8 bytes.
func match(out []byte, op, dist, length int) {
	src := op - dist
	switch {
	case dist >= length && length > 32:
		copy(out[op:op+length], out[src:src+length])
	case dist >= 8:
		for i := 0; i < length; i += 8 {
			binary.LittleEndian.PutUint64(out[op+i:], binary.LittleEndian.Uint64(out[src+i:]))
		}
	default:
		// A short period: lay it down once, then double it.
		s := out[op : op+length]
		k := copy(s[:min(dist, length)], out[src:op])
		for k < length {
			k += copy(s[k:], s[:k])
		}
	}
}

// fast is the inner loop. Entering it, the input holds at least 32 bytes:
// one pass reads at most three 8-byte loads.
func (f *Inflater) fast() {
	in, out := f.in, f.out
	ip, iend, op, flushAt := f.ip, f.iend, f.op, f.flushAt
	bitbuf, bitsleft := f.bitbuf, f.bitsleft
	lit, dist := f.lit, f.dist
	lp, dp := &lit.prim, &dist.prim
	const lmask, dmask = 1<<litPrimary - 1, 1<<distPrimary - 1
	le := lit.links
	for op < flushAt && iend-ip >= 32 {
		bitbuf |= binary.LittleEndian.Uint64(in[ip:]) << bitsleft
		ip += int(63-bitsleft) >> 3
		bitsleft |= 56

		e := lp[bitbuf&lmask]
		if e>>10&7 == kindLink {
			e = le[e>>16+uint32(bitbuf>>litPrimary)&(1<<(e&31)-1)]
		}
		n := uint(e & 31)
		bitbuf >>= n
		bitsleft -= n
		if e>>10&7 == kindLiteral {
			// Up to two more literals fit in the bits already loaded
			// (each code is at most 15 bits).
			out[op] = byte(e >> 16)
			op++
			e = lp[bitbuf&lmask]
			if e>>10&7 == kindLink {
				e = le[e>>16+uint32(bitbuf>>litPrimary)&(1<<(e&31)-1)]
			}
			n = uint(e & 31)
			bitbuf >>= n
			bitsleft -= n
			if e>>10&7 == kindLiteral {
				out[op] = byte(e >> 16)
				op++
				e = lp[bitbuf&lmask]
				if e>>10&7 == kindLink {
					e = le[e>>16+uint32(bitbuf>>litPrimary)&(1<<(e&31)-1)]
				}
				n = uint(e & 31)
				bitbuf >>= n
				bitsleft -= n
				if e>>10&7 == kindLiteral {
					out[op] = byte(e >> 16)
					op++
					continue
				}
			}
			// A length or the end follows: reload for its extra bits.
			bitbuf |= binary.LittleEndian.Uint64(in[ip:]) << bitsleft
			ip += int(63-bitsleft) >> 3
			bitsleft |= 56
		}
		switch e >> 10 & 7 {
		case kindLength:
		case kindEnd:
			f.state = stateHeader
			f.ip, f.op, f.bitbuf, f.bitsleft = ip, op, bitbuf, bitsleft
			return
		default:
			f.err = ErrSymbol
			f.ip, f.op, f.bitbuf, f.bitsleft = ip, op, bitbuf, bitsleft
			return
		}
		extra := uint(e >> 5 & 31)
		length := int(e>>16) + int(bitbuf&(1<<extra-1))
		bitbuf >>= extra
		bitsleft -= extra

		bitbuf |= binary.LittleEndian.Uint64(in[ip:]) << bitsleft
		ip += int(63-bitsleft) >> 3
		bitsleft |= 56
		e = dp[bitbuf&dmask]
		if e>>10&7 == kindLink {
			e = dist.links[e>>16+uint32(bitbuf>>distPrimary)&(1<<(e&31)-1)]
		}
		if e>>10&7 != kindLength {
			f.err = ErrSymbol
			f.ip, f.op, f.bitbuf, f.bitsleft = ip, op, bitbuf, bitsleft
			return
		}
		n = uint(e & 31)
		bitbuf >>= n
		bitsleft -= n
		extra = uint(e >> 5 & 31)
		d := int(e>>16) + int(bitbuf&(1<<extra-1))
		bitbuf >>= extra
		bitsleft -= extra
		if d > op {
			f.err = ErrDistance
			f.ip, f.op, f.bitbuf, f.bitsleft = ip, op, bitbuf, bitsleft
			return
		}
		if d >= 8 && length <= 32 {
			// Two words unconditionally (most matches are short), then
			// the rest; out has slack past flushAt for the overshoot.
			src := out[op-d : op-d+32]
			dst := out[op : op+32]
			binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
			binary.LittleEndian.PutUint64(dst[8:], binary.LittleEndian.Uint64(src[8:]))
			if length > 16 {
				binary.LittleEndian.PutUint64(dst[16:], binary.LittleEndian.Uint64(src[16:]))
				binary.LittleEndian.PutUint64(dst[24:], binary.LittleEndian.Uint64(src[24:]))
			}
		} else {
			match(out, op, d, length)
		}
		op += length
	}
	f.ip, f.op, f.bitbuf, f.bitsleft = ip, op, bitbuf, bitsleft
}

// slow decodes one symbol (and its match) with bounds-checked refills.
func (f *Inflater) slow() {
	e, ok := f.sym(f.lit)
	if !ok {
		return
	}
	switch e >> 10 & 7 {
	case kindLiteral:
		f.out[f.op] = byte(e >> 16)
		f.op++
		return
	case kindLength:
	case kindEnd:
		f.state = stateHeader
		return
	default:
		f.err = ErrSymbol
		return
	}
	v, ok := f.bits(uint(e >> 5 & 31))
	if !ok {
		return
	}
	length := int(e>>16) + int(v)
	e, ok = f.sym(f.dist)
	if !ok {
		return
	}
	if e>>10&7 != kindLength {
		f.err = ErrSymbol
		return
	}
	v, ok = f.bits(uint(e >> 5 & 31))
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
