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
	h := &hold{}
	for i := range 5000 {
		p := paths[rng.IntN(len(paths))]
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
			for _, x := range m {
				if x.made && x.info.claimed {
					claimed++
				}
				if x.held != nil {
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
