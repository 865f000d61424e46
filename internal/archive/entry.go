// Package archive is the model every format shares: the Entry, the Reader
// interface, the Input a format opens, options, typed errors and magic-byte
// detection. It knows no format's internals.
package archive

import (
	"io"
	"io/fs"
	"sync/atomic"
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
	// nil for a dense file. Read delivers the expanded bytes; WriteTo hands
	// a hole to a HoleWriter as one call instead of writing its zeros.
	Sparse []Region

	Comment string // per-entry comment, if the format has one
	Device  string // for TypeOther: what it is ("char device", "fifo"…)

	// Pending marks an entry whose data is not yet covered by a check that
	// passed when the data ends: a tar entry inside a gzip member, xz block
	// or zstd frame whose check comes later, a zip entry read from a pipe
	// before the central directory confirms it. A sink keeps such an entry
	// uncommitted (under a temporary name) until the reader settles it (see
	// Settler). The reader returns a new *Entry for every pending entry.
	Pending bool

	// Hold, when not 0, names a Pending entry in its Verdict instead of
	// the pointer: a number unique in the process (see NextHold), kept by
	// every copy of the entry. A reader that holds many entries at once
	// (a tar in a one-frame stream holds every entry to the frame's end)
	// then keeps no *Entry for them, nor need its consumers.
	Hold uint64

	// Copy marks a TypeHardlink entry whose file is to be an independent
	// copy of its Linkname's data, not a link to it: a RAR 5 file copy
	// read from a stream, whose source's data cannot be read again. A
	// sink that writes files copies the file this extraction wrote under
	// that name (or fails); one that cannot, links.
	Copy bool
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

// Settler is implemented by readers that return Pending entries. Settled
// returns, in entry order, the verdicts decided since its last call: Err is
// nil when the check covering the entry's last byte passed, else what
// failed (the stream's checksum mismatch, the central directory disowning
// the entry). After Next returns io.EOF every pending entry has been
// settled; after Next fails, the caller fails the unsettled ones with that
// error.
type Settler interface {
	Settled() []Verdict
}

// Verdict settles one Pending entry.
type Verdict struct {
	Entry *Entry // as returned by Next; nil when Hold names it
	Hold  uint64 // the entry's Hold, when it has one
	Err   error
}

// Same reports whether the verdict v is on e: by Hold when e has one,
// else by pointer.
func (v *Verdict) Same(e *Entry) bool {
	if e.Hold != 0 {
		return v.Hold == e.Hold
	}
	return v.Entry == e
}

var holds atomic.Uint64

// NextHold returns a Hold not given before in this process.
func NextHold() uint64 { return holds.Add(1) }

// HoleWriter is a writer that can take a run of zero bytes without their
// being written out: a sparse file on disk seeks past it, a verifier with
// nothing to hash counts it. An entry reader's WriteTo calls WriteHole for
// the holes of a sparse entry when its writer is one, so that a hole costs
// nothing whatever its size; every stage between a reader and a sink
// (counting, limits, hashing) forwards it or, when it must see the bytes,
// is no HoleWriter.
type HoleWriter interface {
	io.Writer
	WriteHole(n int64) error
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

// UnixMode is the permission bits and setuid, setgid and sticky of a Unix
// st_mode (the file type bits are the caller's to read).
func UnixMode(m uint32) fs.FileMode {
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
