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

// The attacks of issue 17, entry by entry against a destination that
// holds the user's files, beside a canary outside it.

func file(name, data string) *archive.Entry {
	return &archive.Entry{Name: name, Type: archive.TypeFile, Size: int64(len(data)), Comment: data}
}
func dir(name string, mode os.FileMode) *archive.Entry {
	return &archive.Entry{Name: name, Type: archive.TypeDir, Mode: mode, ModTime: time.Unix(1e8, 0)}
}
func symlink(name, to string) *archive.Entry {
	return &archive.Entry{Name: name, Type: archive.TypeSymlink, Linkname: to}
}
func hardlink(name, to string) *archive.Entry {
	return &archive.Entry{Name: name, Type: archive.TypeHardlink, Linkname: to}
}

// scene is a destination "dest" with the user's files, next to a canary,
// inside a fresh directory.
type scene struct {
	top, dest  string
	before     map[string]string
	infos      map[string]os.FileInfo
	noDirTimes bool // directories may have been written in: their mtimes change
}

func newScene(t *testing.T) *scene {
	t.Helper()
	top := t.TempDir()
	dest := filepath.Join(top, "dest")
	for p, data := range map[string]string{
		"canary":                    "outside",
		"dest/.bashrc":              "user rc",
		"dest/.ssh/authorized_keys": "user key",
		"dest/sub/keep":             "user sub",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(top, p)), 0o755)
		if err := os.WriteFile(filepath.Join(top, p), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(dest, ".ssh"), 0o700)
	old := time.Unix(5e8, 0)
	os.Chtimes(filepath.Join(dest, ".ssh"), old, old)
	if err := os.Symlink("sub", filepath.Join(dest, "userlink")); err != nil {
		t.Fatal(err)
	}
	s := &scene{top: top, dest: dest, infos: map[string]os.FileInfo{}}
	s.before = tree(t, dest)
	filepath.WalkDir(top, func(p string, _ os.DirEntry, _ error) error {
		fi, _ := os.Lstat(p)
		s.infos[p] = fi
		return nil
	})
	return s
}

// run puts the entries and returns each one's error.
func (s *scene) run(t *testing.T, opt DirOptions, entries ...*archive.Entry) []error {
	t.Helper()
	d, err := NewDir(s.dest, opt)
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, d.Put(e, strings.NewReader(e.Comment)))
	}
	if err := d.Close(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// check asserts that nothing outside dest changed, that no symlink in dest
// resolves outside it, and that the user's files are as they were (content,
// identity, mode and time) unless changed is set.
func (s *scene) check(t *testing.T, changed bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.top, "canary"))
	if err != nil || string(b) != "outside" {
		t.Errorf("canary: %q, %v", b, err)
	}
	list, _ := os.ReadDir(s.top)
	if len(list) != 2 {
		t.Errorf("outside the destination: %v", list)
	}
	escapes(t, s.dest, s.before)
	if changed {
		return
	}
	now := tree(t, s.dest)
	for p, v := range s.before {
		if now[p] != v {
			t.Errorf("user's %s: %q, was %q", p, now[p], v)
		}
	}
	for p, fi := range s.infos {
		if !strings.HasPrefix(p, s.dest+"/") {
			continue
		}
		now, err := os.Lstat(p)
		if err != nil || !os.SameFile(now, fi) || now.Mode() != fi.Mode() ||
			!now.ModTime().Equal(fi.ModTime()) && !(s.noDirTimes && fi.IsDir()) {
			t.Errorf("user's %s changed: %v %v", p, now, err)
		}
	}
}

// escapes fails t for every symlink below dest that resolves outside it,
// but for the user's own links (in before).
func escapes(t *testing.T, dest string, before map[string]string) {
	t.Helper()
	real, _ := filepath.EvalSymlinks(dest)
	filepath.WalkDir(dest, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.Type()&os.ModeSymlink == 0 {
			return nil
		}
		if rel, _ := filepath.Rel(dest, p); before[rel] != "" {
			l, _ := os.Readlink(p)
			if before[rel] == "→"+l {
				return nil
			}
		}
		// Resolve lexically through the links, as the kernel would,
		// without requiring the final component to exist.
		r, err := resolveOS(p)
		if err == nil && r != real && !strings.HasPrefix(r, real+string(filepath.Separator)) {
			rel, _ := filepath.Rel(dest, p)
			t.Errorf("symlink %s resolves outside: %s", rel, r)
		}
		return nil
	})
}

// resolveOS resolves p through the real file system, following links in
// every component; a missing component ends the walk, the rest as text.
func resolveOS(p string) (string, error) {
	cur := "/"
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for n := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			if err != nil {
				return filepath.Clean(filepath.Join(append([]string{cur}, rest...)...)), nil
			}
			continue
		}
		if n++; n > 40 {
			return "", errors.New("loop")
		}
		l, _ := os.Readlink(next)
		if filepath.IsAbs(l) {
			cur = "/"
		}
		rest = append(strings.Split(l, "/"), rest...)
	}
	return cur, nil
}

func last(errs []error) error { return errs[len(errs)-1] }

// TestAttackRepointedLink: d → sub, d/.bashrc, d → ., d/.bashrc again must
// not overwrite the user's .bashrc, under any policy but Overwrite.
func TestAttackRepointedLink(t *testing.T) {
	for _, pol := range []Policy{Refuse, Skip} {
		s := newScene(t)
		os.Remove(filepath.Join(s.dest, "sub/keep"))
		os.Remove(filepath.Join(s.dest, "sub"))
		delete(s.before, "sub")
		delete(s.before, "sub/keep")
		delete(s.infos, filepath.Join(s.dest, "sub"))
		delete(s.infos, filepath.Join(s.dest, "sub/keep"))
		errs := s.run(t, DirOptions{Policy: pol},
			dir("sub", 0), symlink("d", "sub"), file("d/.bashrc", "evil"), symlink("d", "."), file("d/.bashrc", "evil2"),
			symlink("e", ".ssh"), file("e/authorized_keys", "evil key"))
		want := ErrExists
		if pol == Skip {
			want = ErrSkipped
		}
		if !errors.Is(errs[4], want) || !errors.Is(errs[6], want) {
			t.Errorf("policy %d: %v", pol, errs)
		}
		delete(s.before, "userlink") // dangling now: sub was removed above
		s.check(t, false)
		if b, _ := os.ReadFile(filepath.Join(s.dest, "sub/.bashrc")); string(b) != "evil" {
			t.Errorf("sub/.bashrc = %q", b)
		}
	}
}

// TestAttackLinkChains: links that resolve outside only through links the
// archive made before (or after) them are refused or removed.
func TestAttackLinkChains(t *testing.T) {
	for _, tc := range [][]*archive.Entry{
		{symlink("a", "."), symlink("a/b", "..")},
		{symlink("x/y", ".."), symlink("c", "x/y/..")},
		{symlink("a", "."), symlink("a/a/a/b", "../../..")},
		{symlink("l", "s/.."), symlink("s", ".")},
		{symlink("l", "s/../x"), dir("s", 0), symlink("s/t", ".."), symlink("m", "s/t/..")},
		{symlink("p/l", "../s/../.."), symlink("s", "p")},
		{symlink("l", "userlink/../.."), symlink("k", "l/x")},
		{symlink("m", "q/r/../.."), dir("q", 0), symlink("q/r", "."), file("f", "")},
		{symlink("l1", "l2/.."), symlink("l2", "l3/.."), symlink("l3", ".")},
	} {
		s := newScene(t)
		errs := s.run(t, DirOptions{}, tc...)
		refused := false
		for _, err := range errs {
			if err != nil && !errors.Is(err, ErrInsecurePath) {
				t.Errorf("%v: %v", names(tc), err)
			}
			refused = refused || err != nil
		}
		if !refused {
			t.Errorf("%v: nothing refused", names(tc))
		}
		s.check(t, false)
	}
}

func names(es []*archive.Entry) []string {
	var n []string
	for _, e := range es {
		n = append(n, e.Name+"→"+e.Linkname)
	}
	return n
}

// TestExistingDirKeepsMetadata: a 0777 .ssh/ entry leaves the user's .ssh
// as it was unless Overwrite.
func TestExistingDirKeepsMetadata(t *testing.T) {
	for _, pol := range []Policy{Refuse, Skip, Overwrite} {
		s := newScene(t)
		errs := s.run(t, DirOptions{Policy: pol}, dir(".ssh/", 0o777), dir("sub", 0o777))
		for _, err := range errs {
			if err != nil {
				t.Errorf("policy %d: %v", pol, err)
			}
		}
		fi, _ := os.Stat(filepath.Join(s.dest, ".ssh"))
		if pol != Overwrite {
			s.check(t, false)
			continue
		}
		s.check(t, true)
		if fi.Mode().Perm() != 0o777&^processUmask() || !fi.ModTime().Equal(time.Unix(1e8, 0)) {
			t.Errorf("Overwrite: .ssh %v %v", fi.Mode(), fi.ModTime())
		}
	}
}

// TestDirModesAtClose: directory modes and times are applied at Close,
// deepest first (a 0555 directory still receives its files), through the
// umask unless running as root.
func TestDirModesAtClose(t *testing.T) {
	for _, umask := range []os.FileMode{0, 0o027} {
		dest := t.TempDir()
		d, _ := NewDir(dest, DirOptions{})
		d.umask = umask
		for _, e := range []*archive.Entry{dir("ro", 0o555), dir("ro/inner", 0o751), file("ro/inner/f", "x"),
			{Name: "ro/g", Type: archive.TypeFile, Mode: 0o666}} {
			if err := d.Put(e, strings.NewReader(e.Comment)); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]os.FileMode{"ro": 0o555, "ro/inner": 0o751, "ro/g": 0o666} {
			fi, _ := os.Stat(filepath.Join(dest, name))
			if got := fi.Mode().Perm(); got != want&^umask {
				t.Errorf("umask %o: %s mode %o, want %o", umask, name, got, want&^umask)
			}
			if fi.IsDir() && !fi.ModTime().Equal(time.Unix(1e8, 0)) {
				t.Errorf("%s mtime %v", name, fi.ModTime())
			}
		}
		os.Chmod(filepath.Join(dest, "ro"), 0o755)
		os.Chmod(filepath.Join(dest, "ro/inner"), 0o755)
	}
}

// TestRootEscapeRefused: os.Root's own refusal is a refused path.
func TestRootEscapeRefused(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = root.Lstat("../x")
	root.Close()
	if err = insecure(err); !errors.Is(err, ErrInsecurePath) {
		t.Errorf("%v is no ErrInsecurePath", err)
	}
	// Through a link the user had in the destination, to outside.
	s := newScene(t)
	os.Symlink("../", filepath.Join(s.dest, "up"))
	os.Symlink(s.top, filepath.Join(s.dest, "abs"))
	s.before = tree(t, s.dest)
	errs := s.run(t, DirOptions{Policy: Overwrite}, file("up/canary", "evil"), file("abs/canary", "evil"),
		symlink("l", "abs"), dir("up/d", 0))
	for i, err := range errs {
		if !errors.Is(err, ErrInsecurePath) {
			t.Errorf("entry %d: %v", i, err)
		}
	}
	s.check(t, false)
}

// TestHardlinkRules: a hard link goes only to a regular file this
// extraction wrote, and a refusal names the target.
func TestHardlinkRules(t *testing.T) {
	s := newScene(t)
	errs := s.run(t, DirOptions{}, hardlink("h1", ".bashrc"), hardlink("h2", "../canary"), symlink("ln", "sub"),
		hardlink("h3", "ln"), hardlink("h4", "ln/keep"), file("mine", "m"), hardlink("h5", "mine"))
	var te *TargetError
	if !errors.Is(errs[0], errThereBefore) || !errors.As(errs[0], &te) || te.Target != ".bashrc" {
		t.Errorf("to a user's file: %v", errs[0])
	}
	if !errors.Is(errs[1], ErrInsecurePath) || !errors.As(errs[1], &te) || te.Target != "../canary" {
		t.Errorf("outside: %v", errs[1])
	}
	if !errors.Is(errs[3], ErrInsecurePath) || errs[4] == nil || errs[6] != nil {
		t.Errorf("to a link, through a link, to mine: %v", errs)
	}
	s.check(t, true)
	a, _ := os.Stat(filepath.Join(s.dest, "mine"))
	b, _ := os.Stat(filepath.Join(s.dest, "h5"))
	if !os.SameFile(a, b) {
		t.Error("h5 is not mine")
	}
	for _, n := range []string{"h1", "h2", "h3", "h4"} {
		if _, err := os.Lstat(filepath.Join(s.dest, n)); err == nil {
			t.Errorf("%s made", n)
		}
	}
	// Skip: a link to a file that was there before is skipped.
	s = newScene(t)
	if errs := s.run(t, DirOptions{Policy: Skip}, file(".bashrc", "x"), hardlink("h", ".bashrc")); !errors.Is(errs[1], ErrSkipped) {
		t.Errorf("Skip: %v", errs)
	}
	s.check(t, false)
}
