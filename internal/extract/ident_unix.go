//go:build unix

package extract

import (
	"io/fs"
	"syscall"
)

// ident is a file's identity on disk, its device and inode: 16 bytes a
// file extracted, where a whole FileInfo would be some 250.
type ident struct{ dev, ino uint64 }

func identOf(fi fs.FileInfo) ident {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ident{}
	}
	return ident{dev: uint64(st.Dev), ino: uint64(st.Ino)}
}

// same reports whether fi is the file of identity i.
func (i ident) same(fi fs.FileInfo) bool { return i != ident{} && i == identOf(fi) }
