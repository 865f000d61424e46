package extract

import (
	"errors"
	"fmt"

	"github.com/unpack-dev/unpack/internal/archive"
)

// hold is an entry written under a temporary name that waits for the
// verdict of the check covering its last byte (archive.Entry.Pending): a
// file, a hard link or a symlink; for a directory, which is made at once,
// only its mode and times wait.
type hold struct {
	name string // resolved path it goes to; "" once a later entry took it
	tmp  string
	info ident
	job  *writeJob // its write by the pool, when queued (see wait)
	link *holdLink // for a link, or a file with hard links (nil: none)
	// The small fields together: a one-frame tar.zst holds every file
	// of its tree to the end.
	state  int8  // waiting, committed or failed
	dir    bool  // a directory: its metadata waits
	own    bool  // for a hard link: its own verdict passed (or it had none)
	direct bool  // a file held under its own name (tmp is name: see staged.go)
	rec    uint8 // the kind of its path's record when kept here (see recRef)
}

// holdLink is what a held link, or a file held with hard links, has
// beside the fields of every hold: out of line, as most held files have
// none of it.
type holdLink struct {
	target string  // for a symlink: its target
	file   *hold   // for a hard link: the held file it links to
	links  []*hold // the hard links held with this file
	err    error   // for a file with hard links that failed: why
}

// target returns a held symlink's target ("" for any other hold).
func (h *hold) target() string {
	if h.link == nil {
		return ""
	}
	return h.link.target
}

// file returns the held file a hard link links to (nil for any other
// hold).
func (h *hold) file() *hold {
	if h.link == nil {
		return nil
	}
	return h.link.file
}

// links returns the hard links held with a file.
func (h *hold) links() []*hold {
	if h.link == nil {
		return nil
	}
	return h.link.links
}

// fail marks h failed with err, kept for the errors of its hard links.
func (h *hold) fail(err error) {
	h.state = failed
	if h.link != nil {
		h.link.err = err
	}
}

const (
	waiting = iota
	committed
	failed
)

// supersede gives the resolved path p to the entry being put: a held file
// of that path will not be committed there (its hard links, held with it,
// still are); one held under that very name is moved aside first.
func (d *Dir) supersede(p string) error {
	d.mu.Lock()
	h := d.recs.held(p)
	if h != nil {
		h.name = ""
		d.recs.unhold(p)
	}
	direct := h != nil && h.direct
	d.mu.Unlock()
	if direct {
		return d.moveAside(h, p)
	}
	return nil
}

// Settle commits (err nil) or discards a Pending entry that Put holds. The
// Pending entries of an archive come from one stream: Put and Settle are
// not called concurrently for them. A file or symlink commits with every
// policy check made at that moment; a file's held hard links commit with
// it (once their own verdict passed too) or are removed with it; a
// directory keeps the mode and times of its header only if it passed. For
// an entry not held, Settle returns err.
func (d *Dir) Settle(e *archive.Entry, err error) error {
	return d.settle(keyOf(e), err)
}

// heldKey names a held entry in Dir.held: by its Hold when it has one
// (then the sink keeps no *Entry for it), else by pointer.
type heldKey struct {
	e    *archive.Entry
	hold uint64
}

func keyOf(e *archive.Entry) heldKey {
	if e.Hold != 0 {
		return heldKey{hold: e.Hold}
	}
	return heldKey{e: e}
}

func verdictKey(v *archive.Verdict) heldKey {
	if v.Hold != 0 {
		return heldKey{hold: v.Hold}
	}
	return heldKey{e: v.Entry}
}

// name names the entry held as h under k, for an error: its name as
// read, or, named by its Hold, the path it was to take.
func (k heldKey) name(h *hold) string {
	switch {
	case k.e != nil:
		return k.e.Name
	case h.name != "":
		return h.name
	}
	return h.tmp
}

func (d *Dir) settle(k heldKey, err error) error {
	d.mu.Lock()
	h := d.held.take(k)
	if h != nil && h.name != "" {
		d.recs.unholdIf(h.name, h)
	}
	d.mu.Unlock()
	var werr error
	if h != nil {
		if werr = d.wait(h); werr != nil && err == nil {
			err = werr // its data never reached the disk whole
		}
		// An unnamed held file goes with its descriptor, or is named
		// for the commit below.
		if err != nil || h.name == "" {
			d.closeHeld(h.job)
		} else if nerr := d.nameHeld(h); nerr != nil {
			err = nerr
		}
	}
	switch {
	case h == nil:
		return err
	case h.dir:
		if err != nil {
			d.mu.Lock()
			delete(d.dirMeta, h.name) // from a header that failed
			d.mu.Unlock()
		}
		return err
	case h.target() != "":
		if err != nil || h.name == "" {
			d.drop(h.tmp)
			return err
		}
		return d.commitLink(h.tmp, h.name, h.target(), h.info, nil)
	}
	if file := h.file(); file != nil { // a hard link with its own verdict
		switch {
		case err == nil && file.state == failed:
			h.state = failed
			d.drop(h.tmp)
			return fmt.Errorf("hard link not made: its target failed: %w", file.link.err)
		case err != nil:
			h.state = failed
			d.drop(h.tmp)
		case file.state == committed:
			return d.settleLink(h)
		default:
			h.own = true // commits when its file does
		}
		return err
	}
	if err != nil {
		h.fail(err)
		for _, l := range h.links() {
			if l.state == waiting {
				l.state = failed
				d.drop(l.tmp)
			}
		}
		switch {
		case h.name == "":
			d.drop(h.tmp)
			return err
		case h.direct:
			// Removed here unless its write failed (its writer
			// removed what it made, if anything).
			d.unclaim(h.name, werr == nil)
			return err
		}
		return d.discard(h.tmp, h.name, err)
	}
	h.state = committed
	var errs []error
	switch {
	case h.name == "":
		d.drop(h.tmp)
	case h.direct:
		if cerr := d.settleDirect(h.name, h.info); cerr != nil {
			errs = append(errs, cerr)
		}
	default:
		if cerr := d.place(h.tmp, h.name, h.info); cerr != nil {
			errs = append(errs, cerr)
		}
	}
	for _, l := range h.links() {
		if l.own && l.state == waiting {
			if lerr := d.settleLink(l); lerr != nil {
				errs = append(errs, lerr)
			}
		}
	}
	return errors.Join(errs...)
}

// SettleAll settles the held entries of vs, in order, as Settle would one
// by one, and returns each one's result. The commits of held files that
// depend on nothing but their own name (see commitQueued) go in parallel;
// any other entry waits for those before it.
func (d *Dir) SettleAll(vs []archive.Verdict) []error {
	out := make([]error, len(vs))
	// The commits in flight, at most settleRun, in one array used again
	// for each run: the verdicts at the end of a one-frame stream are
	// every entry's, and an array for all of them would be fresh memory,
	// a page fault a page.
	commits := make([]fastCommit, min(len(vs), settleRun))
	idx := make([]int, 0, len(commits)) // their places in vs
	flush := func() {
		d.flushWriters()
		for k, i := range idx {
			out[i] = d.finishCommit(&commits[k])
			commits[k] = fastCommit{}
		}
		idx = idx[:0]
	}
	for i, v := range vs {
		k := verdictKey(&v)
		if len(idx) == len(commits) {
			flush()
		}
		if d.commitQueued(k, v.Err, &commits[len(idx)]) {
			idx = append(idx, i)
			continue
		}
		flush()
		out[i] = d.settle(k, v.Err)
	}
	flush()
	return out
}

// settleRun is the most commits SettleAll has in flight.
const settleRun = 1024

// drop removes a temporary file.
func (d *Dir) drop(tmp string) {
	d.root.Remove(tmp)
	d.track(tmp, false)
}

// settleLink commits a held hard link whose file and own verdict passed.
func (d *Dir) settleLink(l *hold) error {
	l.state = committed
	if l.name == "" {
		d.drop(l.tmp)
		return nil
	}
	if err := d.place(l.tmp, l.name, l.info); err != nil {
		return fmt.Errorf("hard link %s: %w", l.name, err)
	}
	return nil
}

// holdHardlink links p to a file still held: the link is made now, to the
// file's temporary name, and commits or goes with the file.
func (d *Dir) holdHardlink(p string, e *archive.Entry, file *hold) error {
	if err := d.wait(file); err != nil {
		return &TargetError{Target: e.Linkname, Err: err}
	}
	if err := d.nameHeld(file); err != nil { // a link needs a name to link
		return err
	}
	if err := d.mkParent(p); err != nil {
		return err
	}
	tmp := tempName(p)
	if err := d.root.Link(file.tmp, tmp); err != nil {
		return err
	}
	d.track(tmp, true)
	// The file has two links now: known by its inode from here on.
	fi, err := d.root.Lstat(tmp)
	if err != nil {
		d.drop(tmp)
		return err
	}
	info := identOf(fi)
	l := &hold{name: p, tmp: tmp, info: info, link: &holdLink{file: file}, own: !e.Pending}
	d.mu.Lock()
	file.info = info
	if file.direct {
		claim := info // it has two links now, and is still claimed
		claim.claimed = true
		d.recs.setMade(file.name, claim)
	}
	if file.link == nil {
		file.link = &holdLink{}
	}
	file.link.links = append(file.link.links, l)
	if e.Pending {
		d.held.put(keyOf(e), l)
	}
	d.recs.setHeld(p, l)
	d.mu.Unlock()
	return nil
}
