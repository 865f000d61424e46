package formats

import (
	"errors"
	"io"
	"sync"
)

// The output path of a single stream. A decoder that is an io.WriterTo
// (lz4, zstd) hands its decoded blocks to the sink's writer straight from
// its own buffers; every wrapper between the decoder and the sink
// (classifyingReader, singleReader, Archive) passes WriteTo on, so that no
// wrapper hides it and no copy buffer sits in between. A decoder without
// WriteTo is copied through one pooled buffer.

// copySize is the buffer of the copy for decoders without WriteTo: large
// writes, while small enough to stay in the cache between the decoder's
// copy into it and the write out of it.
const copySize = 256 << 10

var copyPool = sync.Pool{New: func() any { b := make([]byte, copySize); return &b }}

// onlyReader hides any WriteTo of the reader it holds, so that io.CopyBuffer
// reads through the given buffer instead of calling back into WriteTo.
type onlyReader struct{ io.Reader }

// writeTo writes r's data to w: through r's WriteTo when it has one, else
// through a pooled buffer.
func writeTo(w io.Writer, r io.Reader) (int64, error) {
	if wt, ok := r.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	bp := copyPool.Get().(*[]byte)
	defer copyPool.Put(bp)
	return io.CopyBuffer(w, onlyReader{r}, *bp)
}

// WriteTo writes the current entry's data to w, as io.Copy would from
// Read, verifying it the same way; a single stream's decoder writes
// straight from its own buffers when it can.
func (a *Archive) WriteTo(w io.Writer) (int64, error) { return writeTo(w, a.Reader) }

// WriteTo writes the stream's decompressed bytes to w.
func (s *singleReader) WriteTo(w io.Writer) (int64, error) { return writeTo(w, s.r) }

// WriteTo writes the decoder's output to w, through the decoder's own
// WriteTo when it has one. Decoder errors are classified as Read's are;
// an error of w (a full disk, a closed pipe) passes through unchanged.
func (c *classifyingReader) WriteTo(w io.Writer) (int64, error) {
	wt, ok := c.r.(io.WriterTo)
	if !ok {
		bp := copyPool.Get().(*[]byte)
		defer copyPool.Put(bp)
		return io.CopyBuffer(w, onlyReader{c}, *bp)
	}
	c.w = sinkWriter{w: w}
	n, err := wt.WriteTo(&c.w)
	if err != nil && (c.w.err == nil || !errors.Is(err, c.w.err)) {
		err = c.src.classify(c.name, err)
	}
	if err == nil {
		c.ended()
	}
	c.w = sinkWriter{}
	return n, err
}

// sinkWriter remembers the error of the writer it wraps, so that it is not
// taken for a decoder error.
type sinkWriter struct {
	w   io.Writer
	err error
}

func (s *sinkWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}
