package extract

import (
	"io"
	"io/fs"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Staged extraction (DirOptions.Staged). The destination is a hidden
// directory this process made, empty, inside the real destination; its
// caller moves the top-level items out once the extraction is over, with
// a rename that never replaces a name (see the CLI). Nothing but this
// extraction writes in it, so a file needs no name of its own while it is
// written: it is created under its final name (O_CREAT|O_EXCL, relative to
// its directory's handle), written, given its mode and times on the
// descriptor and closed. A file that fails its check is removed (at once,
// or at its verdict when Pending; one never settled at Close), before
// anything leaves the stage: it is never seen in the destination. What
// keeps every other rule is unchanged: a name already taken in the stage
// (a later entry of the same name, an alias) takes the ordinary way, with
// its policy, and a held file under its name is moved aside when a later
// entry takes the name (moveAside).
//
// While a file is written under its name, and until it is settled, it is
// recorded as this extraction's and claimed (any regular file of one link
// there): an interrupt (Abort) or Close removes the claimed files with the
// temporary ones.

// staged reports whether files may be created under their own names.
func (d *Dir) staged() bool {
	return d.opt.Staged && !d.opt.KeepBroken && len(d.opt.Quarantine) == 0
}

// stagedFree reports whether the resolved path p is known to be free
// without a look: in a stage, where everything there is this
// extraction's and recorded, nothing was put at p and its directory is
// the stage or one made.
func (d *Dir) stagedFree(p string) bool {
	if !d.opt.Staged {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, taken := d.recs.made(p); taken {
		return false
	}
	dir := parent(p)
	_, madeDir := d.recs.made(dir)
	return dir == "" || madeDir
}

// claim reserves the resolved path p for a file created under its own
// name, recorded as id: it fails (false) if this extraction put anything
// at p, or after Abort.
func (d *Dir) claim(p string, id ident) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.claimLocked(p, id)
}

// claimFor is claim of p for the held file h will be, recorded as
// h.claimedIdent (see pathRecs.claimFor).
func (d *Dir) claimFor(p string, h *hold) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return !d.aborted.Load() && d.recs.claimFor(p, h)
}

// claimLocked is claim with d.mu held.
func (d *Dir) claimLocked(p string, id ident) bool {
	if d.aborted.Load() || d.recs.taken(p) {
		return false
	}
	d.recs.setMade(p, id)
	return true
}

// created checks, once the file claimed at p exists, that no Abort came
// meanwhile (Abort removes what is named then; one made after it is
// removed here).
func (d *Dir) created(p string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.aborted.Load() {
		d.unlink(p)
		return errAborted
	}
	return nil
}

// unclaim gives up the claim of p, removing the file there first when
// remove is set (it is the claimed file: nothing else writes in a stage).
// What a concurrent entry recorded at p since (a directory made there
// first: the archive contradicting itself) is left as it is.
func (d *Dir) unclaim(p string, remove bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m, ok := d.recs.made(p); ok && !m.claimed {
		return
	}
	if remove {
		d.unlink(p)
	}
	d.recs.unmake(p)
}

// settleDirect records the file written at p (info) as committed.
func (d *Dir) settleDirect(p string, info ident) error {
	d.mu.Lock()
	if d.aborted.Load() {
		d.mu.Unlock()
		return errAborted // Abort removed it
	}
	d.recs.setMade(p, info)
	delete(d.links, p)
	d.mu.Unlock()
	return d.recheck(p)
}

// writeDirect writes the data of the file f, created at its own name p by
// createDirect, with its mode and times; when Pending it is held there
// (as h, given to createDirect) until its verdict, else committed as it
// is. Whatever fails removes it.
func (d *Dir) writeDirect(p string, e *archive.Entry, r io.Reader, f *wfile, perm fs.FileMode, exact bool, h *hold) error {
	var w io.Writer = f
	var sw *sparseWriter
	if e.Sparse != nil {
		sw = &sparseWriter{f: f}
		w = sw
	}
	_, err := archive.Copy(w, r)
	if err == nil && sw != nil {
		err = sw.finish()
	}
	var info ident
	if err == nil {
		info, err = d.fileMeta(e, f, perm, exact)
	}
	if cerr := d.closeFile(f); err == nil {
		err = cerr
	}
	if err != nil {
		d.unclaim(p, true)
		return err
	}
	if e.Pending {
		d.mu.Lock()
		if h == nil {
			h = &hold{name: p, tmp: p, direct: true}
		}
		h.info = info
		d.held.put(keyOf(e), h)
		d.recs.holdClaimed(p, h)
		d.mu.Unlock()
		return nil
	}
	return d.settleDirect(p, info)
}

// moveAside renames the held file h, written under its own name p, to a
// temporary name, where it waits for its verdict as any held file whose
// name a later entry took (its hard links stay with it).
func (d *Dir) moveAside(h *hold, p string) error {
	tmp := tempName(p)
	werr := d.wait(h)
	d.mu.Lock()
	direct := h.direct
	d.mu.Unlock()
	switch {
	case !direct:
		return nil // its writer found the name taken: it has another
	case werr != nil:
		// Never written (nothing of it at p): nothing to move.
		d.unclaim(p, false)
		d.mu.Lock()
		h.tmp, h.direct = tmp, false
		d.mu.Unlock()
		return nil
	}
	if err := d.root.Rename(p, tmp); err != nil {
		return err
	}
	d.mu.Lock()
	d.recs.unmake(p)
	delete(d.temps, p)
	d.temps[tmp] = struct{}{}
	h.tmp, h.direct = tmp, false
	d.mu.Unlock()
	return nil
}
