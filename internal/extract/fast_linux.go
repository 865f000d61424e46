package extract

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/unpack-dev/unpack/internal/quarantine"
)

// On Linux a regular file is written and committed relative to a handle
// of its directory, opened once through the root and kept for the whole
// extraction: none of the per-component walks of os.Root per call. The
// names used relative to it are single components (the file's own and its
// temporary name), so the confinement is the handle's: a directory of the
// destination, which no entry ever replaces (see isDir).
//
// A file whose data is verified when its last byte is written (not
// Pending) is created unnamed (O_TMPFILE) and linked under its name once
// whole: it is never visible under another name, and a kill -9 leaves
// nothing. A Pending file written by the pool is held the same way, up to
// a bound on the descriptors (see maxHeldFDs); any other Pending file
// waits for its verdict under a temporary name, as everywhere on file
// systems without O_TMPFILE.

// dirHandle is an open directory of the destination.
type dirHandle struct {
	f         *os.File // nil when opened by mkdirAt: fd alone
	fd        int
	dev       uint64       // its device: that of every file created in it
	noTmpfile atomic.Bool  // O_TMPFILE failed here: temporary names instead
	refs      int          // users between dirFD and release (under fdMu)
	owner     atomic.Int32 // who writes its held files, when split (see toWriter)
}

// maxDirHandles bounds the directory handles kept open: an archive of more
// directories than the process may open files would else run out of
// descriptors. Beyond it, handles no one uses are closed (and opened again
// through the root when needed: a directory of the destination stays one,
// but the walk costs an openat per component). It is a quarter of the
// descriptors allowed (Go raises the soft limit to the hard one), from 16
// to 16384: Go's source tree has 1,325 directories, the bench's tree of
// 100,000 tiny files 4,352, and a bound below that reopens most of them.
var maxDirHandles = sync.OnceValue(func() int {
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) != nil {
		return 1024
	}
	return int(max(16, min(16384, r.Cur/4)))
})

// dirFD returns the cached handle of the resolved directory dir, which its
// caller gives back with release once done with its descriptor.
func (d *Dir) dirFD(dir string) (*dirHandle, error) {
	d.fdMu.Lock()
	h := d.fds[dir]
	if h != nil {
		h.refs++
	}
	d.fdMu.Unlock()
	if h != nil {
		return h, nil
	}
	name := dir
	if name == "" {
		name = "."
	}
	f, err := d.root.Open(name)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	h = &dirHandle{f: f, fd: int(f.Fd()), dev: uint64(st.Dev), refs: 1}
	h.noTmpfile.Store(d.noTmpfile.Load())
	d.fdMu.Lock()
	if g := d.fds[dir]; g != nil { // opened meanwhile by a concurrent entry
		g.refs++
		d.fdMu.Unlock()
		f.Close()
		return g, nil
	}
	d.fds[dir] = h
	d.evictFDs()
	d.fdMu.Unlock()
	return h, nil
}

// release gives back a handle from dirFD.
func (d *Dir) release(h *dirHandle) {
	d.fdMu.Lock()
	h.refs--
	d.fdMu.Unlock()
}

// evictFDs closes unused handles, down to half the bound, once there are
// more than maxDirHandles (fdMu held).
func (d *Dir) evictFDs() {
	limit := maxDirHandles()
	if len(d.fds) <= limit {
		return
	}
	for k, h := range d.fds {
		if len(d.fds) <= limit/2 {
			break
		}
		if h.refs == 0 {
			h.close()
			delete(d.fds, k)
		}
	}
}

func (h *dirHandle) close() {
	if h.f != nil {
		h.f.Close()
	} else {
		unix.Close(h.fd)
	}
}

// wfile is a file being written, by its raw descriptor: an os.File would
// ask the descriptor's flags (fcntl) for every file.
type wfile struct {
	fd   int
	dir  *dirHandle
	d    *Dir   // gives dir back at Close; nil: not its to give
	tmp  string // its temporary name (a resolved path); "" while unnamed
	name string // the path it goes to, for errors
	pos  int64  // the write offset
	size int64  // the file's size
}

// create makes the file for the resolved path p, with mode perm where the
// umask gives it exactly that (reporting whether it did, so that no chmod
// is needed; setuid, setgid and sticky bits are left for the chmod after
// the data). It is unnamed unless named is set or the directory's file
// system has no O_TMPFILE; else it has a temporary name, mode 0600 until
// its data is written when perm cannot be given at once.
func (d *Dir) create(p string, perm fs.FileMode, named bool) (*wfile, bool, error) {
	h, err := d.dirFD(parent(p))
	if err != nil {
		return nil, false, err
	}
	create, exact := uint32(0o600), false
	if perm&^fs.ModePerm == 0 && perm&realUmask() == 0 {
		create, exact = uint32(perm), true
	}
	if !named && !h.noTmpfile.Load() {
		fd, err := openat(h.fd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, create)
		if err == nil {
			return &wfile{fd: fd, dir: h, d: d, name: p}, exact, nil
		}
		if err != unix.EOPNOTSUPP && err != unix.EISDIR && err != unix.EINVAL {
			d.release(h)
			return nil, false, &fs.PathError{Op: "openat", Path: p, Err: err}
		}
		// The file system (or an old kernel) cannot: names from now on.
		h.noTmpfile.Store(true)
	}
	tmp := tempName(p)
	fd, err := openat(h.fd, path.Base(tmp), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, create)
	if err != nil {
		d.release(h)
		return nil, false, &fs.PathError{Op: "openat", Path: tmp, Err: err}
	}
	return &wfile{fd: fd, dir: h, d: d, tmp: tmp, name: p}, exact, nil
}

// createDirect creates the file for the resolved path p under its own
// name, in a stage (see staged.go), with mode perm where the umask gives it
// exactly that (reporting whether it did); for a Pending file, claimed for
// the hold held (see writeDirect), which it fills in. It fails with
// errNoFastPath when the file takes the ordinary way: not staged, or p
// taken.
func (d *Dir) createDirect(p string, perm fs.FileMode, held *hold) (*wfile, bool, error) {
	if !d.staged() {
		return nil, false, errNoFastPath
	}
	h, err := d.dirFD(parent(p))
	if err != nil {
		return nil, false, err
	}
	claimed := false
	if held != nil {
		*held = hold{name: p, tmp: p, info: ident{dev: h.dev}, direct: true}
		claimed = d.claimFor(p, held)
	} else {
		claimed = d.claim(p, ident{dev: h.dev, claimed: true})
	}
	if !claimed {
		d.release(h)
		return nil, false, errNoFastPath
	}
	create, exact := uint32(0o600), false
	if perm&^fs.ModePerm == 0 && perm&realUmask() == 0 {
		create, exact = uint32(perm), true
	}
	fd, err := openat(h.fd, path.Base(p), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, create)
	if err != nil {
		d.release(h)
		d.unclaim(p, false)
		if err == unix.EEXIST {
			return nil, false, errNoFastPath // the policy decides
		}
		return nil, false, &fs.PathError{Op: "openat", Path: p, Err: err}
	}
	f := &wfile{fd: fd, dir: h, d: d, name: p}
	if err := d.created(p); err != nil {
		f.Close()
		return nil, false, err
	}
	return f, exact, nil
}

func (f *wfile) err(op string, err error) error {
	return &fs.PathError{Op: op, Path: f.name, Err: err}
}

func (f *wfile) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := unix.Write(f.fd, b[n:n+min(len(b)-n, 1<<30)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, f.err("write", err)
		}
		if k == 0 {
			return n, f.err("write", io.ErrShortWrite)
		}
		n += k
		f.pos += int64(k)
		f.size = max(f.size, f.pos)
	}
	return n, nil
}

// Seek moves the write offset (whence io.SeekCurrent only: the sparse
// writer's holes).
func (f *wfile) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekCurrent {
		return 0, errors.ErrUnsupported
	}
	pos, err := unix.Seek(f.fd, off, io.SeekCurrent)
	if err != nil {
		return 0, f.err("seek", err)
	}
	f.pos = pos
	return pos, nil
}

func (f *wfile) Truncate(n int64) error {
	if err := unix.Ftruncate(f.fd, n); err != nil {
		return f.err("truncate", err)
	}
	f.size = n
	return nil
}

func (f *wfile) Chmod(m fs.FileMode) error {
	if err := unix.Fchmod(f.fd, uint32(syscallMode(m))); err != nil {
		return f.err("chmod", err)
	}
	return nil
}

// syscallMode is os's conversion of a FileMode's bits for chmod.
func syscallMode(m fs.FileMode) uint32 {
	o := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		o |= syscall.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		o |= syscall.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		o |= syscall.S_ISVTX
	}
	return o
}

// setTimes sets the file's times on its descriptor: utimensat(2) with a
// NULL path (futimens), which x/sys/unix does not offer with nanoseconds.
func (f *wfile) setTimes(at, mt time.Time) error {
	ts := [2]unix.Timespec{unix.NsecToTimespec(at.UnixNano()), unix.NsecToTimespec(mt.UnixNano())}
	_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(f.fd), 0, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	if e != 0 {
		return f.err("utimensat", e)
	}
	return nil
}

// setLinkTimes sets the times of the symbolic link tmp itself (a resolved
// path whose directory is open), as GNU tar and bsdtar do.
func (d *Dir) setLinkTimes(tmp string, at, mt time.Time) error {
	h, err := d.dirFD(parent(tmp))
	if err != nil {
		return err
	}
	defer d.release(h)
	ts := []unix.Timespec{unix.NsecToTimespec(at.UnixNano()), unix.NsecToTimespec(mt.UnixNano())}
	if err := unix.UtimesNanoAt(h.fd, path.Base(tmp), ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "utimensat", Path: tmp, Err: err}
	}
	return nil
}

// quarantine sets the quarantine attribute (macOS only: Apply does nothing
// here; kept for the same code path).
func (f *wfile) quarantine(value []byte) error {
	fd, err := unix.Dup(f.fd)
	if err != nil {
		return f.err("dup", err)
	}
	g := os.NewFile(uintptr(fd), f.name)
	defer g.Close()
	return quarantine.Apply(g, value)
}

// ident is the identity the file is recorded by once committed: known
// without a stat (see ident).
func (f *wfile) ident(mtime time.Time) (ident, error) {
	return written(f.dir.dev, f.size, mtime), nil
}

func (f *wfile) Close() error {
	if f.d != nil {
		f.d.release(f.dir)
		f.d = nil
	}
	if err := unix.Close(f.fd); err != nil {
		return f.err("close", err)
	}
	return nil
}

// linkAs gives the unnamed file f the resolved name p (in its directory),
// failing with EEXIST if p exists: linkat through /proc/self/fd, which
// needs no privilege, else with AT_EMPTY_PATH (CAP_DAC_READ_SEARCH).
func (d *Dir) linkAs(f *wfile, p string) error {
	err := linkatFD(f.fd, f.dir.fd, path.Base(p))
	if err == unix.ENOENT {
		err = unix.Linkat(f.fd, "", f.dir.fd, path.Base(p), unix.AT_EMPTY_PATH)
	}
	if err != nil && err != unix.EEXIST {
		d.noTmpfile.Store(true) // for directories opened from now on
		f.dir.noTmpfile.Store(true)
	}
	if err != nil {
		return &fs.PathError{Op: "linkat", Path: p, Err: err}
	}
	return nil
}

// renameNew renames tmp to p (one directory) only if p does not exist.
// Any failure, p existing included, leaves the policy to the caller.
func (d *Dir) renameNew(tmp, p string) error {
	if parent(tmp) != parent(p) {
		return errNoFastPath
	}
	h, err := d.dirFD(parent(p))
	if err != nil {
		return err
	}
	defer d.release(h)
	return renameat2(h.fd, path.Base(tmp), path.Base(p), unix.RENAME_NOREPLACE)
}

// exchange swaps the names tmp and p (one directory, both existing):
// renameat2 RENAME_EXCHANGE. It fails with errNoFastPath where the file
// system or the kernel refuses the exchange (from then on for the whole
// extraction), or where a name is missing: a rename is the way then.
func (d *Dir) exchange(tmp, p string) error {
	if parent(tmp) != parent(p) || d.noExchange.Load() {
		return errNoFastPath
	}
	h, err := d.dirFD(parent(p))
	if err != nil {
		return err
	}
	defer d.release(h)
	switch err := renameat2(h.fd, path.Base(tmp), path.Base(p), unix.RENAME_EXCHANGE); err {
	case nil:
		return nil
	case unix.EINVAL, unix.ENOSYS, unix.EOPNOTSUPP:
		d.noExchange.Store(true)
		return errNoFastPath
	case unix.ENOENT:
		return errNoFastPath
	default:
		return &fs.PathError{Op: "renameat2", Path: p, Err: err}
	}
}

// unlink removes the resolved path p, not a directory, relative to its
// directory's handle.
func (d *Dir) unlink(p string) error {
	h, err := d.dirFD(parent(p))
	if err != nil {
		return err
	}
	defer d.release(h)
	if err := unlinkat(h.fd, path.Base(p), 0); err != nil {
		return &fs.PathError{Op: "unlinkat", Path: p, Err: err}
	}
	return nil
}

// closeFDs closes the cached directory handles.
func (d *Dir) closeFDs() {
	d.fdMu.Lock()
	defer d.fdMu.Unlock()
	var raw []int // mkdirAt's, moved aside together: closed by runs
	for k, h := range d.fds {
		if h.f == nil {
			raw = append(raw, h.fd)
		} else {
			h.close()
		}
		delete(d.fds, k)
	}
	closeRuns(raw)
}

var errNoFastPath = errors.New("no fast path")

// written is the identity of a regular file this extraction wrote in a
// directory on device dev, of size bytes and mtime mt (zero: left as
// written), known without a stat (see ident).
func written(dev uint64, size int64, mt time.Time) ident {
	id := ident{dev: dev, size: size}
	if !mt.IsZero() {
		id.mtime, id.timed = mt.Unix(), true
	}
	return id
}

// statInfo is an fs.FileInfo from a stat relative to a directory handle.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) IsDir() bool        { return s.st.Mode&unix.S_IFMT == unix.S_IFDIR }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }

// Mode is os's conversion of the stat's mode.
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// knownDir reports whether the resolved path dir has a handle to use:
// the destination, or a directory seen as one (which stays one).
func (d *Dir) knownDir(dir string) bool { return dir == "" || d.isDir(dir) }

// lstat is Lstat of the resolved path p without following a link at p:
// one fstatat relative to the handle of its directory when that is known
// to be one, else through the root (its walk).
func (d *Dir) lstat(p string) (fs.FileInfo, error) {
	if !d.knownDir(parent(p)) {
		return d.root.Lstat(p)
	}
	h, err := d.dirFD(parent(p))
	if err != nil {
		return nil, err
	}
	defer d.release(h)
	si := &statInfo{name: path.Base(p)}
	if err := unix.Fstatat(h.fd, si.name, &si.st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: err}
	}
	return si, nil
}

// mkdirAt makes the directory p (its parent known to be one) relative to
// the parent's handle, opens it as its own handle (so that what is made in
// it needs no walk) and returns its stat, from that handle.
func (d *Dir) mkdirAt(p string) (fs.FileInfo, error) {
	dir := parent(p)
	if !d.knownDir(dir) {
		if err := d.root.Mkdir(p, 0o755); err != nil {
			return nil, err
		}
		return d.root.Lstat(p)
	}
	h, err := d.dirFD(dir)
	if err != nil {
		return nil, err
	}
	defer d.release(h)
	base := path.Base(p)
	if err := mkdirat(h.fd, base, 0o755); err != nil {
		return nil, &fs.PathError{Op: "mkdirat", Path: p, Err: err}
	}
	fd, err := openat(h.fd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: p, Err: err}
	}
	si := &statInfo{name: base}
	if err := unix.Fstat(fd, &si.st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: p, Err: err}
	}
	fd = aside(fd)
	nh := &dirHandle{fd: fd, dev: uint64(si.st.Dev)}
	nh.noTmpfile.Store(d.noTmpfile.Load())
	d.fdMu.Lock()
	if d.fds[p] == nil {
		d.fds[p] = nh
		fd = -1
		d.evictFDs()
	}
	d.fdMu.Unlock()
	if fd >= 0 {
		unix.Close(fd)
	}
	return si, nil
}

// setDirMetaByHandle gives the directory p its mode and times on its
// handle, if one is open (reporting whether it was).
func (d *Dir) setDirMetaByHandle(p string, m dirMeta) bool {
	d.fdMu.Lock()
	h := d.fds[p]
	d.fdMu.Unlock()
	if h == nil {
		return false
	}
	d.setDirMetaOn(p, m)
	return true
}

// setDirMetaOn gives the directory p its mode and times: on its handle
// when it has one, else through the root.
func (d *Dir) setDirMetaOn(p string, m dirMeta) {
	d.fdMu.Lock()
	h := d.fds[p]
	if h != nil {
		h.refs++
	}
	d.fdMu.Unlock()
	if h == nil {
		d.root.Chmod(p, m.mode)
		if !m.mtime.IsZero() {
			d.root.Chtimes(p, m.mtime, m.mtime)
		}
		return
	}
	defer d.release(h)
	// In a stage nothing else changes a directory: one that has the
	// mode already needs no chmod.
	if !d.opt.Staged || m.had != m.mode {
		unix.Fchmod(h.fd, syscallMode(m.mode))
	}
	if !m.mtime.IsZero() {
		f := wfile{fd: h.fd, name: p}
		f.setTimes(m.mtime, m.mtime)
	}
}
