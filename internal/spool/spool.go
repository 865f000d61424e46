// Package spool holds data that must be kept whole before it can be used
// (a 7z archive read from a pipe, whose index is at its end; an entry of
// unknown size that a tar header must precede) in a temporary file under
// $TMPDIR, bounded: by a byte limit (--max-size) and by the free space of
// the file system, so that a hostile or endless input stops with a named
// limit error (archive.ErrLimit, exit 5) instead of filling the disk.
//
// # Security concerns
//
// Without a byte limit the bound is the free space: the spool stops when
// writing more would leave less than Reserve (5% of the file system, at
// least 64 MiB) free. Where the free space cannot be read (not Linux,
// macOS, FreeBSD or Windows), a full disk still ends the spool with the
// same limit error when a write fails for lack of space.
package spool

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/unpack-dev/unpack/internal/archive"
)

// checkEvery is how many bytes may be written between two looks at the
// free space: a look costs a system call, and the reserve is far larger.
const checkEvery = 8 << 20

// minReserve is the least free space a spool leaves on its file system.
const minReserve = 64 << 20

// Reserve is the free space a spool leaves on a file system of total
// bytes: 5% of it, at least 64 MiB.
func Reserve(total uint64) uint64 { return max(total/20, minReserve) }

// freeSpace returns the bytes available to this process and the size of
// the file system holding dir; ok is false when they cannot be read.
// Tests replace it.
var freeSpace = diskSpace

// File is a spool being filled, then read. Its file is removed from the
// directory at once where the system allows (so that nothing is left after
// a crash), else when it is closed.
type File struct {
	f         *os.File
	dir       string
	max       int64 // 0: no byte limit
	n         int64 // bytes written
	unchecked int64 // bytes written since the last look at the free space
	removed   bool
}

// Create makes an empty spool in the default directory for temporary
// files, bounded to max bytes (0: only by the free space).
func Create(max int64) (*File, error) {
	f, err := os.CreateTemp("", "unpack-spool-*")
	if err != nil {
		return nil, err
	}
	s := &File{f: f, dir: filepath.Dir(f.Name()), max: max, unchecked: checkEvery}
	s.removed = os.Remove(f.Name()) == nil // not on Windows while open
	return s, nil
}

// What stopped a spool; the error errors.Is one of these and
// archive.ErrLimit.
var (
	ErrMaxSize  = errors.New("--max-size") // the byte limit it was given
	ErrLowSpace = errors.New("the file system is low on space")
)

// Write appends p, or fails with an archive.ErrLimit error, writing
// nothing, when p would pass the byte limit or the free-space reserve.
func (s *File) Write(p []byte) (int, error) {
	if s.max > 0 && s.n+int64(len(p)) > s.max {
		return 0, archive.Limitf("spooling to %s: more than %s (%w)", s.dir, archive.SizeText(s.max), ErrMaxSize)
	}
	if s.unchecked+int64(len(p)) > checkEvery {
		// Until the next look, p and up to checkEvery more bytes go in.
		if free, total, ok := freeSpace(s.dir); ok && free < uint64(len(p))+checkEvery+Reserve(total) {
			return 0, archive.Limitf("spooling to %s: %w: only %s free there, %s of it kept free (set TMPDIR to a larger file system, or --max-size)",
				s.dir, ErrLowSpace, archive.SizeText(int64(free)), archive.SizeText(int64(Reserve(total))))
		}
		s.unchecked = 0
	}
	n, err := s.f.Write(p)
	s.n += int64(n)
	s.unchecked += int64(n)
	if err != nil && noSpace(err) {
		return n, archive.Limitf("spooling to %s: %w: it is full (set TMPDIR to a larger file system)", s.dir, ErrLowSpace)
	}
	return n, err
}

// ReadFrom fills the spool from r to its end, through Write's checks.
func (s *File) ReadFrom(r io.Reader) (int64, error) {
	return io.CopyBuffer(onlyWriter{s}, r, make([]byte, 256<<10))
}

type onlyWriter struct{ io.Writer }

// Size is the number of bytes written.
func (s *File) Size() int64 { return s.n }

// ReadAt reads what was written.
func (s *File) ReadAt(p []byte, off int64) (int, error) { return s.f.ReadAt(p, off) }

// Reader returns a reader of everything written, from the start.
func (s *File) Reader() io.Reader { return io.NewSectionReader(s.f, 0, s.n) }

// Close releases the file and removes it.
func (s *File) Close() error {
	err := s.f.Close()
	if !s.removed {
		os.Remove(s.f.Name())
	}
	return err
}

// RandomAccess returns random access to the whole of in: in.RA itself, or,
// for a pipe, a spool of the rest of in.R bounded by opt.SpoolLimit and
// the free space, which the caller closes (the io.Closer is nil when
// nothing was spooled).
func RandomAccess(in *archive.Input, opt *archive.Options) (io.ReaderAt, int64, io.Closer, error) {
	if in.RA != nil {
		return in.RA, in.Size, nil, nil
	}
	var max int64
	if opt != nil {
		max = opt.SpoolLimit
	}
	tmp, err := Create(max)
	if err != nil {
		return nil, 0, nil, err
	}
	n, err := tmp.ReadFrom(in.R)
	if err != nil {
		tmp.Close()
		return nil, 0, nil, err
	}
	return tmp, n, tmp, nil
}
