// Package extract holds the sinks entries are written to: a directory
// confined with os.Root, standard output, and nothing (verify). A sink
// commits a file only after its data, read to the end, passed its checksum.
package extract

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/kcopy"
)

// Sink receives entries. Put consumes the entry's data from r to its end;
// the reader verifies the checksum at EOF, so an error from r means the
// entry failed and nothing of it may be left looking whole.
type Sink interface {
	Put(e *archive.Entry, r io.Reader) error
	// Settle commits (err nil) or discards (err set: removed, or kept as
	// NAME.broken with KeepBroken) an entry that Put kept uncommitted
	// because it was Pending; for an entry not held it does nothing. The
	// result is err, or what went wrong committing.
	Settle(e *archive.Entry, err error) error
	// Close finishes pending work (directory times) and releases resources.
	Close() error
}

// ErrInsecurePath is returned for an entry whose name or link target would
// leave the destination. It is an archive.ErrRefused.
var ErrInsecurePath = archive.Errorf(archive.ErrRefused, "insecure path")

// ErrExists is returned when an entry would replace an existing file and
// neither overwriting nor skipping was asked for.
var ErrExists = errors.New("already exists (use --overwrite or --skip-existing)")

// ErrSkipped reports an entry that was deliberately not written (an
// existing file with --skip-existing, a device node). It is a warning.
var ErrSkipped = errors.New("skipped")

// Discard is the verify sink: it reads every byte (so every check runs)
// and writes nothing.
type Discard struct{}

// Put reads the entry's data to its end; the holes of a sparse entry pass
// as counts, without their zeros (nothing to hash).
func (Discard) Put(e *archive.Entry, r io.Reader) error {
	if e.Type != archive.TypeFile {
		return nil
	}
	_, err := archive.Copy(discardHoles{}, r)
	return err
}

// discardHoles is io.Discard as an archive.HoleWriter.
type discardHoles struct{}

func (discardHoles) Write(p []byte) (int, error) { return len(p), nil }
func (discardHoles) WriteHole(int64) error       { return nil }

// WriteRange has the kernel read a stored range into /dev/null: every
// byte is read from the image (a read error or a short image fails as it
// would through a buffer) without a copy into the process.
func (discardHoles) WriteRange(f *os.File, off, n int64) (int64, error) {
	null, err := devNull()
	if err != nil {
		return archive.CopyRange(io.Discard, f, off, n)
	}
	return writeRange(null, f, off, n)
}

// devNull is /dev/null opened for writing, once for the whole run.
var devNull = sync.OnceValues(func() (*os.File, error) { return os.OpenFile(os.DevNull, os.O_WRONLY, 0) })

// writeRange writes n bytes of f from off to w: through the kernel when w
// is a file, the rest (all of it where the kernel refuses) through a
// buffer.
func writeRange(w io.Writer, f *os.File, off, n int64) (int64, error) {
	var k int64
	if dst, ok := w.(*os.File); ok {
		var err error
		if k, err = kcopy.Send(dst, f, off, n); err == nil {
			return k, nil
		}
	}
	m, err := archive.CopyRange(w, f, off+k, n-k)
	return k + m, err
}

// Settle has nothing to commit: the verdict is the caller's to report.
func (Discard) Settle(_ *archive.Entry, err error) error { return err }

// Close does nothing.
func (Discard) Close() error { return nil }

// Stdout writes the data of every regular file to W in archive order, like
// tar -O, holes as zeros. Data reaches W before its checksum is known: an
// error is still reported, but what was written cannot be taken back.
type Stdout struct{ W io.Writer }

// Put copies the entry's data to W.
func (s Stdout) Put(e *archive.Entry, r io.Reader) error {
	if e.Type != archive.TypeFile {
		return nil
	}
	if f, ok := s.W.(*os.File); ok {
		_, err := archive.Copy(fileOut{f}, r)
		return err
	}
	_, err := archive.Copy(zeroHoles{s.W}, r)
	return err
}

// fileOut is standard output as a file: a pointer in an interface (no
// allocation per entry), taking ranges through the kernel.
type fileOut struct{ f *os.File }

func (o fileOut) Write(p []byte) (int, error) { return o.f.Write(p) }
func (o fileOut) WriteRange(f *os.File, off, n int64) (int64, error) {
	return writeRange(o.f, f, off, n)
}

// zeroHoles hides any WriteHole of W: on a stream a hole is its zeros.
type zeroHoles struct{ io.Writer }

// WriteRange writes a stored range through the kernel when W is a file
// (standard output as a pipe, a file or /dev/null).
func (z zeroHoles) WriteRange(f *os.File, off, n int64) (int64, error) {
	return writeRange(z.Writer, f, off, n)
}

// Settle cannot take back what was written: the verdict is the caller's to
// report.
func (Stdout) Settle(_ *archive.Entry, err error) error { return err }

// Close does nothing.
func (Stdout) Close() error { return nil }
