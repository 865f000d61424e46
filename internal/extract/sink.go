// Package extract holds the sinks entries are written to: a directory
// confined with os.Root, standard output, and nothing (verify). A sink
// commits a file only after its data, read to the end, passed its checksum.
package extract

import (
	"errors"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
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
	_, err := archive.Copy(zeroHoles{s.W}, r)
	return err
}

// zeroHoles hides any WriteHole of W: on a stream a hole is its zeros.
type zeroHoles struct{ io.Writer }

// Settle cannot take back what was written: the verdict is the caller's to
// report.
func (Stdout) Settle(_ *archive.Entry, err error) error { return err }

// Close does nothing.
func (Stdout) Close() error { return nil }
