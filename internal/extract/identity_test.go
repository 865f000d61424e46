//go:build unix

package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// The ownership rule against a file swapped under the name of one this
// extraction wrote, by something that is not this extraction (a second
// unpack into the same directory, a hand): the file there is a stranger,
// whatever its name. The worst case is a hard link planted to someone's
// file with the size and mtime of the entry, so that only the identity
// tells them apart.

var mtime = time.Unix(1.5e9, 0)

func timedFile(name, data string) *archive.Entry {
	e := file(name, data)
	e.ModTime = mtime
	return e
}

// plantLink replaces dest/name with a hard link to the canary, made to look
// like the entry (size and mtime of "outside").
func plantLink(t *testing.T, s *scene, name string) {
	t.Helper()
	canary := filepath.Join(s.top, "canary")
	os.Chtimes(canary, mtime, mtime)
	s.infos[canary], _ = os.Lstat(canary)
	p := filepath.Join(s.dest, name)
	os.Remove(p)
	if err := os.Link(canary, p); err != nil {
		t.Fatal(err)
	}
}

func TestIdentityPlantedHardlink(t *testing.T) {
	for _, next := range []struct {
		name  string
		entry *archive.Entry
		opt   DirOptions
		want  error
	}{
		{"same name", timedFile("a", "replaced"), DirOptions{}, ErrExists},
		{"same name skipped", timedFile("a", "replaced"), DirOptions{Policy: Skip}, ErrSkipped},
		{"hard link", hardlink("b", "a"), DirOptions{}, errThereBefore},
		{"copy", fileCopy("b", "a", len("outside")), DirOptions{}, errThereBefore},
	} {
		t.Run(next.name, func(t *testing.T) {
			s := newScene(t)
			d, err := NewDir(s.dest, next.opt)
			if err != nil {
				t.Fatal(err)
			}
			first := timedFile("a", "outside") // the canary's size
			if err := d.Put(first, strings.NewReader(first.Comment)); err != nil {
				t.Fatal(err)
			}
			plantLink(t, s, "a")
			err = d.Put(next.entry, strings.NewReader(next.entry.Comment))
			d.Close()
			if !errors.Is(err, next.want) {
				t.Errorf("err = %v, want %v", err, next.want)
			}
			if _, err := os.Lstat(filepath.Join(s.dest, "b")); err == nil {
				t.Error("b made from the planted file")
			}
			if fi, _ := os.Lstat(filepath.Join(s.dest, "a")); !os.SameFile(fi, s.infos[filepath.Join(s.top, "canary")]) {
				t.Error("the planted link was replaced")
			}
			s.check(t, true)
		})
	}
}

// TestIdentityRenamedOver: a file renamed over one this extraction wrote
// is not its own (its size or mtime differ).
func TestIdentityRenamedOver(t *testing.T) {
	for _, stranger := range []struct {
		name, data string
		mtime      time.Time
	}{
		{"other size", "other data", mtime},
		{"other mtime", "mine", mtime.Add(time.Hour)},
	} {
		t.Run(stranger.name, func(t *testing.T) {
			s := newScene(t)
			d, _ := NewDir(s.dest, DirOptions{})
			put(t, d, timedFile("a", "mine"), strings.NewReader("mine"))
			planted := filepath.Join(s.top, "planted")
			os.WriteFile(planted, []byte(stranger.data), 0o644)
			os.Chtimes(planted, stranger.mtime, stranger.mtime)
			if err := os.Rename(planted, filepath.Join(s.dest, "a")); err != nil {
				t.Fatal(err)
			}
			err := d.Put(timedFile("a", "again"), strings.NewReader("again"))
			d.Close()
			if !errors.Is(err, ErrExists) {
				t.Errorf("err = %v, want ErrExists", err)
			}
			if b, _ := os.ReadFile(filepath.Join(s.dest, "a")); string(b) != stranger.data {
				t.Errorf("a = %q", b)
			}
		})
	}
}

// TestIdentitySwappedBeforeCommit: a held file's temporary name replaced
// by a planted hard link before its verdict. The commit renames what is
// there, and it is not this extraction's. (Held files have temporary
// names where the system cannot hold them unnamed: that way here.)
func TestIdentitySwappedBeforeCommit(t *testing.T) {
	skipStaged(t, "a file in a stage has no temporary name to swap")
	s := newScene(t)
	d, _ := NewDir(s.dest, DirOptions{})
	d.noTmpfile.Store(true)
	e := timedFile("a", "outside")
	e.Pending = true
	put(t, d, e, strings.NewReader(e.Comment))
	list, _ := filepath.Glob(filepath.Join(s.dest, ".unpack-*.tmp"))
	if len(list) != 1 {
		t.Fatalf("temporary files: %v", list)
	}
	plantLink(t, s, filepath.Base(list[0]))
	if err := d.Settle(e, nil); err != nil {
		t.Fatal(err)
	}
	errs := []error{
		d.Put(timedFile("a", "replaced"), strings.NewReader("replaced")),
		d.Put(fileCopy("b", "a", len("outside")), nil),
	}
	d.Close()
	if !errors.Is(errs[0], ErrExists) || !errors.Is(errs[1], errThereBefore) {
		t.Errorf("errs = %v", errs)
	}
	if _, err := os.Lstat(filepath.Join(s.dest, "b")); err == nil {
		t.Error("b copied from the planted file")
	}
	s.check(t, true)
}

// TestIdentityOwnLinks: hard links the archive makes to its own file leave
// it its own (its identity is then its inode): a later entry of either
// name replaces it, held or not.
func TestIdentityOwnLinks(t *testing.T) {
	for _, held := range []bool{false, true} {
		s := newScene(t)
		d, _ := NewDir(s.dest, DirOptions{})
		a, b := timedFile("a", "one"), hardlink("b", "a")
		a.Pending, b.Pending = held, held
		put(t, d, a, strings.NewReader("one"))
		put(t, d, b, nil)
		if held {
			if err := errors.Join(d.Settle(a, nil), d.Settle(b, nil)); err != nil {
				t.Fatal(err)
			}
		}
		put(t, d, timedFile("a", "two"), strings.NewReader("two"))
		put(t, d, timedFile("b", "three"), strings.NewReader("three"))
		put(t, d, hardlink("c", "a"), nil)
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{"a": "two", "b": "three", "c": "two"} {
			if got, _ := os.ReadFile(filepath.Join(s.dest, name)); string(got) != want {
				t.Errorf("held %v: %s = %q, want %q", held, name, got, want)
			}
		}
		s.check(t, false)
	}
}
