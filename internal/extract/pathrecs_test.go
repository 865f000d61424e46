package extract

import (
	"math/rand/v2"
	"testing"
)

// TestPathRecsCounts checks the claimed and held counts, which let Close
// skip its walks, against a count of the records after random changes.
func TestPathRecsCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	paths := []string{"a", "b", "d/a", "d/b", "d/e/a", "f/a"}
	var r pathRecs
	holds := map[string]*hold{} // a hold for each path (kept in the maps)
	for _, p := range paths {
		holds[p] = &hold{name: p}
	}
	for i := range 5000 {
		p := paths[rng.IntN(len(paths))]
		h := holds[p]
		if i%3 == 0 {
			h = &hold{} // for no path: kept in the slab
		}
		switch rng.IntN(5) {
		case 0:
			r.setMade(p, ident{claimed: true})
		case 1:
			r.setMade(p, ident{})
		case 2:
			r.unmake(p)
		case 3:
			r.setHeld(p, h)
		case 4:
			r.unhold(p)
		}
		if i%1000 == 999 {
			r.clearHeld()
		}
		claimed, held := 0, 0
		for _, m := range r.dirs {
			for _, ref := range m {
				if x := ref.get(); x.made && x.info.claimed {
					claimed++
				}
				if ref.get().held != nil {
					held++
				}
			}
		}
		if claimed != r.claimed || held != r.nheld {
			t.Fatalf("step %d: counted claimed %d held %d, kept %d %d", i, claimed, held, r.claimed, r.nheld)
		}
		n := 0
		r.eachClaimed(func(string) { n++ })
		if n != claimed {
			t.Fatalf("step %d: eachClaimed gave %d of %d", i, n, claimed)
		}
	}
}

// TestPathRecsModel checks the records, read through the caches of the
// paths and directories looked up last, against one map of every path,
// after random changes to paths of a few directories taken in turn.
func TestPathRecsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	paths := []string{"a", "b", "d", "d/a", "d/b", "d/e", "d/e/a", "d/e/b", "f/a", "f/g/a", "x/y/z/a"}
	var r pathRecs
	model := map[string]pathRec{}
	// Two holds for each path (their records kept by them), and two for
	// none (theirs in the slab).
	holdsOf := map[string][]*hold{}
	for _, p := range paths {
		holdsOf[p] = []*hold{{name: p}, {name: p, info: ident{claimed: true}}}
	}
	shared := []*hold{{}, {}}
	for i := range 20000 {
		p := paths[rng.IntN(len(paths))]
		if rng.IntN(2) == 0 {
			p = string([]byte(p)) // an equal name, not the same string
		}
		holds := holdsOf[p]
		if rng.IntN(4) == 0 {
			holds = shared
		}
		x := model[p]
		switch rng.IntN(9) {
		case 0:
			id := ident{claimed: i%3 == 0} // the one field of every OS
			r.setMade(p, id)
			x.info, x.made = id, true
			model[p] = x
		case 1:
			r.unmake(p)
			if x.held == nil {
				delete(model, p)
			} else {
				x.info, x.made = ident{}, false
				model[p] = x
			}
		case 2:
			h := holds[rng.IntN(len(holds))]
			r.setHeld(p, h)
			x.held = h
			model[p] = x
		case 3:
			r.unhold(p)
			if x.made {
				x.held = nil
				model[p] = x
			} else {
				delete(model, p)
			}
		case 4:
			h := holds[rng.IntN(len(holds))]
			id := h.claimedIdent()
			ok := r.claimHeld(p, h)
			if free := !x.made && x.held == nil; ok != free {
				t.Fatalf("step %d: claimHeld(%s) %v, free %v", i, p, ok, free)
			}
			if ok {
				model[p] = pathRec{info: id, made: true, held: h}
			}
		case 5:
			h := holds[rng.IntN(len(holds))]
			ok := r.unholdIf(p, h)
			if ok != (x.held == h && h != nil) {
				t.Fatalf("step %d: unholdIf(%s) %v, held %p", i, p, ok, x.held)
			}
			if ok && x.made {
				x.held = nil
				model[p] = x
			} else if ok {
				delete(model, p)
			}
		case 6:
			h := holds[rng.IntN(len(holds))]
			id := h.info
			ok := r.commitHeldIf(p, h)
			if ok != (x.held == h && h != nil) {
				t.Fatalf("step %d: commitHeldIf(%s) %v, held %p", i, p, ok, x.held)
			}
			if ok {
				model[p] = pathRec{info: id, made: true}
			}
		case 7:
			h := holds[rng.IntN(len(holds))]
			ok := r.claimFor(p, h)
			if free := !x.made && x.held == nil; ok != free {
				t.Fatalf("step %d: claimFor(%s) %v, free %v", i, p, ok, free)
			}
			if ok {
				model[p] = pathRec{info: h.claimedIdent(), made: true}
			}
		case 8:
			h := holds[rng.IntN(len(holds))]
			r.holdClaimed(p, h)
			x.held = h
			model[p] = x
		}
		q := paths[rng.IntN(len(paths))]
		want := model[q]
		info, made := r.made(q)
		if made != want.made || info != want.info || r.held(q) != want.held || r.taken(q) != (want.made || want.held != nil) {
			t.Fatalf("step %d: %s: made %v %v held %p, want %v %v %p", i, q, made, info, r.held(q), want.made, want.info, want.held)
		}
		claimed, held := 0, 0
		for _, x := range model {
			if x.made && x.info.claimed {
				claimed++
			}
			if x.held != nil {
				held++
			}
		}
		if claimed != r.claimed || held != r.nheld {
			t.Fatalf("step %d: claimed %d held %d, counted %d %d", i, claimed, held, r.claimed, r.nheld)
		}
	}
}
