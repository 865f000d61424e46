package extract

import (
	"sort"

	"github.com/unpack-dev/unpack/internal/queue"
)

// heldSet is Dir.held: the held entries by their key. A stream's entries
// named by a Hold come with increasing Holds (NextHold counts up) and are
// settled in the same order, so those are kept in a queue, pushed to and
// looked up from its front: a held tree of a one-frame tar.zst (100k
// files) costs no hash map insert, lookup and delete each, whose cold
// lines were a large part of the time per file. Any other key (an entry
// named by pointer, a Hold not above the last) goes to the map.
//
// Every method is called with Dir.mu held.
type heldSet struct {
	seq   queue.Queue[heldAt] // by increasing Hold; h nil once taken
	other map[heldKey]*hold
}

type heldAt struct {
	hold uint64
	h    *hold
}

// find returns the index of hold in seq, or -1.
func (s *heldSet) find(hold uint64) int {
	n := s.seq.Len()
	if n == 0 {
		return -1
	}
	switch first := s.seq.At(0).hold; {
	case first == hold: // the next to settle: the common case
		return 0
	case hold < first || hold > s.seq.At(n-1).hold:
		return -1
	}
	i := sort.Search(n, func(i int) bool { return s.seq.At(i).hold >= hold })
	if i < n && s.seq.At(i).hold == hold {
		return i
	}
	return -1
}

// put records h under k, replacing what k named before.
func (s *heldSet) put(k heldKey, h *hold) {
	if k.hold != 0 {
		if n := s.seq.Len(); n == 0 || k.hold > s.seq.At(n-1).hold {
			if _, ok := s.other[k]; !ok {
				s.seq.Push(heldAt{k.hold, h})
				return
			}
		} else if i := s.find(k.hold); i >= 0 && s.seq.At(i).h != nil {
			s.seq.At(i).h = h
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
		if i := s.find(k.hold); i >= 0 && s.seq.At(i).h != nil {
			return s.seq.At(i).h
		}
	}
	return s.other[k]
}

// take removes what k names and returns it (nil if nothing).
func (s *heldSet) take(k heldKey) *hold {
	if k.hold != 0 {
		if i := s.find(k.hold); i >= 0 && s.seq.At(i).h != nil {
			a := s.seq.At(i)
			h := a.h
			a.h = nil
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

// trim drops the taken entries at the front.
func (s *heldSet) trim() {
	n := 0
	for n < s.seq.Len() && s.seq.At(n).h == nil {
		n++
	}
	s.seq.Drop(n)
}

// each calls f for every entry held.
func (s *heldSet) each(f func(k heldKey, h *hold)) {
	for i := range s.seq.Len() {
		if a := s.seq.At(i); a.h != nil {
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
