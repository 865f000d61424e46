//go:build !linux

package extract

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// createTemp creates the temporary file tmp (a resolved path), mode 0600
// until its data is written.
func (d *Dir) createTemp(tmp string, _ fs.FileMode) (*os.File, bool, error) {
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	return f, false, err
}

// setTimes sets the times of the temporary file tmp.
func (d *Dir) setTimes(tmp string, at, mt time.Time) error { return d.root.Chtimes(tmp, at, mt) }

// renameNew has no rename that refuses to replace here: the caller checks
// the policy and renames.
func (d *Dir) renameNew(_, _ string) error { return errNoFastPath }

// closeFDs has no directory handles to close here.
func (d *Dir) closeFDs() {}

var errNoFastPath = errors.New("no fast path")
