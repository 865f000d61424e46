package extract

import "sort"

// heldSet is Dir.held: the held entries by their key. A stream's entries
// named by a Hold come with increasing Holds (NextHold counts up) and are
// settled in the same order, so those are kept in a slice, appended to and
// looked up from its front: a held tree of a one-frame tar.zst (100k
// files) costs no hash map insert, lookup and delete each, whose cold
// lines were a large part of the time per file. Any other key (an entry
// named by pointer, a Hold not above the last) goes to the map.
//
// Every method is called with Dir.mu held.
type heldSet struct {
	seq   []heldAt // by increasing Hold; h nil once taken
	off   int      // seq[:off] are all taken
	other map[heldKey]*hold
}

type heldAt struct {
	hold uint64
	h    *hold
}

// find returns the index of hold in seq, or -1.
func (s *heldSet) find(hold uint64) int {
	q := s.seq[s.off:]
	if len(q) == 0 || hold < q[0].hold || hold > q[len(q)-1].hold {
		return -1
	}
	if q[0].hold == hold { // the next to settle: the common case
		return s.off
	}
	i := sort.Search(len(q), func(i int) bool { return q[i].hold >= hold })
	if i < len(q) && q[i].hold == hold {
		return s.off + i
	}
	return -1
}

// put records h under k, replacing what k named before.
func (s *heldSet) put(k heldKey, h *hold) {
	if k.hold != 0 {
		if n := len(s.seq); n == s.off || k.hold > s.seq[n-1].hold {
			if _, ok := s.other[k]; !ok {
				s.seq = append(s.seq, heldAt{k.hold, h})
				return
			}
		} else if i := s.find(k.hold); i >= 0 && s.seq[i].h != nil {
			s.seq[i].h = h
			return
		}
	}
	if s.other == nil {
		s.other = map[heldKey]*hold{}
	}
	s.other[k] = h
}

// get returns what k names, or nil.
func (s *heldSet) get(k heldKey) *hold {
	if k.hold != 0 {
		if i := s.find(k.hold); i >= 0 && s.seq[i].h != nil {
			return s.seq[i].h
		}
	}
	return s.other[k]
}

// take removes what k names and returns it (nil if nothing).
func (s *heldSet) take(k heldKey) *hold {
	if k.hold != 0 {
		if i := s.find(k.hold); i >= 0 && s.seq[i].h != nil {
			h := s.seq[i].h
			s.seq[i].h = nil
			s.trim()
			return h
		}
	}
	h := s.other[k]
	if h != nil {
		delete(s.other, k)
	}
	return h
}

// trim drops the taken entries at the front, and moves the rest down once
// the front is the larger part (each entry moved at most once on average).
func (s *heldSet) trim() {
	for s.off < len(s.seq) && s.seq[s.off].h == nil {
		s.seq[s.off] = heldAt{}
		s.off++
	}
	switch {
	case s.off == len(s.seq):
		s.seq, s.off = s.seq[:0], 0
	case s.off >= 1024 && s.off > len(s.seq)/2:
		n := copy(s.seq, s.seq[s.off:])
		clear(s.seq[n:])
		s.seq, s.off = s.seq[:n], 0
	}
}

// each calls f for every entry held.
func (s *heldSet) each(f func(k heldKey, h *hold)) {
	for _, a := range s.seq[s.off:] {
		if a.h != nil {
			f(heldKey{hold: a.hold}, a.h)
		}
	}
	for k, h := range s.other {
		f(k, h)
	}
}

// reset removes every entry.
func (s *heldSet) reset() {
	*s = heldSet{}
}
