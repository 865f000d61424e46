// Package archive is the model every format shares: the Entry, the Reader
// interface, the Input a format opens, options, typed errors and magic-byte
// detection. It knows no format's internals.
package archive

import (
	"io"
	"io/fs"
	"time"

	"github.com/unpack-dev/unpack/internal/verify"
)

// Type is the kind of an entry.
type Type uint8

// Entry types.
const (
	TypeFile     Type = iota // a regular file; its data follows
	TypeDir                  // a directory
	TypeSymlink              // a symbolic link to Linkname
	TypeHardlink             // a hard link to the earlier entry Linkname
	TypeOther                // a device, FIFO or anything the sinks skip
)

func (t Type) String() string {
	switch t {
	case TypeFile:
		return "file"
	case TypeDir:
		return "dir"
	case TypeSymlink:
		return "symlink"
	case TypeHardlink:
		return "hardlink"
	}
	return "other"
}

// Entry describes one item of an archive. Unknown numbers are -1, unknown
// times are zero.
type Entry struct {
	Name       string      // slash-separated path as stored (not yet made safe)
	Type       Type        // file, dir, link…
	Size       int64       // uncompressed size, -1 when unknown
	PackedSize int64       // stored size, -1 when unknown
	Mode       fs.FileMode // permission bits plus setuid/setgid/sticky; 0 when unknown
	ModTime    time.Time   // last modification
	AccessTime time.Time   // optional
	Linkname   string      // symlink target or hard link source
	Method     string      // compression method as the format names it ("LZMA2:24", "deflate")
	Encrypted  bool        // data (or headers) are encrypted

	Checksum      verify.Kind // what the format carries for this entry's data
	ChecksumValue []byte      // the stored (expected) value, big-endian, nil when none

	// Sparse lists the data regions of a sparse file (holes between them);
	// nil for a dense file. Readers still deliver the expanded bytes.
	Sparse []Region

	Comment string // per-entry comment, if the format has one
	Device  string // for TypeOther: what it is ("char device", "fifo"…)
}

// Region is one data region of a sparse file.
type Region struct{ Offset, Length int64 }

// Reader yields the entries of an archive in order, tar-style:
//
//	for { e, err := r.Next(); if err == io.EOF { break }; …; io.Copy(sink, r) }
//
// Read returns the current entry's data and verifies its checksum when the
// data ends: a mismatch is returned instead of io.EOF (a *verify.MismatchError).
// Next skips what was not read of the current entry, verifying it as well
// where the format needs to read it anyway (solid streams).
type Reader interface {
	Next() (*Entry, error)
	Read(p []byte) (int, error)
	Close() error
}

// Commenter is implemented by readers whose archive has a comment.
type Commenter interface{ Comment() string }

// RandomAccess is implemented by readers of indexed formats whose entries
// can be opened independently (non-solid zip, 7z folders, RAR non-solid).
// Entries returns the full list up front; Open returns a verified stream of
// entry i's data and is safe for concurrent use.
type RandomAccess interface {
	Entries() ([]*Entry, error)
	Open(i int) (io.ReadCloser, error)
}
