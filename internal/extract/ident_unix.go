//go:build unix

package extract

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// ident is a file's identity on disk, its device and inode: some 40 bytes
// a file extracted, where a whole FileInfo would be some 250.
//
// On Linux a regular file this extraction wrote is known without a stat
// (ino 0, see written): by its device, its size and mtime, and a single
// link. What makes that enough is how it got its name: linked from the
// unnamed file's own descriptor (or renamed from a temporary name only
// this extraction knows) by a call that fails if the name exists, so that
// the name is this file's from that moment; and the extraction changes no
// name without recording what it put there. Another process renaming a
// file over it meanwhile is outside the threat model (docs/SECURITY.md);
// even so it is seen as a stranger unless it has the same size and mtime,
// and a hard link planted to someone's file has a second link.
type ident struct {
	dev, ino uint64
	size     int64 // for a file written (ino 0): its size
	mtime    int64 // and its mtime in seconds, when set (timed)
	timed    bool
	// claimed: a file being written under its own name in a stage (see
	// staged.go), known as any regular file of one link on dev until
	// its data is written.
	claimed bool
}

func identOf(fi fs.FileInfo) ident {
	dev, ino, _, ok := statOf(fi)
	if !ok {
		return ident{}
	}
	return ident{dev: dev, ino: ino}
}

// statOf is the device, inode and link count of fi: from os's Lstat, or
// from a stat made relative to a directory handle (Linux, see lstat).
func statOf(fi fs.FileInfo) (dev, ino, nlink uint64, ok bool) {
	switch st := fi.Sys().(type) {
	case *syscall.Stat_t:
		return uint64(st.Dev), uint64(st.Ino), uint64(st.Nlink), true
	case *unix.Stat_t:
		return uint64(st.Dev), uint64(st.Ino), uint64(st.Nlink), true
	}
	return 0, 0, 0, false
}

// same reports whether fi is the file of identity i.
func (i ident) same(fi fs.FileInfo) bool {
	dev, ino, nlink, ok := statOf(fi)
	switch {
	case !ok || i.dev == 0 && i.ino == 0 || dev != i.dev:
		return false
	case i.ino != 0:
		return ino == i.ino
	case i.claimed:
		return fi.Mode().IsRegular() && nlink == 1
	}
	// A file written, known by what it was written as (see ident). File
	// systems keep mtimes to 2 s at worst (FAT).
	if !fi.Mode().IsRegular() || nlink != 1 || fi.Size() != i.size {
		return false
	}
	d := fi.ModTime().Unix() - i.mtime
	return !i.timed || d >= -1 && d <= 1
}

// claimedIdent is the identity a held file created at its own name is
// claimed by (see staged.go).
func (h *hold) claimedIdent() ident { return ident{dev: h.info.dev, claimed: true} }
