package formats

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/unpack-dev/unpack/internal/archive"
)

// source counts the bytes read from the archive file (for progress) and
// marks a read error as an archive.IOError, so that an I/O failure is never
// reported as corrupt data by a decoder above.
type source struct {
	r  io.Reader
	ra io.ReaderAt
	n  atomic.Int64
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n.Add(int64(n))
	return n, ioError(err)
}

func (s *source) ReadAt(p []byte, off int64) (int, error) {
	n, err := s.ra.ReadAt(p, off)
	s.n.Add(int64(n))
	return n, ioError(err)
}

// SendRange writes the n bytes at off to w: through w.WriteRange when the
// input is one open file, else through a buffer. They count as read before
// w counts them as output, so that --max-ratio never sees output ahead of
// its input.
func (s *source) SendRange(w archive.RangeWriter, off, n int64) (int64, error) {
	s.n.Add(n)
	var k int64
	var err error
	if f, ok := s.ra.(*os.File); ok {
		k, err = w.WriteRange(f, off, n)
	} else {
		k, err = archive.CopyRange(w, s.ra, off, n)
	}
	s.n.Add(k - n)
	return k, err
}

func ioError(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return &archive.IOError{Stage: "source", Err: err}
}

// Consumed is how many bytes of the archive were read so far.
func (s *source) Consumed() int64 { return s.n.Load() }

// trailer is a stream decoder that ends at bytes after its last member or
// frame that are none, as gzip(1) and bzip2(1) do (with a warning).
type trailer interface {
	Trailing() (offset, size int64)
}

// trailing returns what reports, at the decoder d's end, the trailing data
// it ended at, or nil when d never does.
func trailing(d io.Reader, name string, opt *archive.Options) func() {
	t, ok := d.(trailer)
	if !ok {
		return nil
	}
	return func() {
		if off, n := t.Trailing(); n > 0 {
			opt.Tolerate(archive.WarnTrailingData, fmt.Sprintf("%s: %d bytes of trailing data at offset %d ignored", name, n, off))
		}
	}
}
