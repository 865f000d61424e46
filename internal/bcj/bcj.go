// Package bcj holds the branch/call/jump converters of xz and 7-Zip (x86,
// ARM, ARM-Thumb, ARM64, PowerPC, SPARC, IA-64, RISC-V) and the delta
// filter, as decoders that work in place on byte buffers, plus one streaming
// Reader that applies a Converter to a stream.
//
// The transforms are those of the .xz file format specification 1.2.1
// (section 5.3.2 "Branch/Call/Jump Converters" and 5.3.1 "Delta") as
// implemented by XZ Utils' liblzma; 7-Zip's BCJ, ARM, ARMT, ARM64, PPC,
// SPARC, IA64 and RISCV coders are the same transforms.
package bcj

import (
	"errors"
	"io"
	"sync"
)

// Converter decodes a filtered stream in place, keeping its position (and
// for x86 and delta some history) from call to call.
//
// Convert decodes a prefix of buf and returns its length. The bytes after it
// (at most MaxTail) could not be decoded yet because an instruction may
// continue past the end of buf: the caller must pass them again at the start
// of the next call, followed by more data. At the end of the stream the
// undecoded tail is passed on unchanged, as xz and 7-Zip do. The result of
// decoding does not depend on how the stream is split into calls.
type Converter interface {
	Convert(buf []byte) int
}

// MaxTail is the most bytes any Converter leaves undecoded at the end of a
// buffer (IA-64 works on 16-byte bundles).
const MaxTail = 15

// ErrClosed is returned by Read after Close.
var ErrClosed = errors.New("bcj: read after close")

// bufSize is the Reader's buffer size: large enough that the tail a
// converter leaves is small beside it.
const bufSize = 32 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

// maxEmptyReads bounds how often the source may return 0, nil in a row.
const maxEmptyReads = 100

// Reader applies a Converter to the bytes read from a source. It keeps the
// undecoded tail between reads and passes it on unchanged at the source's
// io.EOF. Its buffer comes from a pool and goes back on Close.
type Reader struct {
	r    io.Reader
	conv Converter
	buf  *[]byte
	cs   int   // start of decoded, undelivered bytes
	ce   int   // end of decoded bytes; buf[ce:end] is the undecoded tail
	end  int   // end of buffered bytes
	err  error // sticky error of the source (io.EOF included)
}

// NewReader returns a Reader that decodes r's bytes with conv.
func NewReader(r io.Reader, conv Converter) *Reader {
	br := &Reader{}
	br.Reset(r, conv)
	return br
}

// Reset makes br decode a new stream, reusing its buffer (or taking one from
// the pool after Close).
func (br *Reader) Reset(r io.Reader, conv Converter) {
	if br.buf == nil {
		br.buf = bufPool.Get().(*[]byte)
	}
	br.r, br.conv = r, conv
	br.cs, br.ce, br.end, br.err = 0, 0, 0, nil
}

// Read implements io.Reader.
func (br *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		if br.buf == nil {
			return 0, ErrClosed
		}
		return 0, nil
	}
	b, err := br.Next()
	n := copy(p, b)
	br.cs -= len(b) - n // what did not fit stays for the next call
	return n, err
}

// Next returns the next decoded bytes straight from the Reader's buffer
// (up to its 32 KiB) instead of copying them as Read does. They stay valid
// until the next call to Next, Read, Reset or Close. A non-nil error comes
// with no bytes; io.EOF marks the end.
func (br *Reader) Next() ([]byte, error) {
	if br.buf == nil {
		return nil, ErrClosed
	}
	buf := *br.buf
	empty := 0
	for br.cs == br.ce {
		if br.err != nil {
			if br.err == io.EOF && br.ce < br.end {
				br.ce = br.end // the undecodable tail passes unchanged
				break
			}
			return nil, br.err
		}
		// Move the undecoded tail to the front and read more after it.
		br.end = copy(buf, buf[br.ce:br.end])
		br.cs, br.ce = 0, 0
		n, err := br.r.Read(buf[br.end:])
		br.end += n
		if err != nil {
			br.err = err
		} else if n == 0 {
			if empty++; empty >= maxEmptyReads {
				br.err = io.ErrNoProgress
			}
			continue
		}
		br.ce = br.conv.Convert(buf[:br.end])
	}
	b := buf[br.cs:br.ce]
	br.cs = br.ce
	return b, nil
}

// Close returns the Reader's buffer to the pool; the source is not closed.
func (br *Reader) Close() error {
	if br.buf != nil {
		bufPool.Put(br.buf)
		br.buf = nil
	}
	br.r, br.conv = nil, nil
	return nil
}
