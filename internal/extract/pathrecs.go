package extract

import "strings"

// pathRecs keeps what Dir knows of each resolved path (what this
// extraction made there, the held file it will get) in a small map per
// directory: a tar delivers a directory's entries together, so the map
// in use stays in cache, where one map of every path costs a cache miss
// at each touch and grows by copying all of them. Dir.mu guards it.
type pathRecs struct {
	dirs map[string]map[string]pathRec // directory → base name → record
	// The two directories looked up last ([0] the latest) with their
	// maps, and the path looked up last with its directory's map and its
	// base name: an entry's path is looked up several times in a row,
	// and between them its directory's parent (free, stagedFree). A map
	// once in dirs stays there, so these stay valid.
	near     [2]nearDir
	lastPath string
	lastMap  map[string]pathRec // nil: none yet
	lastBase string
	// How many records are claimed (made, info.claimed) and how many
	// have a held file: Close's walks of every record are skipped when
	// there are none, as after every commit.
	claimed, nheld int
}

// nearDir is a directory and its map (nil: none).
type nearDir struct {
	dir string
	m   map[string]pathRec
}

// pathRec is the record of one path.
type pathRec struct {
	info ident // what this extraction made there (when made)
	made bool
	held *hold // the held file the path will get (nil: none)
}

// dir returns the map of p's directory (nil if it has none and create is
// false) and p's base name.
func (r *pathRecs) dir(p string, create bool) (map[string]pathRec, string) {
	if r.lastMap != nil && p == r.lastPath {
		return r.lastMap, r.lastBase
	}
	dir, base := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, base = p[:i], p[i+1:]
	}
	var m map[string]pathRec
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
				r.dirs = map[string]map[string]pathRec{}
			}
			m = map[string]pathRec{}
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
	x := m[base]
	return x.info, x.made
}

// setMade records info as what this extraction made at p.
func (r *pathRecs) setMade(p string, info ident) {
	m, base := r.dir(p, true)
	x := m[base]
	r.count(x, -1)
	x.info, x.made = info, true
	r.count(x, 1)
	m[base] = x
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
	x, ok := m[base]
	if !ok {
		return
	}
	r.count(x, -1)
	if x.held == nil {
		delete(m, base)
		return
	}
	x.info, x.made = ident{}, false
	r.count(x, 1)
	m[base] = x
}

// taken reports whether this extraction made anything at p or holds a
// file for it.
func (r *pathRecs) taken(p string) bool {
	m, base := r.dir(p, false)
	x := m[base]
	return x.made || x.held != nil
}

// held returns the held file p will get, or nil.
func (r *pathRecs) held(p string) *hold {
	m, base := r.dir(p, false)
	return m[base].held
}

// setHeld records h as the held file p will get.
func (r *pathRecs) setHeld(p string, h *hold) {
	m, base := r.dir(p, true)
	x := m[base]
	r.count(x, -1)
	x.held = h
	r.count(x, 1)
	m[base] = x
}

// claimHeld records info as what this extraction made at p and h as the
// held file p will get, in one lookup, unless p is taken (see taken):
// then it records nothing and returns false.
func (r *pathRecs) claimHeld(p string, info ident, h *hold) bool {
	m, base := r.dir(p, true)
	x := m[base]
	if x.made || x.held != nil {
		return false
	}
	x.info, x.made, x.held = info, true, h
	r.count(x, 1)
	m[base] = x
	return true
}

// unholdIf forgets the held file p was to get if it is h, and reports
// whether it was.
func (r *pathRecs) unholdIf(p string, h *hold) bool {
	m, base := r.dir(p, false)
	x, ok := m[base]
	if !ok || x.held != h {
		return false
	}
	r.dropHeld(m, base, x)
	return true
}

// commitHeldIf records info as what this extraction made at p, whose
// held file it was, if that is h (unholdIf and setMade in one lookup),
// and reports whether it was.
func (r *pathRecs) commitHeldIf(p string, h *hold, info ident) bool {
	m, base := r.dir(p, false)
	x, ok := m[base]
	if !ok || x.held != h {
		return false
	}
	r.count(x, -1)
	x.info, x.made, x.held = info, true, nil
	r.count(x, 1)
	m[base] = x
	return true
}

// unhold forgets the held file p was to get.
func (r *pathRecs) unhold(p string) {
	m, base := r.dir(p, false)
	if x, ok := m[base]; ok {
		r.dropHeld(m, base, x)
	}
}

// clearHeld forgets every held file.
func (r *pathRecs) clearHeld() {
	if r.nheld == 0 {
		return
	}
	for _, m := range r.dirs {
		for base, x := range m {
			if x.held != nil {
				r.dropHeld(m, base, x)
			}
		}
	}
}

// dropHeld is unhold of the record x, found in m under base.
func (r *pathRecs) dropHeld(m map[string]pathRec, base string, x pathRec) {
	if x.held != nil {
		r.nheld--
	}
	if !x.made {
		delete(m, base)
		return
	}
	x.held = nil
	m[base] = x
}

// eachClaimed calls f with every path this extraction claimed (see
// staged.go) and has not yet recorded as written.
func (r *pathRecs) eachClaimed(f func(p string)) {
	if r.claimed == 0 {
		return
	}
	for dir, m := range r.dirs {
		for base, x := range m {
			if x.made && x.info.claimed {
				f(join(dir, base))
			}
		}
	}
}
