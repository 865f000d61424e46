package extract

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// A file is put over an existing name by exchanging the two names and
// removing what was there (see replace): the rules of a rename over it
// still hold, and the decision is made on the file actually swapped out.

// commitWays are the three ways a file reaches its name: created unnamed
// and linked (a zip entry), held under a temporary name and settled one by
// one, or written and renamed by the pool (SettleAll).
var commitWays = []string{"unnamed", "held", "pool"}

// putWay puts a file name with data the given way and returns its error.
func putWay(t *testing.T, d *Dir, way, name, data string) error {
	t.Helper()
	switch way {
	case "unnamed":
		return d.Put(file(name, data), strings.NewReader(data))
	case "held":
		e := &archive.Entry{Name: name, Type: archive.TypeFile, Pending: true, Size: maxQueued + 1}
		if err := d.Put(e, strings.NewReader(data)); err != nil {
			return err
		}
		return d.Settle(e, nil)
	}
	e, r := pending(name, data)
	if err := d.Put(e, r); err != nil {
		return err
	}
	return d.SettleAll([]archive.Verdict{{Entry: e}})[0]
}

// outsideScene is a destination beside a canary file outside it, and the
// canary's identity.
func outsideScene(t *testing.T) (dest, canary string, canaryInfo os.FileInfo) {
	top := t.TempDir()
	dest, canary = filepath.Join(top, "dest"), filepath.Join(top, "canary")
	os.Mkdir(dest, 0o755)
	if err := os.WriteFile(canary, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	canaryInfo, _ = os.Lstat(canary)
	return dest, canary, canaryInfo
}

func checkCanary(t *testing.T, what, canary string, was os.FileInfo) {
	t.Helper()
	b, err := os.ReadFile(canary)
	fi, _ := os.Lstat(canary)
	if err != nil || string(b) != "outside" || !os.SameFile(fi, was) || !fi.ModTime().Equal(was.ModTime()) {
		t.Errorf("%s: canary %q %v", what, b, err)
	}
}

// TestReplaceExisting: the name is the user's file, a hard link to a file
// outside, a symlink to a file outside or to a directory. With Overwrite
// the name becomes the entry's file (the link itself replaced, never
// followed, the file outside untouched, its link count back to one);
// otherwise nothing changes.
func TestReplaceExisting(t *testing.T) {
	for _, way := range commitWays {
		for _, old := range []string{"file", "hardlink", "symlink", "dirlink"} {
			for _, pol := range []Policy{Overwrite, Refuse, Skip} {
				what := way + " over " + old
				dest, canary, was := outsideScene(t)
				a := filepath.Join(dest, "a")
				os.Mkdir(filepath.Join(dest, "sub"), 0o755)
				switch old {
				case "file":
					os.WriteFile(a, []byte("user"), 0o644)
				case "hardlink":
					os.Link(canary, a)
				case "symlink":
					os.Symlink(canary, a)
				case "dirlink":
					os.Symlink("sub", a)
				}
				before, _ := os.Lstat(a)
				d, _ := NewDir(dest, DirOptions{Policy: pol})
				err := putWay(t, d, way, "a", "new")
				if cerr := d.Close(); cerr != nil {
					t.Errorf("%s: Close: %v", what, cerr)
				}
				checkCanary(t, what, canary, was)
				if fi, _ := os.Lstat(canary); fi.Sys().(*syscall.Stat_t).Nlink != 1 && pol == Overwrite {
					t.Errorf("%s: canary has %d links", what, fi.Sys().(*syscall.Stat_t).Nlink)
				}
				if temps(dest) {
					t.Errorf("%s: temporary files left: %v", what, visible(t, dest))
				}
				fi, _ := os.Lstat(a)
				b, _ := os.ReadFile(a)
				if pol == Overwrite {
					if err != nil || !fi.Mode().IsRegular() || string(b) != "new" {
						t.Errorf("%s: err %v, a %v %q", what, err, fi.Mode(), b)
					}
					continue
				}
				want := map[Policy]error{Refuse: ErrExists, Skip: ErrSkipped}[pol]
				if !errors.Is(err, want) || !os.SameFile(fi, before) {
					t.Errorf("%s, policy %d: err %v, a changed: %v", what, pol, err, !os.SameFile(fi, before))
				}
			}
		}
	}
}

// TestReplaceDirectoryRefused: a directory at the name is never replaced,
// with Overwrite either.
func TestReplaceDirectoryRefused(t *testing.T) {
	for _, way := range commitWays {
		dest := t.TempDir()
		os.MkdirAll(filepath.Join(dest, "a"), 0o755)
		os.WriteFile(filepath.Join(dest, "a", "keep"), []byte("user"), 0o644)
		d, _ := NewDir(dest, DirOptions{Policy: Overwrite})
		err := putWay(t, d, way, "a", "new")
		d.Close()
		if !errors.Is(err, ErrExists) {
			t.Errorf("%s: err = %v", way, err)
		}
		sameTree(t, way, dest, false, map[string]string{"a": "/", "a/keep": "user"})
	}
}

// TestReplaceChangedBeforeExchange: what is at the name changes between
// the policy check and the exchange. The decision is made again on what
// the exchange took out, and anything the policy keeps is put back.
func TestReplaceChangedBeforeExchange(t *testing.T) {
	for _, c := range []struct {
		name   string
		policy Policy
		mine   bool // the name is this extraction's file at the check
		change func(a string) error
		want   error
		tree   map[string]string
	}{
		{"own file, then the user's", Refuse, true, func(a string) error {
			os.WriteFile(a+".x", []byte("user"), 0o644)
			return os.Rename(a+".x", a)
		}, ErrExists, map[string]string{"a": "user"}},
		{"own file, then the user's, skip", Skip, true, func(a string) error {
			os.WriteFile(a+".x", []byte("user"), 0o644)
			return os.Rename(a+".x", a)
		}, ErrSkipped, map[string]string{"a": "user"}},
		{"own file, then a symlink", Refuse, true, func(a string) error {
			os.Remove(a)
			return os.Symlink("elsewhere", a)
		}, ErrExists, map[string]string{"a": "→elsewhere"}},
		{"user's file, then a directory", Overwrite, false, func(a string) error {
			os.Remove(a)
			os.Mkdir(a, 0o755)
			return os.WriteFile(filepath.Join(a, "keep"), []byte("user"), 0o644)
		}, ErrExists, map[string]string{"a": "/", "a/keep": "user"}},
		{"user's file, then another", Overwrite, false, func(a string) error {
			os.WriteFile(a+".x", []byte("other"), 0o644)
			return os.Rename(a+".x", a)
		}, nil, map[string]string{"a": "new"}},
	} {
		for _, way := range commitWays {
			dest := t.TempDir()
			a := filepath.Join(dest, "a")
			d, _ := NewDir(dest, DirOptions{Policy: c.policy})
			if c.mine {
				if err := putWay(t, d, way, "a", "old"); err != nil {
					t.Fatal(err)
				}
			} else {
				os.WriteFile(a, []byte("user"), 0o644)
			}
			called := false
			testBeforeReplace = func(string) {
				if !called {
					called = true
					if err := c.change(a); err != nil {
						t.Error(err)
					}
				}
			}
			err := putWay(t, d, way, "a", "new")
			testBeforeReplace = nil
			d.Close()
			what := c.name + ", " + way
			if !called {
				t.Errorf("%s: no replacement", what)
			}
			if !errors.Is(err, c.want) || c.want == nil && err != nil {
				t.Errorf("%s: err = %v, want %v", what, err, c.want)
			}
			sameTree(t, what, dest, false, c.tree)
		}
	}
}

// TestReplaceFailedKeepsOld: a file that fails its check never takes the
// name: the file there stays, with Overwrite too.
func TestReplaceFailedKeepsOld(t *testing.T) {
	for _, way := range commitWays {
		dest := t.TempDir()
		a := filepath.Join(dest, "a")
		os.WriteFile(a, []byte("user"), 0o644)
		before, _ := os.Lstat(a)
		d, _ := NewDir(dest, DirOptions{Policy: Overwrite})
		var err error
		switch way {
		case "unnamed":
			err = d.Put(file("a", "new"), io.MultiReader(strings.NewReader("ne"), errReader{errStream}))
		case "held":
			e := &archive.Entry{Name: "a", Type: archive.TypeFile, Pending: true, Size: maxQueued + 1}
			put(t, d, e, strings.NewReader("new"))
			err = d.Settle(e, errStream)
		default:
			e, r := pending("a", "new")
			put(t, d, e, r)
			err = d.SettleAll([]archive.Verdict{{Entry: e, Err: errStream}})[0]
		}
		d.Close()
		if !errors.Is(err, errStream) {
			t.Errorf("%s: err = %v", way, err)
		}
		if fi, _ := os.Lstat(a); !os.SameFile(fi, before) {
			t.Errorf("%s: the user's file was replaced", way)
		}
		sameTree(t, way, dest, false, map[string]string{"a": "user"})
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestReplaceWithoutExchange: where the file system refuses the exchange,
// a rename replaces the name, with the same policy.
func TestReplaceWithoutExchange(t *testing.T) {
	for _, way := range commitWays {
		for _, pol := range []Policy{Overwrite, Refuse} {
			dest := t.TempDir()
			os.WriteFile(filepath.Join(dest, "a"), []byte("user"), 0o644)
			d, _ := NewDir(dest, DirOptions{Policy: pol})
			d.noExchange.Store(true)
			err := putWay(t, d, way, "a", "new")
			d.Close()
			want := map[Policy]string{Overwrite: "new", Refuse: "user"}[pol]
			if (err == nil) != (pol == Overwrite) {
				t.Errorf("%s, policy %d: err = %v", way, pol, err)
			}
			sameTree(t, way, dest, false, map[string]string{"a": want})
		}
	}
}

// TestReplaceAbort: an interrupt right after replacements leaves no
// temporary name, the replaced files' included.
func TestReplaceAbort(t *testing.T) {
	dest := t.TempDir()
	want := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		os.WriteFile(filepath.Join(dest, n), []byte("user"), 0o644)
		want[n] = "new"
	}
	d, _ := NewDir(dest, DirOptions{Policy: Overwrite})
	for n := range want {
		if err := d.Put(file(n, "new"), strings.NewReader("new")); err != nil {
			t.Fatal(err)
		}
	}
	d.Abort()
	sameTree(t, "after Abort", dest, false, want)
	d.Close()
}
