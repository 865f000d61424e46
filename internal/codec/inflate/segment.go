package inflate

import (
	"io"
	"unsafe"
)

// Positioned decoding: an Inflater can start at any block boundary of a
// deflate stream, given the bits that precede it in its source's first
// byte and the window of output before it, and stop at the first block
// boundary at or past a bit position or an amount of output. A decoder of
// one stream in pieces (gzip's parallel reader) uses it to decode a piece
// whose start it knows, and to take over from a sequential decode.

// span is the state of positioned decoding.
type span struct {
	read     int64 // bytes read from the source
	slid     int64 // output bytes moved out of the buffer by sliding
	base     int   // op after the preset window: output starts here
	stopBit  int64 // stop at the first block boundary at or past this bit; -1: never
	stopOut  int64 // or once this much output has been produced
	stopped  bool  // Read's io.EOF is a stop, not the end of the stream
	boundBit int64 // the last block boundary reached: its bit position
	boundOut int64 // and the output produced before it
}

// ResetAt makes f decode from r, whose first byte holds the stream's next
// bit at bit skip (0-7), the start of a block; window is the output that
// precedes it (at most f's window size is kept). Read gives out only the
// new output, and ends with io.EOF at the end of the stream or, when
// stopBit is not negative, at the first block boundary at or past bit
// stopBit of r or past stopOut bytes of output; Stopped tells which.
func (f *Inflater) ResetAt(r io.Reader, skip uint, window []byte, stopBit, stopOut int64) {
	f.Reset(r)
	if len(window) > f.win {
		window = window[len(window)-f.win:]
	}
	f.op = copy(f.out[:], window)
	f.rp = f.op
	f.span = span{stopBit: stopBit, stopOut: stopOut, base: f.op}
	if skip > 0 {
		f.bits(skip & 7)
	}
	f.span.boundBit = f.BitPos()
}

// BitPos is the number of bits of the source consumed.
func (f *Inflater) BitPos() int64 {
	return (f.span.read-int64(f.iend-f.ip))*8 - int64(f.bitsleft)
}

// produced is the output since the reset, whether given out or not.
func (f *Inflater) produced() int64 {
	return f.span.slid + int64(f.op-f.span.base)
}

// atBoundary records the block boundary f is at, and stops there if the
// stop position or output is reached.
func (f *Inflater) atBoundary() bool {
	pos, out := f.BitPos(), f.produced()
	f.span.boundBit, f.span.boundOut = pos, out
	if pos >= f.span.stopBit || out >= f.span.stopOut {
		f.span.stopped = true
		f.state = stateEnd
		f.err = io.EOF
		return true
	}
	return false
}

// Stopped reports whether Read's io.EOF was a stop at a block boundary
// (see ResetAt) rather than the end of the stream.
func (f *Inflater) Stopped() bool { return f.span.stopped }

// LastBoundary reports the last block boundary f reached since ResetAt
// with a stop position: its bit position in the source, and how much
// output preceded it, all of it given out by Read. That is where f is
// when a block other than the final one has just ended and Read gave out
// its output.
func (f *Inflater) LastBoundary() (bit, out int64) {
	if f.span.stopBit >= 0 && f.state == stateHeader && !f.final && f.rp == f.op {
		return f.BitPos(), f.produced()
	}
	return f.span.boundBit, f.span.boundOut
}

// Window returns the last output, at most 32 KiB (the window of
// deflate), including the preset window while the new output is shorter.
// It is valid until the next Read or Reset.
func (f *Inflater) Window() []byte {
	return f.out[max(0, f.op-32<<10):f.op]
}

// Unread returns the input f read ahead of the bits it consumed, from the
// byte holding the next bit, and how many bits of that byte are consumed.
// It is valid until the next Read or Reset.
func (f *Inflater) Unread() ([]byte, uint) {
	next := f.ip*8 - int(f.bitsleft)
	return f.in[next/8 : f.iend], uint(next % 8)
}

// InflaterMem is the memory NewInflaterIn takes: an Inflater's buffers
// and tables.
const InflaterMem = int(unsafe.Sizeof(dynTables{}) + unsafe.Sizeof(outBuf{}) + unsafe.Sizeof(inBuf{}))

// NewInflaterIn is NewInflater for deflate (not Deflate64) with its
// buffers and tables in mem, InflaterMem bytes from an 8-byte aligned
// start: memory a caller allocates with its other buffers at once (on
// huge pages, where a first touch costs no page fault per 4 KiB). Other
// memory is allocated as NewInflater does.
func NewInflaterIn(r io.Reader, mem []byte) *Inflater {
	if len(mem) < InflaterMem || uintptr(unsafe.Pointer(unsafe.SliceData(mem)))%8 != 0 {
		return NewInflater(r, false)
	}
	p := unsafe.Pointer(unsafe.SliceData(mem))
	tables := (*dynTables)(p)
	out := (*outBuf)(unsafe.Add(p, unsafe.Sizeof(dynTables{})))
	in := (*inBuf)(unsafe.Add(p, unsafe.Sizeof(dynTables{})+unsafe.Sizeof(outBuf{})))
	return newInflater(r, false, in, out, tables)
}
