//go:build !linux

package extract

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/unpack-dev/unpack/internal/quarantine"
)

// dirHandle is Linux's: directories are not held open here.
type dirHandle struct{}

// wfile is a file being written under its temporary name.
type wfile struct {
	*os.File
	d   *Dir
	tmp string // its temporary name (a resolved path)
}

// create creates a temporary file for the resolved path p, mode 0600
// until its data is written.
func (d *Dir) create(p string, _ fs.FileMode, _ bool) (*wfile, bool, error) {
	tmp := tempName(p)
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, false, err
	}
	return &wfile{File: f, d: d, tmp: tmp}, false, nil
}

// createDirect: files are created under temporary names here (see
// staged.go).
func (d *Dir) createDirect(string, fs.FileMode, *hold) (*wfile, bool, error) {
	return nil, false, errNoFastPath
}

// setDirMetaByHandle: no directory handles here.
func (d *Dir) setDirMetaByHandle(string, dirMeta) bool { return false }

// setTimes sets the times of the file, by its temporary name.
func (f *wfile) setTimes(at, mt time.Time) error { return f.d.root.Chtimes(f.tmp, at, mt) }

// setLinkTimes leaves a symbolic link's own times: os.Root sets times
// only through links.
func (d *Dir) setLinkTimes(string, time.Time, time.Time) error { return nil }

// quarantine sets the quarantine attribute (macOS).
func (f *wfile) quarantine(value []byte) error { return quarantine.Apply(f.File, value) }

// ident is the file's identity, from its handle.
func (f *wfile) ident(time.Time) (ident, error) {
	fi, err := f.Stat()
	if err != nil {
		return ident{}, err
	}
	return identOf(fi), nil
}

// linkAs is never called here: every file has a temporary name.
func (d *Dir) linkAs(*wfile, string) error { return errNoFastPath }

// renameNew has no rename that refuses to replace here: the caller checks
// the policy and renames.
func (d *Dir) renameNew(_, _ string) error { return errNoFastPath }

// exchange has no exchange of names here: the caller renames.
func (d *Dir) exchange(_, _ string) error { return errNoFastPath }

// unlink removes the resolved path p through the root.
func (d *Dir) unlink(p string) error { return d.root.Remove(p) }

// closeFDs has no directory handles to close here.
func (d *Dir) closeFDs() {}

var errNoFastPath = errors.New("no fast path")

// lstat is the root's Lstat.
func (d *Dir) lstat(p string) (fs.FileInfo, error) { return d.root.Lstat(p) }

// mkdirAt makes the directory p through the root.
func (d *Dir) mkdirAt(p string) (fs.FileInfo, error) {
	if err := d.root.Mkdir(p, 0o755); err != nil {
		return nil, err
	}
	return d.root.Lstat(p)
}

// setDirMetaOn gives the directory p its mode and times, through the root.
func (d *Dir) setDirMetaOn(p string, m dirMeta) {
	d.root.Chmod(p, m.mode)
	if !m.mtime.IsZero() {
		d.root.Chtimes(p, m.mtime, m.mtime)
	}
}
