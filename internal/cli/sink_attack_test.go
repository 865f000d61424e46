package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The attacks of issue 17 on the directory sink, as archives built in the
// test, extracted by the command into a destination holding the user's
// files, next to a canary: the tree, the canary, the exit code and the
// message.

type attackScene struct{ top, dest string }

func newAttackScene(t *testing.T) attackScene {
	t.Helper()
	top := t.TempDir()
	dest := filepath.Join(top, "dest")
	os.MkdirAll(filepath.Join(dest, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(top, "canary"), []byte("outside"), 0o644)
	os.WriteFile(filepath.Join(dest, ".bashrc"), []byte("user rc"), 0o644)
	os.WriteFile(filepath.Join(dest, ".ssh/authorized_keys"), []byte("user key"), 0o600)
	old := time.Unix(5e8, 0)
	os.Chtimes(filepath.Join(dest, ".ssh"), old, old)
	return attackScene{top, dest}
}

func (s attackScene) extract(t *testing.T, name string, arch []byte, flags ...string) (ExitCode, string) {
	t.Helper()
	p := write(t, s.top, name, arch)
	code, _, stderr := run(t, nil, append([]string{"x", p, "-o", s.dest}, flags...)...)
	return code, stderr
}

// intact checks the canary, that nothing else appeared outside, that the
// user's files and .ssh are as they were, and that no symlink in the
// destination resolves outside it.
func (s attackScene) intact(t *testing.T) {
	t.Helper()
	if b, _ := os.ReadFile(filepath.Join(s.top, "canary")); string(b) != "outside" {
		t.Errorf("canary: %q", b)
	}
	if list, _ := os.ReadDir(s.top); len(list) != 3 {
		t.Errorf("outside the destination: %v", list)
	}
	for p, want := range map[string]string{".bashrc": "user rc", ".ssh/authorized_keys": "user key"} {
		if b, _ := os.ReadFile(filepath.Join(s.dest, p)); string(b) != want {
			t.Errorf("user's %s: %q", p, b)
		}
	}
	if fi, _ := os.Stat(filepath.Join(s.dest, ".ssh")); fi.Mode().Perm() != 0o700 || !fi.ModTime().Equal(time.Unix(5e8, 0)) {
		t.Errorf(".ssh: %v %v", fi.Mode(), fi.ModTime())
	}
	destReal, _ := filepath.EvalSymlinks(s.dest)
	filepath.WalkDir(s.dest, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.Type()&os.ModeSymlink == 0 {
			return nil
		}
		// The link itself, or what its last resolvable prefix names.
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			l, _ := os.Readlink(p)
			r = filepath.Join(filepath.Dir(p), l)
		}
		if r != destReal && !strings.HasPrefix(r, destReal+"/") && !strings.HasPrefix(r, s.dest+"/") {
			t.Errorf("symlink %s resolves outside: %s", p, r)
		}
		return nil
	})
}

func TestAttackRepointedLinkCLI(t *testing.T) {
	entries := []wentry{
		{name: "sub", kind: 'd'},
		{name: "d", kind: 's', link: "sub"},
		{name: "d/.bashrc", body: "evil"},
		{name: "d", kind: 's', link: "."},
		{name: "d/.bashrc", body: "evil 2"},
		{name: "k", kind: 's', link: ".ssh"},
		{name: "k/authorized_keys", body: "evil key"},
		{name: ".ssh", kind: 'd'}, // 0755 in the archive
	}
	for _, tc := range []struct {
		flag string
		code ExitCode
		msg  string
	}{
		{"", ExitError, "d/.bashrc: already exists"},
		{"--skip-existing", ExitOK, "d/.bashrc: warning: skipped: .bashrc exists"},
	} {
		for _, f := range []struct {
			name  string
			write func(*testing.T, []wentry) []byte
		}{{"a.tar", writeTar}, {"a.zip", writeZip}} {
			s := newAttackScene(t)
			args := []string{}
			if tc.flag != "" {
				args = append(args, tc.flag)
			}
			code, stderr := s.extract(t, f.name, f.write(t, entries), args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("%s %s: exit %d, want %d and %q:\n%s", f.name, tc.flag, code, tc.code, tc.msg, stderr)
			}
			s.intact(t)
			if b, _ := os.ReadFile(filepath.Join(s.dest, "sub/.bashrc")); string(b) != "evil" {
				t.Errorf("%s: sub/.bashrc = %q", f.name, b)
			}
		}
	}
}

func TestAttackLinkChainsCLI(t *testing.T) {
	for _, tc := range []struct {
		entries []wentry
		msg     string
	}{
		{[]wentry{{name: "a", kind: 's', link: "."}, {name: "a/b", kind: 's', link: ".."}},
			`a/b: insecure path: symlink target ".."`},
		{[]wentry{{name: "x/y", kind: 's', link: ".."}, {name: "c", kind: 's', link: "x/y/.."}},
			`c: insecure path: symlink target "x/y/.." resolves outside the destination`},
		{[]wentry{{name: "a", kind: 's', link: "."}, {name: "a/a/a/b", kind: 's', link: "../../.."}},
			`a/a/a/b: insecure path: symlink target "../../.."`},
		{[]wentry{{name: "l", kind: 's', link: "s/.."}, {name: "s", kind: 's', link: "."}},
			"s: insecure path: symlink l → s/.. made earlier now resolves outside the destination: removed"},
	} {
		for _, f := range []struct {
			name  string
			write func(*testing.T, []wentry) []byte
		}{{"a.tar", writeTar}, {"a.zip", writeZip}} {
			s := newAttackScene(t)
			code, stderr := s.extract(t, f.name, f.write(t, tc.entries))
			if code != ExitCorrupt || !strings.Contains(stderr, tc.msg) {
				t.Errorf("%s: exit %d, want %d and %q:\n%s", f.name, code, ExitCorrupt, tc.msg, stderr)
			}
			s.intact(t)
		}
	}
}
