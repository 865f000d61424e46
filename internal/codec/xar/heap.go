package xar

import (
	"bufio"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// heap gives the bytes of extents of the heap: at any offset from a
// seekable input, or from a pipe in increasing order only.
type heap struct {
	ra   io.ReaderAt // nil: a pipe, read through r
	base int64       // where the heap starts in the input
	size int64       // the input's size, -1 when unknown
	r    *bufio.Reader
	pos  int64         // a pipe's position in the heap
	buf  *bufio.Reader // reused over the extents of a seekable input
}

// errOrder: a pipe holds an extent behind the current position.
var errOrder = archive.Unsupportedf("xar: data stored out of order (or shared between files) cannot be read from a pipe; read the archive from a file")

// open returns the n bytes at heap offset off; reading past the input's
// end gives ErrTruncated. One extent is read at a time.
func (h *heap) open(off, n int64) (io.Reader, error) {
	if h.ra != nil {
		if h.size >= 0 && (off > h.size-h.base || n > h.size-h.base-off) {
			return nil, ErrTruncated
		}
		sec := io.NewSectionReader(h.ra, h.base+off, n)
		if h.buf == nil {
			h.buf = bufio.NewReaderSize(sec, 64<<10)
		} else {
			h.buf.Reset(sec)
		}
		return &section{r: h.buf, left: n}, nil
	}
	if off < h.pos {
		return nil, errOrder
	}
	if skip := off - h.pos; skip > 0 {
		m, err := io.CopyN(io.Discard, h.r, skip)
		h.pos += m
		if err != nil {
			return nil, truncated(err)
		}
	}
	return &section{r: h.r, left: n, pos: &h.pos}, nil
}

// section reads an extent: exactly left bytes, or ErrTruncated.
type section struct {
	r    io.Reader
	left int64
	pos  *int64 // a pipe's heap position, advanced by what is read
}

func (s *section) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	if s.pos != nil {
		*s.pos += int64(n)
	}
	if err == io.EOF {
		if s.left > 0 {
			return n, ErrTruncated
		}
		err = nil
	}
	return n, err
}
