package extract

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux a regular file is written and committed relative to a handle
// of its directory, opened once through the root and kept for the whole
// extraction: none of the per-component walks of os.Root per call. The
// names used relative to it are single components (the file's own and its
// temporary name), so the confinement is the handle's: a directory of the
// destination, which no entry ever replaces (see isDir).

// dirFD returns the cached handle of the resolved directory dir.
func (d *Dir) dirFD(dir string) (int, error) {
	d.fdMu.Lock()
	f := d.fds[dir]
	d.fdMu.Unlock()
	if f != nil {
		return int(f.Fd()), nil
	}
	name := dir
	if name == "" {
		name = "."
	}
	f, err := d.root.Open(name)
	if err != nil {
		return -1, err
	}
	d.fdMu.Lock()
	if g := d.fds[dir]; g != nil { // opened meanwhile by a concurrent entry
		d.fdMu.Unlock()
		f.Close()
		return int(g.Fd()), nil
	}
	d.fds[dir] = f
	d.fdMu.Unlock()
	return int(f.Fd()), nil
}

// createTemp creates the temporary file tmp (a resolved path) with mode
// perm where the umask gives it exactly that, reporting whether it did (so
// that no chmod is needed); setuid, setgid and sticky bits are left for
// the chmod after the data.
func (d *Dir) createTemp(tmp string, perm fs.FileMode) (*os.File, bool, error) {
	fd, err := d.dirFD(parent(tmp))
	if err != nil {
		return nil, false, err
	}
	create, exact := uint32(0o600), false
	if perm&^fs.ModePerm == 0 && perm&realUmask() == 0 {
		create, exact = uint32(perm), true
	}
	nfd, err := unix.Openat(fd, path.Base(tmp), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, create)
	if err != nil {
		return nil, false, &fs.PathError{Op: "openat", Path: tmp, Err: err}
	}
	return os.NewFile(uintptr(nfd), tmp), exact, nil
}

// setTimes sets the times of the temporary file tmp.
func (d *Dir) setTimes(tmp string, at, mt time.Time) error {
	fd, err := d.dirFD(parent(tmp))
	if err != nil {
		return err
	}
	ts := []unix.Timespec{unix.NsecToTimespec(at.UnixNano()), unix.NsecToTimespec(mt.UnixNano())}
	return unix.UtimesNanoAt(fd, path.Base(tmp), ts, unix.AT_SYMLINK_NOFOLLOW)
}

// renameNew renames tmp to p (one directory) only if p does not exist.
// Any failure, p existing included, leaves the policy to the caller.
func (d *Dir) renameNew(tmp, p string) error {
	if parent(tmp) != parent(p) {
		return errNoFastPath
	}
	fd, err := d.dirFD(parent(p))
	if err != nil {
		return err
	}
	return unix.Renameat2(fd, path.Base(tmp), fd, path.Base(p), unix.RENAME_NOREPLACE)
}

// closeFDs closes the cached directory handles.
func (d *Dir) closeFDs() {
	d.fdMu.Lock()
	defer d.fdMu.Unlock()
	for k, f := range d.fds {
		f.Close()
		delete(d.fds, k)
	}
}

var errNoFastPath = errors.New("no fast path")
