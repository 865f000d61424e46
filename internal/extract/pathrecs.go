package extract

import "strings"

// pathRecs keeps what Dir knows of each resolved path (what this
// extraction made there, the held file it will get) in a small map per
// directory: a tar delivers a directory's entries together, so the map
// in use stays in cache, where one map of every path costs a cache miss
// at each touch and grows by copying all of them. Dir.mu guards it.
type pathRecs struct {
	dirs map[string]map[string]recRef // directory → base name → record
	// The two directories looked up last ([0] the latest) with their
	// maps, and the path looked up last with its directory's map and its
	// base name: an entry's path is looked up several times in a row,
	// and between them its directory's parent (free, stagedFree). A map
	// once in dirs stays there, so these stay valid.
	near     [2]nearDir
	lastPath string
	lastMap  map[string]recRef // nil: none yet
	lastBase string
	// How many records are claimed (made, info.claimed) and how many
	// have a held file: Close's walks of every record are skipped when
	// there are none, as after every commit.
	claimed, nheld int
	// The records not kept in a hold (see recRef), allocated slabRecs
	// at a time; the place of one dropped is not used again.
	slab []pathRec
}

// nearDir is a directory and its map (nil: none).
type nearDir struct {
	dir string
	m   map[string]recRef
}

// pathRec is the record of one path.
type pathRec struct {
	info ident // what this extraction made there (when made)
	made bool
	held *hold // the held file the path will get (nil: none)
}

// recRef is a record in a directory's map: a held file's record is kept
// by its hold (h, its kind in hold.rec), where its fields repeat the
// hold's own (its ident, its name is the key), so that every file of a
// one-frame stream, held to the end, costs its map a pointer and no
// record of its own; any other record is r.
type recRef struct {
	h *hold
	r *pathRec
}

// The kinds of record a hold keeps (hold.rec).
const (
	recHeld    = iota + 1 // held, nothing made there: {held: h}
	recClaimed            // held, claimed at its name: {h.claimedIdent(), made, held: h}
	recMade               // committed there: {h.info, made}
	recClaim              // claimed at its name, being written: {h.claimedIdent(), made}
)

// get returns the record x refers to.
func (x recRef) get() pathRec {
	switch {
	case x.r != nil:
		return *x.r
	case x.h == nil:
		return pathRec{}
	}
	switch x.h.rec {
	case recClaimed:
		return pathRec{info: x.h.claimedIdent(), made: true, held: x.h}
	case recMade:
		return pathRec{info: x.h.info, made: true}
	case recClaim:
		return pathRec{info: x.h.claimedIdent(), made: true}
	}
	return pathRec{held: x.h}
}

// put records x for p, under base in m, where old was: in old's own
// record if it has one, in x's hold when x is only that its hold, for p,
// is held there, else in a record of the slab; nothing when x is empty.
func (r *pathRecs) put(p string, m map[string]recRef, base string, old recRef, x pathRec) {
	switch {
	case !x.made && x.held == nil:
		delete(m, base)
	case old.r != nil:
		*old.r = x
	case !x.made && x.held.name == p:
		x.held.rec = recHeld
		m[base] = recRef{h: x.held}
	default:
		if len(r.slab) == cap(r.slab) {
			r.slab = make([]pathRec, 0, slabRecs)
		}
		r.slab = append(r.slab, x)
		m[base] = recRef{r: &r.slab[len(r.slab)-1]}
	}
}

// slabRecs is the number of records in each allocation of the slab.
const slabRecs = 256

// dir returns the map of p's directory (nil if it has none and create is
// false) and p's base name.
func (r *pathRecs) dir(p string, create bool) (map[string]recRef, string) {
	if r.lastMap != nil && p == r.lastPath {
		return r.lastMap, r.lastBase
	}
	dir, base := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, base = p[:i], p[i+1:]
	}
	var m map[string]recRef
	switch {
	case r.near[0].m != nil && dir == r.near[0].dir:
		m = r.near[0].m
	case r.near[1].m != nil && dir == r.near[1].dir:
		m = r.near[1].m
		r.near[0], r.near[1] = r.near[1], r.near[0]
	default:
		m = r.dirs[dir]
		if m == nil {
			if !create {
				return nil, base
			}
			if r.dirs == nil {
				r.dirs = map[string]map[string]recRef{}
			}
			m = map[string]recRef{}
			r.dirs[dir] = m
		}
		r.near[1], r.near[0] = r.near[0], nearDir{dir, m}
	}
	r.lastPath, r.lastMap, r.lastBase = p, m, base
	return m, base
}

// made returns what this extraction made at p, if anything.
func (r *pathRecs) made(p string) (ident, bool) {
	m, base := r.dir(p, false)
	x := m[base].get()
	return x.info, x.made
}

// setMade records info as what this extraction made at p.
func (r *pathRecs) setMade(p string, info ident) {
	m, base := r.dir(p, true)
	old := m[base]
	x := old.get()
	r.count(x, -1)
	x.info, x.made = info, true
	r.count(x, 1)
	r.put(p, m, base, old, x)
}

// count adds n to the counts of x's kind.
func (r *pathRecs) count(x pathRec, n int) {
	if x.made && x.info.claimed {
		r.claimed += n
	}
	if x.held != nil {
		r.nheld += n
	}
}

// unmake forgets what this extraction made at p.
func (r *pathRecs) unmake(p string) {
	m, base := r.dir(p, false)
	old, ok := m[base]
	if !ok {
		return
	}
	x := old.get()
	r.count(x, -1)
	x.info, x.made = ident{}, false
	r.count(x, 1)
	r.put(p, m, base, old, x)
}

// taken reports whether this extraction made anything at p or holds a
// file for it.
func (r *pathRecs) taken(p string) bool {
	m, base := r.dir(p, false)
	_, ok := m[base]
	return ok
}

// held returns the held file p will get, or nil.
func (r *pathRecs) held(p string) *hold {
	m, base := r.dir(p, false)
	return m[base].get().held
}

// setHeld records h as the held file p will get.
func (r *pathRecs) setHeld(p string, h *hold) {
	m, base := r.dir(p, true)
	old := m[base]
	x := old.get()
	r.count(x, -1)
	x.held = h
	r.count(x, 1)
	r.put(p, m, base, old, x)
}

// claimHeld records h as the held file p will get, claimed there
// (h.claimedIdent: a file created at its own name), in one lookup,
// unless p is taken (see taken): then it records nothing and returns
// false.
func (r *pathRecs) claimHeld(p string, h *hold) bool {
	m, base := r.dir(p, true)
	if _, ok := m[base]; ok {
		return false
	}
	x := pathRec{info: h.claimedIdent(), made: true, held: h}
	r.count(x, 1)
	if h.name != p {
		r.put(p, m, base, recRef{}, x)
		return true
	}
	h.rec = recClaimed
	m[base] = recRef{h: h}
	return true
}

// claimFor records p as claimed for the file h will hold (see
// holdClaimed), h.claimedIdent, unless p is taken (see taken): then it
// records nothing and returns false.
func (r *pathRecs) claimFor(p string, h *hold) bool {
	m, base := r.dir(p, true)
	if _, ok := m[base]; ok {
		return false
	}
	x := pathRec{info: h.claimedIdent(), made: true}
	r.count(x, 1)
	if h.name != p {
		r.put(p, m, base, recRef{}, x)
		return true
	}
	h.rec = recClaim
	m[base] = recRef{h: h}
	return true
}

// holdClaimed records h as the held file p will get, p claimed for it by
// claimFor: as setHeld does, in the record h keeps when it still does.
func (r *pathRecs) holdClaimed(p string, h *hold) {
	m, base := r.dir(p, true)
	if old := m[base]; old.r == nil && old.h == h && h.rec == recClaim {
		r.nheld++
		h.rec = recClaimed
		return
	}
	r.setHeld(p, h)
}

// unholdIf forgets the held file p was to get if it is h, and reports
// whether it was.
func (r *pathRecs) unholdIf(p string, h *hold) bool {
	m, base := r.dir(p, false)
	old, ok := m[base]
	if !ok {
		return false
	}
	x := old.get()
	if x.held != h {
		return false
	}
	r.dropHeld(p, m, base, old, x)
	return true
}

// commitHeldIf records h.info as what this extraction made at p, whose
// held file it was, if that is h (unholdIf and setMade in one lookup),
// and reports whether it was.
func (r *pathRecs) commitHeldIf(p string, h *hold) bool {
	m, base := r.dir(p, false)
	old, ok := m[base]
	if !ok {
		return false
	}
	x := old.get()
	if x.held != h {
		return false
	}
	r.count(x, -1)
	x.info, x.made, x.held = h.info, true, nil
	r.count(x, 1)
	if old.r == nil { // kept by h: it still is
		h.rec = recMade
		return true
	}
	r.put(p, m, base, old, x)
	return true
}

// unhold forgets the held file p was to get.
func (r *pathRecs) unhold(p string) {
	m, base := r.dir(p, false)
	if old, ok := m[base]; ok {
		r.dropHeld(p, m, base, old, old.get())
	}
}

// clearHeld forgets every held file.
func (r *pathRecs) clearHeld() {
	if r.nheld == 0 {
		return
	}
	for dir, m := range r.dirs {
		for base, old := range m {
			if x := old.get(); x.held != nil {
				r.dropHeld(join(dir, base), m, base, old, x)
			}
		}
	}
}

// dropHeld is unhold of the record x of p, found in m under base as old.
func (r *pathRecs) dropHeld(p string, m map[string]recRef, base string, old recRef, x pathRec) {
	r.count(x, -1)
	x.held = nil
	r.count(x, 1)
	r.put(p, m, base, old, x)
}

// eachClaimed calls f with every path this extraction claimed (see
// staged.go) and has not yet recorded as written.
func (r *pathRecs) eachClaimed(f func(p string)) {
	if r.claimed == 0 {
		return
	}
	for dir, m := range r.dirs {
		for base, old := range m {
			if x := old.get(); x.made && x.info.claimed {
				f(join(dir, base))
			}
		}
	}
}
