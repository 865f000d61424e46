package formats

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/unpack-dev/unpack/internal/archive"
)

// source counts the bytes read from the archive file (for progress) and
// remembers a read error, so that an I/O failure is never reported as
// corrupt data.
type source struct {
	r   io.Reader
	ra  io.ReaderAt
	n   atomic.Int64
	err error
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n.Add(int64(n))
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

func (s *source) ReadAt(p []byte, off int64) (int, error) {
	n, err := s.ra.ReadAt(p, off)
	s.n.Add(int64(n))
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// Consumed is how many bytes of the archive were read so far.
func (s *source) Consumed() int64 { return s.n.Load() }

// classify turns an error from a third-party stream decoder into one of the
// archive categories. Errors that came from reading the file pass through
// unchanged (they are I/O errors), as do already categorised ones.
func (s *source) classify(name string, err error) error {
	switch {
	case err == nil || err == io.EOF:
		return err
	case s.err != nil && errors.Is(err, s.err):
		return err
	case archive.Categorized(err):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return archive.Corruptf("%s: unexpected end of data (truncated)", name)
	}
	msg := err.Error()
	low := strings.ToLower(msg)
	prefix := name + ": "
	if strings.HasPrefix(low, name+":") {
		prefix = ""
	}
	switch {
	case strings.Contains(low, "checksum") || strings.Contains(low, "crc"):
		return archive.Errorf(archive.ErrChecksum, "%s%s", prefix, msg)
	case strings.Contains(low, "window size exceeded") || strings.Contains(low, "memory limit") ||
		strings.Contains(low, "exceeds configured limit"):
		return archive.Errorf(archive.ErrLimit, "%s%s", prefix, msg)
	}
	return archive.Corruptf("%s%s", prefix, msg)
}

// classifyingReader applies classify to every error of r, and at its end
// reports trailing data the decoder passed over.
type classifyingReader struct {
	r    io.Reader
	src  *source
	name string
	w    sinkWriter // the sink's writer during WriteTo
	warn func(string)
}

func (c *classifyingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		c.ended()
	} else if err != nil {
		err = c.src.classify(c.name, err)
	}
	return n, err
}

// trailer is a stream decoder that ends at bytes after its last member or
// frame that are none, as gzip(1) and bzip2(1) do (with a warning).
type trailer interface {
	Trailing() (offset, size int64)
}

// ended reports, once, trailing data the decoder ended at.
func (c *classifyingReader) ended() {
	t, ok := c.r.(trailer)
	if !ok || c.warn == nil {
		return
	}
	if off, n := t.Trailing(); n > 0 {
		c.warn(fmt.Sprintf("%s: %d bytes of trailing data at offset %d ignored", c.name, n, off))
		c.warn = nil
	}
}
