package extract

import (
	"io"
	"math"

	"github.com/unpack-dev/unpack/internal/archive"
)

// sparseWriter writes a sparse entry's expanded bytes, leaving holes where
// whole 4 KiB blocks are zero (seeking over them) and truncating to the
// final size, so the file takes only the space of its data. It is an
// archive.HoleWriter: a hole the reader knows of is one seek, whatever its
// size.
type sparseWriter struct {
	f interface {
		io.WriteSeeker
		Truncate(int64) error
	}
	off int64
}

const holeBlock = 4096

func (s *sparseWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := holeBlock - int(s.off%holeBlock)
		if k > len(p) {
			k = len(p)
		}
		chunk := p[:k]
		if allZero(chunk) {
			if _, err := s.f.Seek(int64(k), io.SeekCurrent); err != nil {
				return 0, err
			}
		} else if _, err := s.f.Write(chunk); err != nil {
			return 0, err
		}
		s.off += int64(k)
		p = p[k:]
	}
	return n, nil
}

// WriteHole seeks past n zero bytes; finish gives the file its size when
// the entry ends in a hole.
func (s *sparseWriter) WriteHole(n int64) error {
	if n < 0 || n > math.MaxInt64-s.off {
		return archive.Corruptf("a sparse file's hole of %d bytes at %d is beyond the largest file size", n, s.off)
	}
	if _, err := s.f.Seek(n, io.SeekCurrent); err != nil {
		return err
	}
	s.off += n
	return nil
}

func (s *sparseWriter) finish() error { return s.f.Truncate(s.off) }

func allZero(b []byte) bool {
	for len(b) >= 8 {
		if b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7] != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
