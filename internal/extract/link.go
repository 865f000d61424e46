package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
)

// maxLinks is how many symlinks one resolution follows (Linux's limit):
// past it the path resolves to nothing, as ELOOP.
const maxLinks = 40

// errLoop reports a path with more than maxLinks symlinks.
var errLoop = errors.New("too many levels of symbolic links")

// TargetError is a hard link refused, or failed, for its target, which it
// names: "hard link target "T": why", or for a refusal "insecure path: hard
// link target "T": why", as every refusal's text starts.
type TargetError struct {
	Target string // as the archive names it
	Err    error  // why: an ErrInsecurePath error, errThereBefore…
}

func (e *TargetError) Error() string {
	s := "hard link target " + strconv.Quote(e.Target) + ": "
	if errors.Is(e.Err, ErrInsecurePath) {
		prefix := ErrInsecurePath.Error() + ": "
		return prefix + s + strings.TrimPrefix(e.Err.Error(), prefix)
	}
	return s + e.Err.Error()
}

func (e *TargetError) Unwrap() error { return e.Err }

// Why a hard link's target was not linked to.
var (
	errNotRegular   = fmt.Errorf("%w: not a regular file", ErrInsecurePath)
	errNotExtracted = errors.New("not extracted")
	errThereBefore  = errors.New("not extracted: it was there before")
)

// escapeError reports a path that resolves outside the destination; via
// names the link on disk it left through, if any.
type escapeError struct{ via string }

func (e *escapeError) Error() string {
	if e.via == "" {
		return "resolves outside the destination"
	}
	return "resolves outside the destination through " + e.via
}

func (e *escapeError) Unwrap() error { return ErrInsecurePath }

// describeEscape says what resolved outside: "insecure path: WHAT resolves
// outside the destination [through LINK → TARGET]".
func describeEscape(what string, err error) error {
	var e *escapeError
	if errors.As(err, &e) {
		return fmt.Errorf("%w: %s %v", ErrInsecurePath, what, e)
	}
	return err
}

// resolve returns the path, relative to the root ("" for the root), that
// rel names on disk now when taken from the resolved directory start,
// following every symlink, the last component's too. Once a component is
// missing, or a file with more to follow, the rest is taken as text. A
// path that rises above the root, or meets an absolute link, is an
// ErrInsecurePath error (an *escapeError). When seen is not nil, the
// paths whose change could change the result are added to it: every
// component that was not a directory (a link followed, a file, the first
// one missing; what lies below a missing one is below it). Directories
// need not be: none is ever replaced during an extraction (see isDir).
func (d *Dir) resolve(start, rel string, seen *[]string) (string, error) {
	var cur []string
	if start != "" {
		cur = strings.Split(start, "/")
	}
	rest := strings.Split(rel, "/")
	links, text := 0, false
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", &escapeError{}
			}
			cur = cur[:len(cur)-1]
			continue
		}
		cur = append(cur, c)
		if text {
			continue
		}
		q := strings.Join(cur, "/")
		if d.isDir(q) {
			continue
		}
		if seen != nil {
			*seen = append(*seen, q)
		}
		fi, err := d.root.Lstat(q)
		if err == nil && fi.IsDir() {
			d.dirs.Store(q, true)
			continue
		}
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			text = true
			continue
		}
		if links++; links > maxLinks {
			return "", errLoop
		}
		t, err := d.root.Readlink(q)
		if err != nil {
			text = true
			continue
		}
		t = filepath.ToSlash(t)
		if absTarget(t) {
			return "", &escapeError{via: q + " → " + t}
		}
		cur = cur[:len(cur)-1]
		rest = append(strings.Split(t, "/"), rest...)
	}
	return strings.Join(cur, "/"), nil
}

// isDir reports whether q is known to be a directory (not a link to one).
// Once seen, a directory stays one for the whole extraction: no entry
// replaces a directory (checkTarget, putDir), so this needs no new look.
func (d *Dir) isDir(q string) bool {
	// The entries of a directory come in a run: its name is kept from
	// the last hit (dirs only grows, so a name once in it stays).
	if last := d.lastDir.Load(); last != nil && *last == q {
		return true
	}
	_, ok := d.dirs.Load(q)
	if ok {
		last := q // allocated here only, not on every call
		d.lastDir.Store(&last)
	}
	return ok
}

// absTarget reports whether a link target is absolute on some OS: a
// leading slash or backslash, or a drive letter.
func absTarget(t string) bool {
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, `\`) ||
		len(t) >= 2 && t[1] == ':' && isLetter(t[0])
}

// putSymlink makes a symlink at the resolved path p. Its target must stay
// inside as text (CleanLinkTarget) and as resolved against the disk now,
// following the links already there. A link whose target is missing today
// can be turned outside by a link made later (l → s/.., then s → .): every
// link made records the paths its resolution looked at, and each commit
// re-resolves the links that looked at what it changed (recheck), so that
// every link this extraction made resolves inside at every moment.
func (d *Dir) putSymlink(p string, e *archive.Entry) error {
	target, err := CleanLinkTarget(p, e.Linkname)
	if err != nil && d.outsideAllowed(e.Linkname, err) {
		target, err = e.Linkname, nil
	}
	if err != nil {
		return err
	}
	if target, _, err = d.opt.Names.CheckLink(target); err != nil {
		return fmt.Errorf("%w: %w", ErrInsecurePath, err)
	}
	seen, err := d.linkInside(p, target)
	if err != nil && d.outsideAllowed(target, err) {
		seen, err = nil, nil // commitLink sees it leaves, and does not record it
	}
	if err != nil {
		return err
	}
	if err := d.checkTarget(p); err != nil {
		return err
	}
	if err := d.mkParent(p); err != nil {
		return err
	}
	tmp := tempName(p)
	if err := d.symlink(target, tmp); err != nil {
		return err
	}
	d.track(tmp, true)
	if !e.ModTime.IsZero() && !d.opt.NoTimes {
		at := e.AccessTime
		if at.IsZero() {
			at = e.ModTime
		}
		if err := d.setLinkTimes(tmp, at, e.ModTime); err != nil {
			d.drop(tmp)
			return err
		}
	}
	info, err := d.root.Lstat(tmp)
	if err != nil {
		d.drop(tmp)
		return err
	}
	if e.Pending {
		// Held like a file (as GNU tar makes its links last): an entry
		// through it meanwhile finds no link there.
		d.mu.Lock()
		h := &hold{name: p, tmp: tmp, info: identOf(info), link: &holdLink{target: target}}
		d.held.put(keyOf(e), h)
		d.recs.setHeld(p, h)
		d.mu.Unlock()
		return nil
	}
	return d.commitLink(tmp, p, target, identOf(info), seen)
}

// commitLink renames the temporary link tmp (info) to p, and records it.
// A link held until now is resolved again first (seen nil): the tree may
// have changed since it was put.
func (d *Dir) commitLink(tmp, p, target string, info ident, seen []string) error {
	var err error
	outside := false
	if seen == nil {
		seen, err = d.linkInside(p, target)
		if err != nil && d.outsideAllowed(target, err) {
			err, outside = nil, true
		}
	}
	if err == nil {
		err = d.commit(tmp, p, info)
	}
	if errors.Is(err, errStranded) {
		d.track(tmp, false) // the file it replaced, not the link
		return err
	}
	if err != nil {
		d.drop(tmp)
		return err
	}
	d.track(tmp, false)
	if !outside {
		// A link allowed to leave is not rechecked: it is known to leave,
		// and every path through it is refused (resolve).
		d.depend(p, target, seen)
	}
	return d.recheck(p)
}

// outsideAllowed reports whether --allow-outside-links lets a symlink to
// target be made although err says it leaves the destination: any target
// but an empty one or one holding a NUL byte.
func (d *Dir) outsideAllowed(target string, err error) bool {
	return d.opt.AllowOutsideLinks && errors.Is(err, ErrInsecurePath) && target != "" && !strings.ContainsRune(target, 0)
}

// linkInside checks that a link at p to target resolves inside, and
// returns the paths its resolution depends on.
func (d *Dir) linkInside(p, target string) ([]string, error) {
	var seen []string
	_, err := d.resolve(parent(p), target, &seen)
	if err == errLoop {
		return seen, nil // resolves to nothing (a link made later is rechecked)
	}
	return seen, describeEscape(fmt.Sprintf("symlink target %q", target), err)
}

// depend records the link this extraction made at p, to target, and the
// paths its resolution depends on (in place of what it depended on).
func (d *Dir) depend(p, target string, seen []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.links[p] = target
	for _, q := range d.linkDeps[p] {
		delete(d.deps[q], p)
	}
	for _, q := range seen {
		s := d.deps[q]
		if s == nil {
			s = set{}
			d.deps[q] = s
		}
		s[p] = struct{}{}
	}
	d.linkDeps[p] = seen
}

// recheck re-resolves the links this extraction made whose resolution
// looked at p or a directory above it, after p changed.
func (d *Dir) recheck(p string) error {
	d.mu.Lock()
	if len(d.deps) == 0 { // no link depends on anything
		d.mu.Unlock()
		return nil
	}
	var todo []string
	for q := p; q != ""; q = parent(q) {
		for l := range d.deps[q] {
			todo = append(todo, l)
		}
	}
	d.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	sort.Strings(todo)
	return d.recheckLinks(todo)
}

// recheckLinks removes those of the links (made by this extraction) that
// no longer resolve inside, and reports them as refused. A removal changes
// the tree in turn: the links that depended on a removed one are checked
// as well.
func (d *Dir) recheckLinks(todo []string) error {
	var errs []error
	done := set{}
	for len(todo) > 0 {
		l := todo[0]
		todo = todo[1:]
		if _, ok := done[l]; ok {
			continue
		}
		done[l] = struct{}{}
		d.mu.Lock()
		target, ok := d.links[l]
		d.mu.Unlock()
		if !ok {
			continue
		}
		seen, err := d.linkInside(l, target)
		if !errors.Is(err, ErrInsecurePath) {
			d.depend(l, target, seen)
			continue
		}
		if fi, lerr := d.root.Lstat(l); lerr == nil && d.mine(l, fi) {
			d.root.Remove(l)
		}
		d.mu.Lock()
		delete(d.links, l)
		d.recs.unmake(l)
		for _, q := range d.linkDeps[l] {
			delete(d.deps[q], l)
		}
		delete(d.linkDeps, l)
		for q := l; q != ""; q = parent(q) {
			for dep := range d.deps[q] {
				todo = append(todo, dep)
				delete(done, dep)
			}
		}
		d.mu.Unlock()
		errs = append(errs, fmt.Errorf("%w: symlink %s → %s made earlier now resolves outside the destination: removed", ErrInsecurePath, l, target))
	}
	return errors.Join(errs...)
}

// putHardlink links the resolved path p to an earlier entry: a regular
// file this extraction wrote (by identity), never one that was there
// before or lies outside.
func (d *Dir) putHardlink(p string, e *archive.Entry) error {
	old, err := CleanName(e.Linkname)
	if err == nil {
		// The target entry was renamed as this name is (it warned).
		old, _, err = d.opt.Names.Check(old)
	}
	if err == nil && old == "" {
		err = fmt.Errorf("%w: the destination itself", ErrInsecurePath)
	}
	if err == nil {
		old, err = d.resolveParent(old)
	}
	if err != nil {
		return &TargetError{Target: e.Linkname, Err: err} // the target's problem, named as such
	}
	if err := d.checkTarget(p); err != nil {
		return err
	}
	d.mu.Lock()
	file := d.recs.held(old)
	if file != nil && file.file() != nil {
		file = file.file() // a link to a held link is one to its file
	}
	d.mu.Unlock()
	if file != nil && file.target() != "" {
		return &TargetError{Target: e.Linkname, Err: errNotRegular}
	}
	if file != nil && e.Copy {
		return fmt.Errorf("copy of %q not made: its data is not verified yet", e.Linkname)
	}
	if file != nil {
		return d.holdHardlink(p, e, file)
	}
	fi, err := d.root.Lstat(old)
	switch {
	case err != nil:
		return &TargetError{Target: e.Linkname, Err: errNotExtracted}
	case !fi.Mode().IsRegular():
		return &TargetError{Target: e.Linkname, Err: errNotRegular}
	case !d.mine(old, fi) && d.opt.Policy == Skip:
		return &TargetError{Target: e.Linkname, Err: fmt.Errorf("%w: it was there before", ErrSkipped)}
	case !d.mine(old, fi):
		return &TargetError{Target: e.Linkname, Err: errThereBefore}
	}
	if e.Copy {
		return d.putCopy(p, old, e)
	}
	if err := d.mkParent(p); err != nil {
		return err
	}
	// The file gets a second link: known by its inode from here on.
	d.mu.Lock()
	d.recs.setMade(old, identOf(fi))
	d.mu.Unlock()
	tmp := tempName(p)
	if err := d.root.Link(old, tmp); err != nil {
		return err
	}
	d.track(tmp, true)
	return d.place(tmp, p, identOf(fi))
}

// putCopy writes p as an independent copy of the regular file this
// extraction wrote at the resolved path old (e.Copy), of e.Size bytes. The
// source is judged by the file opened, not by its name: if old is no
// longer that file (the archive re-pointed the name), nothing is read and
// the copy fails.
func (d *Dir) putCopy(p, old string, e *archive.Entry) error {
	src, err := d.root.Open(old)
	if err != nil {
		return fmt.Errorf("copy of %q not made: %w", e.Linkname, err)
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || !d.mine(old, fi) {
		return fmt.Errorf("%w: copy of %q not made: it is no longer the file extracted there", ErrInsecurePath, e.Linkname)
	}
	if fi.Size() != e.Size {
		// The record's size is what the limits were charged.
		return archive.Corruptf("copy of %q not made: the record gives %d bytes, the file extracted there has %d", e.Linkname, e.Size, fi.Size())
	}
	c := *e
	c.Type, c.Sparse = archive.TypeFile, nil
	return d.putFile(p, &c, src)
}
