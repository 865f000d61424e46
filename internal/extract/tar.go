package extract

import (
	gotar "archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/spool"
)

// Tar writes the entries as a POSIX pax tar stream (names, modes, times,
// links) to W: any archive can feed a tar-only tool. An entry of unknown
// size is spooled to a temporary file first (package spool: bounded by
// the free space). Data is verified as it goes: once an entry fails, the
// stream is left without its end marker, so that the reader on the other
// side sees a damaged archive rather than a whole one.
//
// The stream is held to the rules the directory sink keeps on disk, for
// the tar reader that will extract it: setuid and setgid bits are dropped
// unless KeepSetID; a symlink whose target, resolved through the symlinks
// emitted before it, leaves the root is refused; so is any entry whose
// path (or hard link's target) passes through, or replaces, an emitted
// symlink, which the reader would write through. Refused entries are left
// out of the stream (ErrInsecurePath), the others still go in.
type Tar struct {
	tw       *gotar.Writer
	opt      TarOptions
	failed   bool
	symlinks map[string]string // emitted symlinks: clean name → target
	// watch maps a path looked up while resolving an emitted symlink whose
	// target holds ".." to those symlinks: a symlink emitted later at that
	// path changes their resolution, so they are resolved again.
	watch map[string]map[string]bool
}

// TarOptions are the choices of a Tar sink.
type TarOptions struct {
	KeepSetID bool // keep setuid/setgid bits
}

// NewTar returns a Tar sink writing to w.
func NewTar(w io.Writer, opt TarOptions) *Tar {
	return &Tar{tw: gotar.NewWriter(w), opt: opt, symlinks: map[string]string{}, watch: map[string]map[string]bool{}}
}

// errTarStopped is returned for the entries after a failed one.
var errTarStopped = fmt.Errorf("not written: the tar stream was stopped at an earlier failure")

// maxLinkHops bounds how many symlinks one resolution follows, as the
// kernel's ELOOP does (40 on Linux).
const maxLinkHops = 40

// Put writes one entry.
func (t *Tar) Put(e *archive.Entry, r io.Reader) error {
	if t.failed {
		return errTarStopped
	}
	name, err := CleanName(e.Name)
	if err != nil {
		return err
	}
	if err := t.throughSymlink(name, "path"); err != nil {
		return err
	}
	if name == "" && e.Type != archive.TypeDir {
		return fmt.Errorf("%w: a %s in place of the root", ErrInsecurePath, e.Type)
	}
	h := &gotar.Header{Name: name, ModTime: e.ModTime, AccessTime: e.AccessTime, Format: gotar.FormatPAX,
		Mode: int64(e.Mode.Perm())}
	if e.Mode&fs.ModeSetuid != 0 && t.opt.KeepSetID {
		h.Mode |= 0o4000
	}
	if e.Mode&fs.ModeSetgid != 0 && t.opt.KeepSetID {
		h.Mode |= 0o2000
	}
	if e.Mode&fs.ModeSticky != 0 {
		h.Mode |= 0o1000
	}
	switch e.Type {
	case archive.TypeDir:
		h.Typeflag, h.Name = gotar.TypeDir, name+"/"
		if h.Mode == 0 {
			h.Mode = 0o755
		}
	case archive.TypeSymlink:
		h.Typeflag, h.Linkname = gotar.TypeSymlink, e.Linkname
		if _, err := CleanLinkTarget(name, e.Linkname); err != nil {
			return err
		}
		if err := t.addSymlink(name, e.Linkname); err != nil {
			return err
		}
		h.Mode = 0o777
	case archive.TypeHardlink:
		old, err := CleanName(e.Linkname)
		if err != nil {
			return err
		}
		if err := t.throughSymlink(old, "hard link target"); err != nil {
			return err
		}
		h.Typeflag, h.Linkname = gotar.TypeLink, old
	case archive.TypeFile:
		h.Typeflag = gotar.TypeReg
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		return t.putFile(h, e.Size, r)
	default:
		return fmt.Errorf("%w: %s not written", ErrSkipped, e.Device)
	}
	if name == "" {
		return nil // the root itself: nothing to emit
	}
	if err := t.tw.WriteHeader(h); err != nil {
		t.failed = true
		return err
	}
	return nil
}

// Why Tar refused an entry (each wrapped in an ErrInsecurePath error that
// names the entry).
var (
	errReplacesSymlink = errors.New("replaces a symlink emitted earlier")
	errThroughSymlink  = errors.New("passes through the symlink")
	errLeavesRoot      = errors.New("leaves the root through the symlinks emitted before it")
	errEarlierLeaves   = errors.New("would make a symlink emitted earlier leave the root")
	errLinkHops        = fmt.Errorf("more than %d symlinks in a row", maxLinkHops)
)

// addSymlink admits a symlink at name to target into the model, or
// refuses it: when its target leaves the root, or when it would make a
// symlink emitted earlier leave it (a -> ../b/.. stays inside while b is
// a directory, not once b -> . exists).
func (t *Tar) addSymlink(name, target string) error {
	if err := t.resolve(name, target); err != nil {
		return err
	}
	t.symlinks[name] = target
	for earlier := range t.watch[name] {
		if err := t.resolve(earlier, t.symlinks[earlier]); err != nil {
			delete(t.symlinks, name)
			return fmt.Errorf("%w: symlink %q %w: %q", ErrInsecurePath, name, errEarlierLeaves, earlier)
		}
	}
	return nil
}

// throughSymlink refuses a clean path that is, or lies below, a symlink
// emitted before: a tar reader would follow it (GNU tar keeps an existing
// symlink to a directory and writes through it).
func (t *Tar) throughSymlink(p, what string) error {
	if len(t.symlinks) == 0 || p == "" {
		return nil
	}
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if _, ok := t.symlinks[p[:i]]; ok {
			if i == len(p) {
				return fmt.Errorf("%w: %s %q %w", ErrInsecurePath, what, p, errReplacesSymlink)
			}
			return fmt.Errorf("%w: %s %q %w %q emitted earlier", ErrInsecurePath, what, p, errThroughSymlink, p[:i])
		}
	}
	return nil
}

// resolve follows a symlink at name (whose path holds no symlink) to
// target through the symlinks emitted so far, as the file system of the
// tar's reader will, and refuses it when it leaves the root at any step
// or takes more than maxLinkHops symlinks.
//
// A target holding ".." is watched (see Tar.watch): every path its
// resolution looks up is recorded. One without ".." only descends, or
// follows symlinks that themselves stay inside, so it cannot leave while
// the watched ones do not.
func (t *Tar) resolve(name, target string) error {
	dir := strings.Split(name, "/")
	dir = dir[:len(dir)-1]
	hops := 0
	var looked []string
	var walk func(dir []string, target string) ([]string, error)
	walk = func(dir []string, target string) ([]string, error) {
		cur := append([]string(nil), dir...)
		for _, seg := range strings.Split(target, "/") {
			switch seg {
			case "", ".":
				continue
			case "..":
				if len(cur) == 0 {
					return nil, fmt.Errorf("%w: symlink %q: target %q %w", ErrInsecurePath, name, target, errLeavesRoot)
				}
				cur = cur[:len(cur)-1]
				continue
			}
			cur = append(cur, seg)
			p := strings.Join(cur, "/")
			looked = append(looked, p)
			next, ok := t.symlinks[p]
			if !ok {
				continue
			}
			if hops++; hops > maxLinkHops {
				return nil, fmt.Errorf("%w: symlink %q: %w", ErrInsecurePath, name, errLinkHops)
			}
			var err error
			if cur, err = walk(cur[:len(cur)-1], next); err != nil {
				return nil, err
			}
		}
		return cur, nil
	}
	if _, err := walk(dir, target); err != nil {
		return err
	}
	if !slices.Contains(strings.Split(target, "/"), "..") {
		return nil
	}
	for _, p := range looked {
		if t.watch[p] == nil {
			t.watch[p] = map[string]bool{}
		}
		t.watch[p][name] = true
	}
	return nil
}

func (t *Tar) putFile(h *gotar.Header, size int64, r io.Reader) error {
	if size < 0 {
		sp, err := spool.Create(0)
		if err != nil {
			return err
		}
		defer sp.Close()
		if _, err := sp.ReadFrom(r); err != nil {
			t.failed = true
			return err
		}
		size, r = sp.Size(), sp.Reader()
	}
	h.Size = size
	if err := t.tw.WriteHeader(h); err != nil {
		t.failed = true
		return err
	}
	n, err := archive.Copy(t.tw, r)
	if err == nil && n != size {
		err = archive.Corruptf("entry has %d bytes, its header says %d", n, size)
	}
	if err != nil {
		t.failed = true
	}
	return err
}

// Close writes the end marker, unless an entry failed.
func (t *Tar) Close() error {
	if t.failed {
		return nil
	}
	return t.tw.Close()
}

// Settle cannot take back an entry already in the stream; a failed verdict
// stops the stream as a failed entry does.
func (t *Tar) Settle(_ *archive.Entry, err error) error {
	if err != nil {
		t.failed = true
	}
	return err
}
