package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// fileCopy is a RAR 5 file-copy record read from a stream: a hard link
// entry marked Copy, with its source's size.
func fileCopy(name, of string, size int) *archive.Entry {
	return &archive.Entry{Name: name, Type: archive.TypeHardlink, Linkname: of, Copy: true, Size: int64(size), Mode: 0o640}
}

// TestDirCopy: a copy is an independent file with its source's content and
// its own mode; writing to one leaves the other as it was.
func TestDirCopy(t *testing.T) {
	s := newScene(t)
	errs := s.run(t, DirOptions{}, file("a", "original"), fileCopy("sub2/b", "a", 8))
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.check(t, false)
	a, b := filepath.Join(s.dest, "a"), filepath.Join(s.dest, "sub2", "b")
	got, err := os.ReadFile(b)
	if err != nil || string(got) != "original" {
		t.Fatalf("copy: %q, %v", got, err)
	}
	fa, _ := os.Stat(a)
	fb, _ := os.Stat(b)
	if os.SameFile(fa, fb) {
		t.Fatal("the copy is a hard link")
	}
	if fb.Mode().Perm()&^0o640 != 0 {
		t.Errorf("copy mode %v, want at most 0640", fb.Mode())
	}
	os.WriteFile(b, []byte("changed"), 0o644)
	if got, _ := os.ReadFile(a); string(got) != "original" {
		t.Errorf("writing the copy changed its source: %q", got)
	}
}

// TestDirCopyRepointed: the archive re-points the source's name between
// the original and the copy. The copy holds the original bytes or fails;
// nothing outside (the canary) nor a user's file is ever read into it.
func TestDirCopyRepointed(t *testing.T) {
	tests := []struct {
		name    string
		opt     DirOptions
		entries []*archive.Entry
		want    string // the copy's content; "" for no copy
	}{
		{"link outside refused", DirOptions{},
			[]*archive.Entry{file("a", "original"), symlink("a", "../canary"), fileCopy("b", "a", 8)}, "original"},
		{"link outside allowed", DirOptions{AllowOutsideLinks: true},
			[]*archive.Entry{file("a", "original"), symlink("a", "/etc/passwd"), fileCopy("b", "a", 8)}, ""},
		{"link outside allowed, to the canary", DirOptions{AllowOutsideLinks: true},
			[]*archive.Entry{file("a", "original"), symlink("a", "../canary"), fileCopy("b", "a", 7)}, ""},
		{"link to a user's file", DirOptions{},
			[]*archive.Entry{file("a", "original"), symlink("a", ".bashrc"), fileCopy("b", "a", 7)}, ""},
		{"link to a directory holding a user's file", DirOptions{},
			[]*archive.Entry{file("a", "original"), symlink("d", ".ssh"), fileCopy("b", "d/authorized_keys", 8)}, ""},
		{"a user's file", DirOptions{},
			[]*archive.Entry{fileCopy("b", ".bashrc", 7)}, ""},
		{"a user's file, skip-existing", DirOptions{Policy: Skip},
			[]*archive.Entry{fileCopy("b", ".bashrc", 7)}, ""},
		{"replaced by a later file", DirOptions{},
			[]*archive.Entry{file("a", "original"), file("a", "second!!"), fileCopy("b", "a", 8)}, "second!!"},
		{"size differs from the record", DirOptions{},
			[]*archive.Entry{file("a", "original"), fileCopy("b", "a", 1<<30)}, ""},
		{"source never extracted", DirOptions{},
			[]*archive.Entry{fileCopy("b", "nothere", 3)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newScene(t)
			s.noDirTimes = true
			errs := s.run(t, tc.opt, tc.entries...)
			if tc.opt.AllowOutsideLinks {
				// The link allowed out stays; the canary must not move.
				if b, err := os.ReadFile(filepath.Join(s.top, "canary")); err != nil || string(b) != "outside" {
					t.Errorf("canary: %q, %v", b, err)
				}
			} else {
				s.check(t, false)
			}
			got, err := os.ReadFile(filepath.Join(s.dest, "b"))
			copyErr := errs[len(tc.entries)-1]
			switch {
			case tc.want == "" && (err == nil || copyErr == nil):
				t.Errorf("copy made: %q (put: %v)", got, copyErr)
			case tc.want != "" && (err != nil || string(got) != tc.want || copyErr != nil):
				t.Errorf("copy: %q, %v (put: %v), want %q", got, err, copyErr, tc.want)
			}
		})
	}
}

// TestDirCopyHeld: a copy of a file still waiting for its verdict is not
// made (it would hold bytes not yet verified).
func TestDirCopyHeld(t *testing.T) {
	dest := t.TempDir()
	d, err := NewDir(dest, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := file("a", "original")
	a.Pending = true
	if err := d.Put(a, strings.NewReader("original")); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(fileCopy("b", "a", 8), nil); err == nil {
		t.Error("copy of a held file made")
	}
	if err := d.Settle(a, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil && !errors.Is(err, ErrInsecurePath) {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, "b")); err == nil {
		t.Error("b exists")
	}
}
