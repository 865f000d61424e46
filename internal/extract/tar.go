package extract

import (
	gotar "archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Tar writes the entries as a POSIX pax tar stream (names, modes, times,
// links) to W: any archive can feed a tar-only tool. An entry of unknown
// size is spooled to a temporary file first. Data is verified as it goes:
// once an entry fails, the stream is left without its end marker, so that
// the reader on the other side sees a damaged archive rather than a whole
// one.
type Tar struct {
	tw     *gotar.Writer
	failed bool
}

// NewTar returns a Tar sink writing to w.
func NewTar(w io.Writer) *Tar { return &Tar{tw: gotar.NewWriter(w)} }

// errTarStopped is returned for the entries after a failed one.
var errTarStopped = fmt.Errorf("not written: the tar stream was stopped at an earlier failure")

// Put writes one entry.
func (t *Tar) Put(e *archive.Entry, r io.Reader) error {
	if t.failed {
		return errTarStopped
	}
	name, err := CleanName(e.Name)
	if err != nil {
		return err
	}
	h := &gotar.Header{Name: name, ModTime: e.ModTime, AccessTime: e.AccessTime, Format: gotar.FormatPAX,
		Mode: int64(e.Mode.Perm())}
	if e.Mode&fs.ModeSetuid != 0 {
		h.Mode |= 0o4000
	}
	if e.Mode&fs.ModeSetgid != 0 {
		h.Mode |= 0o2000
	}
	if e.Mode&fs.ModeSticky != 0 {
		h.Mode |= 0o1000
	}
	switch e.Type {
	case archive.TypeDir:
		h.Typeflag, h.Name = gotar.TypeDir, name+"/"
		if h.Mode == 0 {
			h.Mode = 0o755
		}
	case archive.TypeSymlink:
		h.Typeflag, h.Linkname = gotar.TypeSymlink, e.Linkname
		if _, err := CleanLinkTarget(name, e.Linkname); err != nil {
			return err
		}
		h.Mode = 0o777
	case archive.TypeHardlink:
		old, err := CleanName(e.Linkname)
		if err != nil {
			return err
		}
		h.Typeflag, h.Linkname = gotar.TypeLink, old
	case archive.TypeFile:
		h.Typeflag = gotar.TypeReg
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		return t.putFile(h, e.Size, r)
	default:
		return fmt.Errorf("%w: %s not written", ErrSkipped, e.Device)
	}
	if err := t.tw.WriteHeader(h); err != nil {
		t.failed = true
		return err
	}
	return nil
}

func (t *Tar) putFile(h *gotar.Header, size int64, r io.Reader) error {
	if size < 0 {
		spool, err := os.CreateTemp("", "unpack-spool-")
		if err != nil {
			return err
		}
		defer os.Remove(spool.Name())
		defer spool.Close()
		n, err := archive.Copy(spool, r)
		if err != nil {
			t.failed = true
			return err
		}
		if _, err := spool.Seek(0, io.SeekStart); err != nil {
			return err
		}
		size, r = n, spool
	}
	h.Size = size
	if err := t.tw.WriteHeader(h); err != nil {
		t.failed = true
		return err
	}
	n, err := archive.Copy(t.tw, r)
	if err == nil && n != size {
		err = archive.Corruptf("entry has %d bytes, its header says %d", n, size)
	}
	if err != nil {
		t.failed = true
	}
	return err
}

// Close writes the end marker, unless an entry failed.
func (t *Tar) Close() error {
	if t.failed {
		return nil
	}
	return t.tw.Close()
}

// Settle cannot take back an entry already in the stream; a failed verdict
// stops the stream as a failed entry does.
func (t *Tar) Settle(_ *archive.Entry, err error) error {
	if err != nil {
		t.failed = true
	}
	return err
}
