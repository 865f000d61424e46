//go:build !unix

package extract

import (
	"io/fs"
	"os"
)

// ident is a file's identity on disk, as os.SameFile compares it (on
// Windows the volume serial number and file index).
type ident struct {
	fi      fs.FileInfo
	claimed bool // never set here (files in a stage are Linux's: see staged.go)
}

func identOf(fi fs.FileInfo) ident { return ident{fi: fi} }

// same reports whether fi is the file of identity i.
func (i ident) same(fi fs.FileInfo) bool { return i.fi != nil && os.SameFile(i.fi, fi) }

// claimedIdent is the identity a held file created at its own name is
// claimed by (never here: see ident.claimed).
func (h *hold) claimedIdent() ident { return ident{claimed: true} }
