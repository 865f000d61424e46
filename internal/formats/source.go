package formats

import (
	"io"
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

func ioError(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return &archive.IOError{Stage: "source", Err: err}
}

// Consumed is how many bytes of the archive were read so far.
func (s *source) Consumed() int64 { return s.n.Load() }
