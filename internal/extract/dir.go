package extract

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/osnames"
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
	KeepBroken bool // keep a file whose data failed, as NAME.broken
	NoTimes    bool // do not restore modification times
	// AllowOutsideLinks creates symlinks whose targets leave the
	// destination as they are stored (root file system tarballs); nothing
	// is ever written through them.
	AllowOutsideLinks bool
	// Names is the name policy of the system the files land on (the zero
	// value, Unix, changes nothing): names it cannot hold are renamed or
	// refused, names it would merge are the archive contradicting itself.
	Names osnames.Policy
	// Warn, when set, is told of an entry written under another name.
	Warn func(entry, msg string)
	// Quarantine, when not empty, is set as com.apple.quarantine on every
	// file written (macOS; nothing elsewhere), as the archive carried it.
	Quarantine []byte
	// Buffer bounds the bytes of held files buffered for the writer pool
	// at once (0: 16 MiB).
	Buffer int64
	// Staged says that the destination is a directory this extraction
	// made, empty, that nothing else writes in until the caller moves its
	// items out (a hidden stage: see staged.go). Files are then created
	// under their own names, with no temporary name, unnamed file or
	// rename each; one that fails its check is removed before the caller
	// moves anything.
	Staged bool
}

// Dir writes entries below a destination directory opened with os.Root, so
// that no entry, whatever its name or the symlinks before it, can create or
// change anything outside. Files are written to a temporary name in their
// directory and renamed into place only after their data verified.
//
// It decides by what is on disk, never by names it remembers: each entry's
// directory is resolved through the links on disk when the entry comes,
// what this extraction made is known by identity (device and inode), an
// existing file or directory is changed only with Overwrite, and every
// symlink it made resolves inside the destination (see putSymlink).
type Dir struct {
	stripped atomic.Int64   // entries whose absolute names were made relative
	names    *osnames.Names // the names claimed, by the target system's key
	root     *os.Root
	opt      DirOptions
	umask    fs.FileMode // cleared from every mode applied (0 for root, as GNU tar)

	mu       sync.Mutex
	aborted  atomic.Bool         // Abort was called (set under mu): nothing more is committed unnamed
	temps    map[string]struct{} // temporary files in flight or held (for Abort)
	recs     pathRecs            // what this extraction made, held files: by resolved path
	dirMeta  map[string]dirMeta  // directories whose mode and times Close applies
	links    map[string]string   // symlinks this extraction made → their targets
	deps     map[string]set      // path → the links whose resolution depends on it
	linkDeps map[string][]string // link → the paths it is in deps of
	held     heldSet             // Pending entries awaiting their verdict

	dirs    sync.Map               // paths known to be directories (see isDir)
	lastDir atomic.Pointer[string] // the last one isDir found in dirs

	fdMu sync.Mutex
	fds  map[string]*dirHandle // open directories (Linux, see dirFD)
	// noTmpfile is set when files cannot be created unnamed (Linux,
	// O_TMPFILE: see create), or to test the other way.
	noTmpfile atomic.Bool
	// noExchange is set when names cannot be exchanged (Linux,
	// RENAME_EXCHANGE: see replace), or to test the other way.
	noExchange atomic.Bool
	heldFDs    atomic.Int64 // held files open unnamed (Linux, see maxHeldFDs)
	closing    fdBatch      // files written whose close waits (Linux, see closeFile)

	old    set    // files replaced, under temporary names until reaped
	reaper reaper // removes them (see reap.go)

	poolOnce sync.Once
	pool     atomic.Pointer[writers] // writes held files (Linux, see pool_linux.go)
	inline   atomic.Bool             // held files split between Put and one writer (WriteHeldInline)
	split    splitState              // Put's last directory, its writer (see toWriter)
}

type set = map[string]struct{}

// dirMeta is what Close applies to a directory, if it is still that one.
type dirMeta struct {
	mode  fs.FileMode
	mtime time.Time
	info  ident
	had   fs.FileMode // its mode when recorded (see setDirMetaOn)
}

// NewDir opens (creating if needed) the destination directory dest.
func NewDir(dest string, opt DirOptions) (*Dir, error) {
	if testStaged {
		opt.Staged = true
	}
	d, err := newDir(dest, opt)
	if err == nil && testNamed {
		d.noTmpfile.Store(true)
	}
	return d, err
}

// testStaged makes every Dir staged (see staged.go), whatever is in it:
// the tests of the ordinary path run again through the files created
// under their own names (see TestStagedPath).
var testStaged bool

// testNamed makes every Dir write files under temporary names, as on a
// file system without O_TMPFILE (the tests of that path; see
// TestNamedPath).
var testNamed bool

func newDir(dest string, opt DirOptions) (*Dir, error) {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return nil, err
	}
	return &Dir{root: root, opt: opt, names: osnames.NewNames(opt.Names), umask: processUmask(), temps: set{}, old: set{},
		dirMeta: map[string]dirMeta{}, links: map[string]string{},
		deps: map[string]set{}, linkDeps: map[string][]string{}, fds: map[string]*dirHandle{}}, nil
}

// WriteHeldInline splits the held files Put is given from now on by
// directory between Put itself, which writes them as any other file, and
// one writer goroutine (see toWriter), instead of handing them all to
// the writer pool: for a stream whose decoder runs on a goroutine of its
// own (a tar.zst or tar.gz decoded ahead: formats.Archive.DecodedAhead),
// where more writers only compete with the decoder for the cores and
// their hand-offs cost more than they overlap.
func (d *Dir) WriteHeldInline() { d.inline.Store(true) }

// Stripped is how many entries had a leading "/" or drive letter removed
// from their names (the caller warns once per archive).
func (d *Dir) Stripped() int64 { return d.stripped.Load() }

// Put writes one entry. Names are checked with CleanName and the target
// system's name policy; a refused entry returns an ErrInsecurePath error
// and leaves nothing behind.
func (d *Dir) Put(e *archive.Entry, r io.Reader) error {
	return insecure(d.put(e, r))
}

func (d *Dir) put(e *archive.Entry, r io.Reader) error {
	stored, stripped := StripAbsolute(e.Name)
	if stripped {
		d.stripped.Add(1)
	}
	name, err := CleanName(stored)
	if err != nil {
		return err
	}
	if name == "" {
		if e.Type == archive.TypeDir {
			return nil
		}
		return fmt.Errorf("%w: empty name", ErrInsecurePath)
	}
	// The target system's name policy, before anything is made: names it
	// cannot hold are renamed (or refused), names it would store as one
	// file are the archive contradicting itself.
	fixed, warn, err := d.opt.Names.Check(name)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInsecurePath, err)
	}
	if err := d.names.Claim(name, fixed, e.Type == archive.TypeDir); err != nil {
		return err
	}
	if warn != "" && d.opt.Warn != nil {
		d.opt.Warn(e.Name, warn)
	}
	name = fixed
	p, err := d.resolveParent(name)
	if err != nil {
		return err
	}
	switch e.Type {
	case archive.TypeFile, archive.TypeSymlink, archive.TypeHardlink:
		// A later entry of a name is the file, as in tar.
		if err := d.supersede(p); err != nil {
			return err
		}
	}
	switch e.Type {
	case archive.TypeDir:
		return d.putDir(p, e)
	case archive.TypeFile:
		return d.putFile(p, e, r)
	case archive.TypeSymlink:
		return d.putSymlink(p, e)
	case archive.TypeHardlink:
		return d.putHardlink(p, e)
	}
	what := e.Device
	if what == "" {
		what = "special file"
	}
	return fmt.Errorf("%w: %s not extracted", ErrSkipped, what)
}

// insecure turns os.Root's refusal of a path that leaves it (through a
// link already on disk) into a refused path.
func insecure(err error) error {
	if err == nil || errors.Is(err, ErrInsecurePath) {
		return err
	}
	if e := errEscapes(); e != nil && errors.Is(err, e) {
		return fmt.Errorf("%w: %v", ErrInsecurePath, err)
	}
	return err
}

// errEscapes is the error os.Root gives for a path that leaves it; os does
// not export it, so it is taken from a root asked for its parent, on the
// first error (not at process start: that costs an open and a stat).
var errEscapes = sync.OnceValue(func() error {
	r, err := os.OpenRoot(os.TempDir())
	if err != nil {
		return nil
	}
	defer r.Close()
	_, err = r.Lstat("..")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return nil
})

// resolveParent returns name with its directory resolved through the links
// on disk now: where the entry lands, whatever links are made later.
func (d *Dir) resolveParent(name string) (string, error) {
	dir, base := path.Split(name)
	if dir == "" {
		return name, nil
	}
	// A clean name (see CleanName) under a directory known as such
	// resolves to itself: each of its ancestors is one too, and stays one.
	if d.isDir(dir[:len(dir)-1]) {
		return name, nil
	}
	r, err := d.resolve("", dir, nil)
	if err != nil {
		return "", describeEscape(strings.TrimSuffix(dir, "/"), err)
	}
	return join(r, base), nil
}

func join(dir, base string) string {
	if dir == "" {
		return base
	}
	return dir + "/" + base
}

func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// mine reports whether fi, found at p, is what this extraction made there.
// fi may predate the record: a file seen while a writer was still writing
// it (claimed then) and settled since, as what it was written as. So when
// fi does not match, p is looked at again under the lock, where the record
// and the file agree.
func (d *Dir) mine(p string, fi fs.FileInfo) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.recs.made(p)
	if !ok {
		return false
	}
	if m.same(fi) {
		return true
	}
	now, err := d.lstat(p)
	return err == nil && m.same(now)
}

// mkParent makes the missing directories of the resolved path p.
func (d *Dir) mkParent(p string) error {
	dir := parent(p)
	if dir == "" || d.isDir(dir) {
		return nil
	}
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		q := dir[:i]
		if d.isDir(q) {
			continue
		}
		fi, err := d.lstat(q)
		if err == nil && fi.IsDir() {
			d.dirs.Store(q, true)
			continue
		}
		if err == nil {
			if d.mine(q, fi) {
				// The archive contradicts itself, in whichever order.
				return archive.Corruptf("%s is a %s extracted from this archive, not a directory", q, kind(fi))
			}
			if d.opt.Policy == Skip {
				return fmt.Errorf("%w: %s is a %s, not a directory", ErrSkipped, q, kind(fi))
			}
			return fmt.Errorf("%w: %s is a %s, not a directory", ErrExists, q, kind(fi))
		}
		if _, err := d.mkdir(q); err != nil {
			fi, serr := d.lstat(q)
			switch {
			case serr != nil:
				return err
			case fi.IsDir():
				d.dirs.Store(q, true)
				continue // made by a concurrent entry
			case d.mine(q, fi):
				return archive.Corruptf("%s is a %s extracted from this archive, not a directory", q, kind(fi))
			}
			return err
		}
	}
	return nil
}

// mkdir makes the directory p and records it as this extraction's, in one
// step under the lock: a concurrent entry that finds it in its way sees it
// as the archive's own (the archive contradicting itself), never as one
// that was there before.
func (d *Dir) mkdir(p string) (fs.FileInfo, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fi, err := d.mkdirAt(p)
	if err != nil {
		return nil, err
	}
	d.recs.setMade(p, identOf(fi))
	d.dirs.Store(p, true)
	return fi, nil
}

func kind(fi fs.FileInfo) string {
	switch {
	case fi.IsDir():
		return "directory"
	case fi.Mode()&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "file"
}

func (d *Dir) putDir(p string, e *archive.Entry) error {
	if d.stagedFree(p) {
		// Made without a look first (the look if it is there after all).
		if err := d.putNewDir(p, e); !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	fi, err := d.lstat(p)
	switch {
	case err == nil && fi.IsDir():
		d.dirs.Store(p, true)
		// An existing directory keeps its metadata unless Overwrite; one
		// this extraction made takes the last entry's.
		if d.mine(p, fi) || d.opt.Policy == Overwrite {
			d.setDirMeta(p, e, fi)
		}
		return nil
	case err == nil:
		if d.mine(p, fi) {
			return archive.Corruptf("already exists: a %s extracted from this archive is in the way", kind(fi))
		}
		if err := d.replaceable(p); err != nil {
			return err
		}
		if err := d.root.Remove(p); err != nil {
			return err
		}
	}
	return d.putNewDir(p, e)
}

// putNewDir makes the directory p, found free.
func (d *Dir) putNewDir(p string, e *archive.Entry) error {
	if err := d.mkParent(p); err != nil {
		return err
	}
	fi, err := d.mkdir(p)
	if err != nil {
		if fi, serr := d.lstat(p); serr == nil && !fi.IsDir() && d.mine(p, fi) {
			return archive.Corruptf("already exists: a %s extracted from this archive is in the way", kind(fi))
		}
		return err
	}
	d.setDirMeta(p, e, fi)
	return d.recheck(p)
}

// setDirMeta records the mode and time Close gives the directory p (fi).
// Until then it stays writable, whatever the entry says. Those of a
// Pending entry wait for its verdict (a failed one drops them).
func (d *Dir) setDirMeta(p string, e *archive.Entry, fi fs.FileInfo) {
	m := dirMeta{mode: d.perm(e.Mode, 0o755), info: identOf(fi), had: fi.Mode() & modeBits}
	if !d.opt.NoTimes {
		m.mtime = e.ModTime
	}
	d.mu.Lock()
	d.dirMeta[p] = m
	if e.Pending {
		d.held.put(keyOf(e), &hold{name: p, dir: true})
	}
	d.mu.Unlock()
}

// replaceable decides, per policy, whether an existing path that this
// extraction did not make may be replaced. It returns ErrSkipped for Skip
// and ErrExists for Refuse.
func (d *Dir) replaceable(p string) error {
	switch d.opt.Policy {
	case Overwrite:
		return nil
	case Skip:
		return fmt.Errorf("%w: %s exists", ErrSkipped, p)
	}
	return ErrExists
}

// checkTarget decides whether p may be replaced: a file or link this
// extraction made may (a later entry of the same name), anything else only
// per policy, a directory never.
func (d *Dir) checkTarget(p string) error {
	fi, err := d.lstat(p)
	if err != nil {
		return nil
	}
	return d.targetVerdict(p, fi, d.mine(p, fi))
}

// targetVerdict is checkTarget's decision on fi, found at p (mine: what
// this extraction made there).
func (d *Dir) targetVerdict(p string, fi fs.FileInfo, mine bool) error {
	if fi.IsDir() {
		if mine {
			// The archive holds a directory and a non-directory of one name.
			return archive.Corruptf("already exists: a directory extracted from this archive is in the way")
		}
		return fmt.Errorf("%w: a directory is in the way", ErrExists)
	}
	if mine {
		return nil
	}
	return d.replaceable(p)
}

func tempName(p string) string {
	var b [6]byte
	rand.Read(b[:])
	return join(parent(p), ".unpack-"+hex.EncodeToString(b[:])+".tmp")
}

func (d *Dir) putFile(p string, e *archive.Entry, r io.Reader) error {
	if !d.free(p) {
		if err := d.checkTarget(p); err != nil {
			return err
		}
	}
	if err := d.mkParent(p); err != nil {
		return err
	}
	perm := d.perm(e.Mode, 0o644)
	if d.queueable(p, e) {
		return d.putQueued(p, e, r, perm)
	}
	var held *hold // a Pending file's, claimed with its path
	if e.Pending && d.staged() {
		held = new(hold)
	}
	switch f, exact, err := d.createDirect(p, perm, held); {
	case err == nil:
		return d.writeDirect(p, e, r, f, perm, exact, held)
	case !errors.Is(err, errNoFastPath):
		return err
	}
	// A Pending file waits for its verdict under a temporary name; any
	// other is committed when its data ends (unnamed until then where
	// the system allows it).
	f, exact, err := d.create(p, perm, e.Pending)
	if err != nil {
		return err
	}
	if f.tmp != "" {
		d.track(f.tmp, true)
	}
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
	return d.finishFile(p, e, f, perm, exact, err)
}

// finishFile completes the file f for the resolved path p whose data was
// written (err: how that went): its mode, times and identity, then its
// commit, or its hold when Pending.
func (d *Dir) finishFile(p string, e *archive.Entry, f *wfile, perm fs.FileMode, exact bool, err error) error {
	var info ident
	if err == nil {
		info, err = d.fileMeta(e, f, perm, exact)
	}
	if f.tmp == "" {
		// Unnamed: named (committed, or kept as broken) before the
		// descriptor closes, which else takes the file with it.
		if err != nil {
			err = d.discardUnnamed(f, p, err)
			f.Close()
			return err
		}
		err = d.placeUnnamed(f, p, info)
		if cerr := f.Close(); err == nil && cerr != nil {
			d.unplace(p, info)
			err = cerr
		}
		return err
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return d.discard(f.tmp, p, err)
	}
	if e.Pending {
		d.mu.Lock()
		h := &hold{name: p, tmp: f.tmp, info: info}
		d.held.put(keyOf(e), h)
		d.recs.setHeld(p, h)
		d.mu.Unlock()
		return nil
	}
	return d.place(f.tmp, p, info)
}

// fileMeta gives the file f, whose data was written, its mode (unless
// created with it: exact), times and quarantine, and returns the identity
// it is recorded by.
func (d *Dir) fileMeta(e *archive.Entry, f *wfile, perm fs.FileMode, exact bool) (ident, error) {
	if !exact {
		if err := f.Chmod(perm); err != nil {
			return ident{}, err
		}
	}
	var mtime time.Time
	if !e.ModTime.IsZero() && !d.opt.NoTimes {
		at := e.AccessTime
		if at.IsZero() {
			at = e.ModTime
		}
		if err := f.setTimes(at, e.ModTime); err != nil {
			return ident{}, err
		}
		mtime = e.ModTime
	}
	if len(d.opt.Quarantine) > 0 {
		if err := f.quarantine(d.opt.Quarantine); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			return ident{}, err
		}
	}
	return f.ident(mtime) // the identity of the file written
}

// placeUnnamed commits the unnamed file f (info) as p: linked there if p
// is free; else, through a temporary name, as any file (the policy
// decides).
func (d *Dir) placeUnnamed(f *wfile, p string, info ident) error {
	d.mu.Lock()
	if d.aborted.Load() {
		d.mu.Unlock()
		return errAborted
	}
	err := d.linkAs(f, p)
	if err == nil {
		d.recs.setMade(p, info)
		delete(d.links, p)
	}
	d.mu.Unlock()
	if err == nil {
		return d.recheck(p)
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	tmp := tempName(p)
	if err := d.linkAs(f, tmp); err != nil {
		return err
	}
	d.track(tmp, true)
	return d.placeOver(tmp, p, info)
}

// discardUnnamed disposes of the unnamed file f whose data failed with
// err: with KeepBroken named NAME.broken, else left to go with its
// descriptor. It returns err.
func (d *Dir) discardUnnamed(f *wfile, p string, err error) error {
	if !d.opt.KeepBroken || isIOError(err) {
		return err
	}
	tmp := tempName(p)
	if lerr := d.linkAs(f, tmp); lerr != nil {
		return fmt.Errorf("%w (not kept as %s.broken: %v)", err, p, lerr)
	}
	d.track(tmp, true)
	return d.discard(tmp, p, err)
}

// unplace removes p, committed as info, when it is still that file.
func (d *Dir) unplace(p string, info ident) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if fi, err := d.root.Lstat(p); err == nil && info.same(fi) {
		d.root.Remove(p)
		d.recs.unmake(p)
	}
}

// free reports whether p is known to be free without a look: its directory
// was made by this extraction, which has put nothing at p.
func (d *Dir) free(p string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	dir := parent(p)
	_, madeDir := d.recs.made(dir)
	_, taken := d.recs.made(p)
	return dir != "" && madeDir && !taken
}

// place commits tmp (info) as p, or removes it when that fails.
func (d *Dir) place(tmp, p string, info ident) error {
	return d.placed(tmp, p, d.commit(tmp, p, info))
}

// placeOver is place for a path p seen to exist a moment ago.
func (d *Dir) placeOver(tmp, p string, info ident) error {
	return d.placed(tmp, p, d.commitOver(tmp, p, info))
}

// placed ends place: tmp removed if its commit failed (err).
func (d *Dir) placed(tmp, p string, err error) error {
	if err != nil && !errors.Is(err, errStranded) {
		d.root.Remove(tmp)
	}
	d.track(tmp, false)
	if err == nil {
		err = d.recheck(p)
	}
	return err
}

// discard disposes of a file whose data failed with err: removed, or with
// KeepBroken kept as NAME.broken (never under its own name, where it would
// look whole). It returns err.
func (d *Dir) discard(tmp, p string, err error) error {
	if d.opt.KeepBroken && !isIOError(err) {
		fi, serr := d.root.Lstat(tmp)
		if serr == nil {
			serr = d.place(tmp, p+".broken", identOf(fi))
		}
		if serr != nil {
			return fmt.Errorf("%w (not kept as %s.broken: %v)", err, p, serr)
		}
		return err
	}
	d.root.Remove(tmp)
	d.track(tmp, false)
	return err
}

// commit renames tmp, whose identity is info, onto p, checking the policy
// again in case p appeared meanwhile, and records what p now is.
func (d *Dir) commit(tmp, p string, info ident) error {
	d.mu.Lock()
	err := d.renameNew(tmp, p)
	if err == nil {
		d.recs.setMade(p, info)
		delete(d.links, p)
	}
	d.mu.Unlock()
	if err == nil {
		return nil
	}
	return d.commitOver(tmp, p, info)
}

// commitOver is commit once p was found to exist (or the fast rename is
// not there): the policy decides.
func (d *Dir) commitOver(tmp, p string, info ident) error {
	if err := d.checkTarget(p); err != nil {
		return err
	}
	if testBeforeReplace != nil {
		testBeforeReplace(p)
	}
	// The replacement and its record are one step under the lock, so that
	// a concurrent entry whose parent directory cannot be made (this file
	// is in the way) sees the file as this extraction's, and so that Abort
	// never sees the file replaced under the temporary name.
	d.mu.Lock()
	replaced, err := d.replace(tmp, p)
	if replaced {
		d.recs.setMade(p, info)
		delete(d.links, p)
	}
	_, reap := d.old[tmp]
	d.mu.Unlock()
	if reap {
		d.reap(tmp)
	}
	if err != nil && !replaced {
		// Another entry may have made a directory of this name since the
		// check above: the archive contradicts itself.
		if cerr := d.checkTarget(p); cerr != nil {
			return cerr
		}
	}
	return err
}

// replace puts tmp in place of the existing p (d.mu held). Where the
// system can, the two names are exchanged (renameat2 RENAME_EXCHANGE:
// readers see the old file or the new one at p, never neither), and what
// was at p, now under the temporary name, is reaped (see reap.go) if it
// is what the policy lets go, else put back: the decision is made on the
// file actually replaced, not on what checkTarget saw before. A rename
// onto the existing name would be one call, but ext4 (auto_da_alloc)
// starts writing the new file's data out before a rename that replaces a
// name returns, and frees the old file's blocks on the way, where an
// exchange leaves both for later. Where the exchange is refused, a rename.
func (d *Dir) replace(tmp, p string) (replaced bool, err error) {
	err = d.exchange(tmp, p)
	if errors.Is(err, errNoFastPath) {
		err = d.root.Rename(tmp, p)
		return err == nil, err
	}
	if err != nil {
		return false, err
	}
	old, err := d.lstat(tmp)
	if err == nil {
		m, ok := d.recs.made(p)
		err = d.targetVerdict(p, old, ok && m.same(old))
	}
	if err != nil {
		if berr := d.exchange(tmp, p); berr != nil {
			return true, fmt.Errorf("%w: %s is left as %s: %v (after %w)", errStranded, p, tmp, berr, err)
		}
		return false, err
	}
	d.old[tmp] = struct{}{} // the caller has it reaped
	return true, nil
}

// errStranded fails a replacement whose old file could not be put back:
// it is under the temporary name, which is then not removed.
var errStranded = errors.New("the file replaced was not put back")

// testBeforeReplace, when set, is called between the policy check of an
// existing path and its replacement (the tests' changes in between).
var testBeforeReplace func(p string)

// errAborted fails a file whose data ended after Abort.
var errAborted = errors.New("interrupted")

// isIOError reports whether err came from the destination rather than the
// data (then there is nothing worth keeping).
func isIOError(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe)
}

// perm is the mode an entry's file or directory gets: the entry's bits (def
// when it has none), without setuid/setgid unless KeepSetID, through the
// umask (GNU tar's rule: root keeps the archive's modes).
func (d *Dir) perm(m fs.FileMode, def fs.FileMode) fs.FileMode {
	p := m & modeBits
	if p&fs.ModePerm == 0 {
		p |= def
	}
	if !d.opt.KeepSetID {
		p &^= fs.ModeSetuid | fs.ModeSetgid
	}
	return p &^ d.umask
}

// modeBits are the bits of a mode that chmod sets.
const modeBits = fs.ModePerm | fs.ModeSticky | fs.ModeSetuid | fs.ModeSetgid

func (d *Dir) track(tmp string, add bool) {
	d.mu.Lock()
	if add {
		d.temps[tmp] = struct{}{}
	} else {
		delete(d.temps, tmp)
	}
	d.mu.Unlock()
}

// removeTemps removes the temporary files in flight or held, and the
// files being written or held under their own names in a stage (claimed
// in made: see staged.go); d.mu is held.
func (d *Dir) removeTemps() {
	for tmp := range d.temps {
		d.root.Remove(tmp)
	}
	d.recs.eachClaimed(func(p string) { d.root.Remove(p) })
}

// Abort removes every temporary file in flight or held; used on interrupt.
func (d *Dir) Abort() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.aborted.Store(true)
	d.removeTemps()
	for tmp := range d.old {
		d.unlink(tmp)
	}
}

// UnsettledError names the entries Close removed because their reader
// never settled them (so they were never verified).
type UnsettledError struct {
	Entries []string // sorted
}

func (e *UnsettledError) Error() string {
	return fmt.Sprintf("removed %d entries never verified (not settled): %s", len(e.Entries), strings.Join(e.Entries, ", "))
}

// Close removes the entries still held (never settled, so never verified),
// checks once more that every symlink made resolves inside (removing any
// that does not), applies directory modes and times, deepest first as
// GNU tar does, to the directories that are still the ones recorded, and
// closes the root. Its error names what it removed.
func (d *Dir) Close() error {
	d.stopWriters()
	d.closing.flush()
	rerr := d.stopReaper()
	d.mu.Lock()
	var unsettled []string
	d.held.each(func(k heldKey, h *hold) {
		d.closeHeld(h.job)
		switch {
		case h.dir:
			delete(d.dirMeta, h.name) // never verified
		case h.file() == nil || h.state == waiting:
			unsettled = append(unsettled, k.name(h))
		}
	})
	d.removeTemps()
	d.held.reset()
	d.recs.clearHeld()
	clear(d.temps)
	links := make([]string, 0, len(d.links))
	for l := range d.links {
		links = append(links, l)
	}
	d.mu.Unlock()
	errs := []error{rerr}
	if len(unsettled) > 0 {
		sort.Strings(unsettled)
		errs = append(errs, &UnsettledError{Entries: unsettled})
	}
	sort.Strings(links)
	errs = append(errs, d.recheckLinks(links))
	d.finishLinks(links)
	d.applyDirMeta()
	d.closeFDs()
	errs = append(errs, d.root.Close())
	return errors.Join(errs...)
}

func (d *Dir) applyDirMeta() {
	// Deepest first (a parent's times after its children are made), each
	// name's depth counted once.
	type dirAt struct {
		name  string
		depth int
	}
	dirs := make([]dirAt, 0, len(d.dirMeta))
	for n := range d.dirMeta {
		dirs = append(dirs, dirAt{n, strings.Count(n, "/")})
	}
	slices.SortFunc(dirs, func(a, b dirAt) int {
		if a.depth != b.depth {
			return cmp.Compare(b.depth, a.depth)
		}
		return strings.Compare(a.name, b.name)
	})
	for _, at := range dirs {
		n := at.name
		m := d.dirMeta[n]
		// In a stage a directory made stays the one its handle holds
		// (none is replaced, nothing else writes there).
		if d.opt.Staged && d.setDirMetaByHandle(n, m) {
			continue
		}
		if fi, err := d.lstat(n); err != nil || !fi.IsDir() || !m.info.same(fi) {
			continue // no longer the directory the entry made or named
		}
		d.setDirMetaOn(n, m)
	}
}
