package extract

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Policy says what to do when an entry's path already exists.
type Policy int

// Overwrite policies.
const (
	Refuse    Policy = iota // fail the entry with ErrExists
	Overwrite               // replace the existing file
	Skip                    // keep the existing file, skip the entry
)

// DirOptions configure a Dir sink.
type DirOptions struct {
	Policy     Policy
	KeepSetID  bool // keep setuid/setgid bits (dropped by default)
	KeepBroken bool // keep a file whose data failed, under its own name
	NoTimes    bool // do not restore modification times
}

// Dir writes entries below a destination directory opened with os.Root, so
// that no entry, whatever its name or the symlinks before it, can create or
// change anything outside. Files are written to a temporary name in their
// directory and renamed into place only after their data verified.
type Dir struct {
	root *os.Root
	opt  DirOptions

	mu      sync.Mutex
	temps   map[string]struct{} // temporary files in flight (for Abort)
	dirTime map[string]time.Time
	made    map[string]bool // paths this extraction wrote (duplicates may replace them)
}

// NewDir opens (creating if needed) the destination directory dest.
func NewDir(dest string, opt DirOptions) (*Dir, error) {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return nil, err
	}
	return &Dir{root: root, opt: opt, temps: map[string]struct{}{},
		dirTime: map[string]time.Time{}, made: map[string]bool{}}, nil
}

// Put writes one entry. Names are checked with CleanName; a refused entry
// returns an ErrInsecurePath error and leaves nothing behind.
func (d *Dir) Put(e *archive.Entry, r io.Reader) error {
	name, err := CleanName(e.Name)
	if err != nil {
		return err
	}
	if name == "" {
		if e.Type == archive.TypeDir {
			return nil
		}
		return fmt.Errorf("%w: empty name", ErrInsecurePath)
	}
	switch e.Type {
	case archive.TypeDir:
		return d.putDir(name, e)
	case archive.TypeFile:
		return d.putFile(name, e, r)
	case archive.TypeSymlink:
		return d.putSymlink(name, e)
	case archive.TypeHardlink:
		return d.putHardlink(name, e)
	}
	what := e.Device
	if what == "" {
		what = "special file"
	}
	return fmt.Errorf("%w: %s not extracted", ErrSkipped, what)
}

func (d *Dir) mkParent(name string) error {
	dir := path.Dir(name)
	if dir == "." {
		return nil
	}
	if fi, err := d.root.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
	// Directories created here are recorded as this extraction's, so that
	// an entry of the same name that is not a directory is seen as the
	// archive contradicting itself, in whichever order they come.
	// Creating and recording are one step under the lock, so that a
	// concurrent entry never sees a directory made here as foreign.
	d.mu.Lock()
	var missing []string
	for p := dir; p != "."; p = path.Dir(p) {
		if _, err := d.root.Lstat(p); err == nil {
			break
		}
		missing = append(missing, p)
	}
	err := d.root.MkdirAll(dir, 0o755)
	if err == nil {
		for _, p := range missing {
			d.made[p] = true
		}
	}
	d.mu.Unlock()
	if err == nil {
		return nil
	}
	// An earlier entry of this archive may be a file where this one needs a
	// directory: the archive contradicts itself, whatever the order its
	// entries are written in. A file that was there before is the
	// overwrite policy's business (err as it is).
	for p := dir; p != "."; p = path.Dir(p) {
		if fi, serr := d.root.Stat(p); serr == nil && !fi.IsDir() && d.wrote(p) {
			return archive.Corruptf("%s is a file extracted from this archive, not a directory", p)
		}
	}
	return err
}

// wrote reports whether this extraction wrote the path.
func (d *Dir) wrote(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.made[name]
}

func (d *Dir) putDir(name string, e *archive.Entry) error {
	if fi, err := d.root.Lstat(name); err == nil && !fi.IsDir() {
		if d.wrote(name) {
			return archive.Corruptf("already exists: a file extracted from this archive is in the way")
		}
		if err := d.replaceable(name); err != nil {
			return err
		}
		if err := d.root.Remove(name); err != nil {
			return err
		}
	}
	if err := d.mkParent(name); err != nil {
		return err
	}
	// Made and recorded in one step, as in mkParent.
	d.mu.Lock()
	err := d.root.MkdirAll(name, 0o755)
	if err == nil {
		d.made[name] = true
		if !e.ModTime.IsZero() && !d.opt.NoTimes {
			d.dirTime[name] = e.ModTime
		}
	}
	d.mu.Unlock()
	if err != nil {
		if fi, serr := d.root.Lstat(name); serr == nil && !fi.IsDir() && d.wrote(name) {
			return archive.Corruptf("already exists: a file extracted from this archive is in the way")
		}
		return err
	}
	if perm := d.perm(e.Mode, 0o755); perm != 0o755 {
		if err := d.root.Chmod(name, perm|0o700); err != nil { // keep it writable until Close
			return err
		}
	}
	return nil
}

// replaceable decides, per policy, whether an existing name may be replaced.
// It returns ErrSkipped for Skip and ErrExists for Refuse. Paths written by
// this extraction (duplicate names in one archive) are always replaceable.
func (d *Dir) replaceable(name string) error {
	if d.wrote(name) {
		return nil
	}
	switch d.opt.Policy {
	case Overwrite:
		return nil
	case Skip:
		return fmt.Errorf("%w: %s exists", ErrSkipped, name)
	}
	return ErrExists
}

// exists checks the target path before any work, per policy.
func (d *Dir) checkTarget(name string) error {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return nil
	}
	if fi.IsDir() {
		if d.wrote(name) {
			// The archive holds a directory and a non-directory of one name.
			return archive.Corruptf("already exists: a directory extracted from this archive is in the way")
		}
		return fmt.Errorf("%w: a directory is in the way", ErrExists)
	}
	return d.replaceable(name)
}

func tempName(name string) string {
	var b [6]byte
	rand.Read(b[:])
	return path.Join(path.Dir(name), ".unpack-"+hex.EncodeToString(b[:])+".tmp")
}

func (d *Dir) putFile(name string, e *archive.Entry, r io.Reader) error {
	if err := d.checkTarget(name); err != nil {
		return err
	}
	if err := d.mkParent(name); err != nil {
		return err
	}
	tmp := tempName(name)
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	d.track(tmp, true)
	defer d.track(tmp, false)
	var w io.Writer = f
	var sw *sparseWriter
	if e.Sparse != nil {
		sw = &sparseWriter{f: f}
		w = sw
	}
	_, err = archive.Copy(w, r)
	if err == nil && sw != nil {
		err = sw.finish()
	}
	if err == nil {
		err = f.Chmod(d.perm(e.Mode, 0o644))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if d.opt.KeepBroken && !isIOError(err) {
			if rerr := d.root.Rename(tmp, name); rerr == nil {
				return err
			}
		}
		d.root.Remove(tmp)
		return err
	}
	if !e.ModTime.IsZero() && !d.opt.NoTimes {
		at := e.AccessTime
		if at.IsZero() {
			at = e.ModTime
		}
		d.root.Chtimes(tmp, at, e.ModTime)
	}
	if err := d.commit(tmp, name); err != nil {
		d.root.Remove(tmp)
		return err
	}
	return nil
}

// commit renames tmp onto name, checking the policy again in case the name
// appeared meanwhile.
func (d *Dir) commit(tmp, name string) error {
	if err := d.checkTarget(name); err != nil {
		return err
	}
	// The rename and its record are one step under the lock, so that an
	// entry whose parent directory cannot be made (this file is in the way)
	// sees the file as this extraction's.
	d.mu.Lock()
	err := d.root.Rename(tmp, name)
	if err == nil {
		d.made[name] = true
	}
	d.mu.Unlock()
	if err != nil {
		// Another entry may have made a directory of this name since the
		// check above: the archive contradicts itself.
		if cerr := d.checkTarget(name); cerr != nil {
			return cerr
		}
	}
	return err
}

// isIOError reports whether err came from the destination rather than the
// data (then there is nothing worth keeping).
func isIOError(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe)
}

func (d *Dir) putSymlink(name string, e *archive.Entry) error {
	target, err := CleanLinkTarget(name, e.Linkname)
	if err != nil {
		return err
	}
	if err := d.checkTarget(name); err != nil {
		return err
	}
	if err := d.mkParent(name); err != nil {
		return err
	}
	tmp := tempName(name)
	if err := d.root.Symlink(target, tmp); err != nil {
		return err
	}
	if err := d.commit(tmp, name); err != nil {
		d.root.Remove(tmp)
		return err
	}
	return nil
}

func (d *Dir) putHardlink(name string, e *archive.Entry) error {
	old, err := CleanName(e.Linkname)
	if err != nil || old == "" {
		return fmt.Errorf("%w: hard link to %q outside the destination", ErrInsecurePath, e.Linkname)
	}
	fi, err := d.root.Lstat(old)
	if err != nil {
		return fmt.Errorf("hard link target %q not extracted", e.Linkname)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: hard link to non-regular file %q", ErrInsecurePath, e.Linkname)
	}
	if err := d.checkTarget(name); err != nil {
		return err
	}
	if err := d.mkParent(name); err != nil {
		return err
	}
	tmp := tempName(name)
	if err := d.root.Link(old, tmp); err != nil {
		return err
	}
	if err := d.commit(tmp, name); err != nil {
		d.root.Remove(tmp)
		return err
	}
	return nil
}

func (d *Dir) perm(m fs.FileMode, def fs.FileMode) fs.FileMode {
	p := m & (fs.ModePerm | fs.ModeSticky | fs.ModeSetuid | fs.ModeSetgid)
	if p&fs.ModePerm == 0 {
		p |= def
	}
	if !d.opt.KeepSetID {
		p &^= fs.ModeSetuid | fs.ModeSetgid
	}
	return p
}

func (d *Dir) track(tmp string, add bool) {
	d.mu.Lock()
	if add {
		d.temps[tmp] = struct{}{}
	} else {
		delete(d.temps, tmp)
	}
	d.mu.Unlock()
}

// Abort removes every temporary file in flight; used on interrupt.
func (d *Dir) Abort() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for tmp := range d.temps {
		d.root.Remove(tmp)
	}
}

// Close applies directory modes and times (deepest first, after their
// contents were written) and closes the root.
func (d *Dir) Close() error {
	d.mu.Lock()
	names := make([]string, 0, len(d.dirTime))
	for n := range d.dirTime {
		names = append(names, n)
	}
	d.mu.Unlock()
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	for _, n := range names {
		t := d.dirTime[n]
		d.root.Chtimes(n, t, t)
	}
	return d.root.Close()
}

// Settle commits or discards a Pending entry. Put does not hold entries
// yet: every entry is committed when its data ends.
func (d *Dir) Settle(_ *archive.Entry, err error) error { return err }
