package osnames

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// entry is one name an archive holds; dir marks a directory entry.
type entry struct {
	name string
	dir  bool
}

func claimAll(p Policy, entries []entry) error {
	n := NewNames(p)
	for _, e := range entries {
		fixed, _, err := p.Check(e.name)
		if err != nil {
			return err
		}
		if err := n.Claim(e.name, fixed, e.dir); err != nil {
			return err
		}
	}
	return nil
}

func TestClaim(t *testing.T) {
	f := func(name string) entry { return entry{name, false} }
	d := func(name string) entry { return entry{name, true} }
	for _, tc := range []struct {
		p       Policy
		entries []entry
		alias   bool
	}{
		{Windows, []entry{f("README"), f("readme")}, true},
		{Windows, []entry{f("README"), f("README")}, false}, // stored twice: the later replaces
		{Windows, []entry{d("Dir"), d("dir")}, false},       // directories merge
		{Windows, []entry{f("Dir/a"), f("dir/b")}, false},
		{Windows, []entry{f("Dir/a"), f("dir/A")}, true},
		{Windows, []entry{f("readme"), f("README/x")}, true}, // a file where a directory goes
		{Windows, []entry{f("README/x"), f("readme")}, true},
		{Windows, []entry{d("readme"), f("README")}, true},
		{Windows, []entry{f("a?"), f("a_")}, true}, // a rename meeting a name
		{Windows, []entry{f("a."), f("a")}, false}, // Windows would merge these; renamed apart
		{Windows, []entry{f("café"), f("cafe\u0301")}, false},
		{Darwin, []entry{f("café"), f("cafe\u0301")}, true},
		{Darwin, []entry{f("Docs/café"), f("docs/CAFE\u0301")}, true},
		{Darwin, []entry{f("a\xff"), f("a%FF")}, true},
		{Darwin, []entry{f("a:b"), f("a_b")}, false},
		{Unix, []entry{f("README"), f("readme"), f("readme/x")}, false},
	} {
		err := claimAll(tc.p, tc.entries)
		var ae *AliasError
		if got := errors.As(err, &ae); got != tc.alias || (err != nil && !got) {
			t.Errorf("%v %v: %v, want alias %v", tc.p, tc.entries, err, tc.alias)
			continue
		}
		if tc.alias && !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("%v %v: %v is not ErrCorrupt", tc.p, tc.entries, err)
		}
	}
}

func TestAliasErrorText(t *testing.T) {
	err := claimAll(Windows, []entry{{"docs/README", false}, {"Docs/readme", false}})
	const want = `"Docs/readme" and "docs/README" are one file on Windows`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestClaimConcurrent(t *testing.T) {
	n := NewNames(Windows)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				name := fmt.Sprintf("d%d/f%d-%d", i%3, g, i)
				if err := n.Claim(name, name, false); err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Claim("D1/F3-1", "D1/F3-1", false); err == nil {
		t.Error("a case variant of a claimed name was accepted")
	}
}
