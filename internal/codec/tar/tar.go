// Package tar reads tar archives (POSIX ustar and pax, GNU with long names
// and sparse files, v7) through the standard library's archive/tar, as an
// archive.Reader. Tar carries no data checksum; header checksums are checked.
package tar

import (
	gotar "archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Reader is an archive.Reader over a tar stream.
type Reader struct {
	tr  *gotar.Reader
	cur *gotar.Header
	err error
}

// Open reads a tar archive from in.R.
func Open(in *archive.Input, _ *archive.Options) (archive.Reader, error) {
	return NewReader(in.R), nil
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader { return &Reader{tr: gotar.NewReader(r)} }

// Next returns the next entry, or io.EOF after the last.
func (r *Reader) Next() (*archive.Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	h, err := r.tr.Next()
	if errors.Is(err, gotar.ErrInsecurePath) && h != nil {
		err = nil // names are checked by the sink, which can say why
	}
	if err != nil {
		r.err = classify(err)
		return nil, r.err
	}
	r.cur = h
	return entryOf(h), nil
}

// Read reads the current entry's data (sparse holes expanded as zeros).
func (r *Reader) Read(p []byte) (int, error) {
	n, err := r.tr.Read(p)
	if err != nil && err != io.EOF {
		err = classify(err)
	}
	return n, err
}

// Close does nothing; the caller owns the input.
func (r *Reader) Close() error { return nil }

func classify(err error) error {
	switch {
	case err == io.EOF:
		return io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return archive.Corruptf("tar: truncated archive")
	case errors.Is(err, gotar.ErrHeader):
		return archive.Corruptf("tar: invalid header")
	case archive.Categorized(err):
		return err // from the layer below (a stream codec)
	case !strings.HasPrefix(err.Error(), "archive/tar:"):
		// Not archive/tar's own: the input failed to read. An I/O error,
		// kept as it is, not damage.
		return fmt.Errorf("tar: reading the input: %w", err)
	}
	return archive.Corruptf("tar: %v", err)
}

func entryOf(h *gotar.Header) *archive.Entry {
	e := &archive.Entry{
		Name:       h.Name,
		Size:       h.Size,
		PackedSize: -1,
		Mode:       modeOf(h.Mode),
		ModTime:    h.ModTime,
		AccessTime: h.AccessTime,
		Method:     "stored",
	}
	switch h.Typeflag {
	case gotar.TypeReg, gotar.TypeRegA, gotar.TypeCont:
		e.Type = archive.TypeFile
	case gotar.TypeGNUSparse:
		e.Type = archive.TypeFile
		e.Sparse = []archive.Region{}
	case gotar.TypeDir:
		e.Type, e.Size = archive.TypeDir, 0
	case gotar.TypeSymlink:
		e.Type, e.Size, e.Linkname = archive.TypeSymlink, 0, h.Linkname
	case gotar.TypeLink:
		e.Type, e.Size, e.Linkname = archive.TypeHardlink, 0, h.Linkname
	case gotar.TypeChar:
		e.Type, e.Device = archive.TypeOther, "character device"
	case gotar.TypeBlock:
		e.Type, e.Device = archive.TypeOther, "block device"
	case gotar.TypeFifo:
		e.Type, e.Device = archive.TypeOther, "FIFO"
	default:
		e.Type, e.Device = archive.TypeOther, "tar entry of type "+string(rune(h.Typeflag))
	}
	if isPaxSparse(h) {
		e.Sparse = []archive.Region{}
	}
	return e
}

// isPaxSparse reports a pax sparse file (GNU.sparse.* records).
func isPaxSparse(h *gotar.Header) bool {
	for k := range h.PAXRecords {
		if len(k) > 11 && k[:11] == "GNU.sparse." {
			return true
		}
	}
	return false
}

func modeOf(m int64) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
