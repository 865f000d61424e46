package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The archives below try to get around the sink's rules as an attacker
// would: links re-pointed between entries, link chains that leave the
// destination only once several links exist, names that alias a user's
// files, two archives into one directory, standard input instead of a
// file. Each test looks at the disk afterwards, outside the destination
// too.

const (
	userBashrc = "the user's own .bashrc"
	userKeys   = "ssh-ed25519 AAAA the user's own key"
)

// userTree is a destination that already holds a user's files, beside a
// directory outside it holding a canary.
type userTree struct {
	dir, dest, outside string
	sshTime            time.Time
	archives           map[string]bool // archives written beside dest
}

func newUserTree(t *testing.T) *userTree {
	t.Helper()
	u := &userTree{dir: t.TempDir(), archives: map[string]bool{}}
	u.dest = filepath.Join(u.dir, "dest")
	u.outside = filepath.Join(u.dir, "outside")
	for _, d := range []string{u.dest, u.outside, filepath.Join(u.dest, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(u.dest, ".bashrc"), []byte(userBashrc), 0o644)
	os.WriteFile(filepath.Join(u.dest, ".ssh", "authorized_keys"), []byte(userKeys), 0o600)
	os.WriteFile(filepath.Join(u.outside, "canary"), []byte(secret), 0o600)
	u.sshTime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(filepath.Join(u.dest, ".ssh"), u.sshTime, u.sshTime)
	return u
}

// extract runs unpack x on arch (written beside dest, or given on standard
// input when stdin is set) with flags.
func (u *userTree) extract(t *testing.T, name string, arch []byte, stdin bool, flags ...string) (ExitCode, string) {
	t.Helper()
	args := append([]string{"x"}, flags...)
	var in *bytes.Reader
	if stdin {
		in = bytes.NewReader(arch)
		args = append(args, "-", "-o", u.dest)
	} else {
		u.archives[name] = true
		args = append(args, write(t, u.dir, name, arch), "-o", u.dest)
	}
	var code ExitCode
	var stderr string
	if in != nil {
		code, _, stderr = run(t, in, args...)
	} else {
		code, _, stderr = run(t, nil, args...)
	}
	return code, stderr
}

// check asserts what every attack must leave intact: the user's files and
// directories unchanged (unless overwrite), nothing outside the destination
// created or changed, no link in the destination resolving outside it, no
// temporary file left.
func (u *userTree) check(t *testing.T, overwrite bool) {
	t.Helper()
	if !overwrite {
		if b, err := os.ReadFile(filepath.Join(u.dest, ".bashrc")); err != nil || string(b) != userBashrc {
			t.Errorf(".bashrc = %q, %v; want the user's", b, err)
		}
		if fi, err := os.Lstat(filepath.Join(u.dest, ".bashrc")); err != nil || !fi.Mode().IsRegular() {
			t.Errorf(".bashrc is no longer a regular file: %v", err)
		}
		if b, err := os.ReadFile(filepath.Join(u.dest, ".ssh", "authorized_keys")); err != nil || string(b) != userKeys {
			t.Errorf("authorized_keys = %q, %v; want the user's", b, err)
		}
		fi, err := os.Lstat(filepath.Join(u.dest, ".ssh"))
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf(".ssh: %v, %v; want the user's 0700 directory", fi.Mode(), err)
		}
	}
	list, _ := os.ReadDir(u.outside)
	if len(list) != 1 {
		t.Errorf("outside holds %d entries, want the canary alone", len(list))
	}
	if b, err := os.ReadFile(filepath.Join(u.outside, "canary")); err != nil || string(b) != secret {
		t.Errorf("the canary changed: %q, %v", b, err)
	}
	top, _ := os.ReadDir(u.dir)
	for _, e := range top {
		if n := e.Name(); n != "dest" && n != "outside" && !u.archives[n] {
			t.Errorf("created beside the destination: %s", n)
		}
	}
	realDest, err := filepath.EvalSymlinks(u.dest)
	if err != nil {
		t.Fatal(err)
	}
	filepath.Walk(u.dest, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if strings.HasPrefix(fi.Name(), ".unpack-") {
			t.Errorf("temporary file left: %s", p)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if r := resolveOnDisk(p); !within(realDest, r) {
				t.Errorf("link %s resolves outside the destination, to %s", p, r)
			}
		}
		return nil
	})
}

// resolveOnDisk resolves the link at p as the kernel would, through every
// link on disk; a missing remainder is taken as it is written.
func resolveOnDisk(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	target, err := os.Readlink(p)
	if err != nil {
		return p
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	// The longest prefix that exists, resolved, then the rest.
	rest := ""
	for q := target; ; q = filepath.Dir(q) {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(r, rest)
		}
		if q == filepath.Dir(q) {
			return target
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}

func within(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// TestAttackRepointedLink: an archive re-points its own link between two
// entries of one name, so that the second write would land on a file the
// user already had (.bashrc). That file must survive with every policy but
// --overwrite, and --skip-existing never writes over anything.
func TestAttackRepointedLink(t *testing.T) {
	entries := []wentry{
		{name: "sub", kind: 'd'},
		{name: "d", kind: 's', link: "sub"},
		{name: "d/.bashrc", body: "evil one"},
		{name: "d", kind: 's', link: "."},
		{name: "d/.bashrc", body: "evil two"},
		{name: "d/.ssh/authorized_keys", body: "ssh-rsa evil"},
	}
	for _, f := range pathFormats {
		for _, flags := range [][]string{nil, {"--skip-existing"}} {
			t.Run(f.name+"/"+strings.Join(flags, ""), func(t *testing.T) {
				u := newUserTree(t)
				code, stderr := u.extract(t, "a."+f.name, f.write(t, entries), false, flags...)
				u.check(t, false)
				if flags == nil && code == ExitOK {
					t.Errorf("exit 0 although user files were in the way\n%s", stderr)
				}
			})
		}
	}
}

// TestAttackLinkChains: chains whose every link, checked as text against
// its own path, stays inside, but which resolve outside once the links
// before them exist on disk.
func TestAttackLinkChains(t *testing.T) {
	chains := map[string][]wentry{
		"a -> ., a/b -> ..": {
			{name: "a", kind: 's', link: "."},
			{name: "a/b", kind: 's', link: ".."},
		},
		"x/y -> .., c -> x/y/..": {
			{name: "x", kind: 'd'},
			{name: "x/y", kind: 's', link: ".."},
			{name: "c", kind: 's', link: "x/y/.."},
		},
		"a -> ., a/a/a/b -> ../../..": {
			{name: "a", kind: 's', link: "."},
			{name: "a/a/a/b", kind: 's', link: "../../.."},
		},
		"l -> s/.. before s -> .": {
			{name: "l", kind: 's', link: "s/.."},
			{name: "s", kind: 's', link: "."},
		},
	}
	for _, f := range pathFormats {
		for what, entries := range chains {
			t.Run(f.name+"/"+what, func(t *testing.T) {
				u := newUserTree(t)
				entries := append(append([]wentry{}, entries...), wentry{name: "after.txt", body: "after"})
				code, stderr := u.extract(t, "a."+f.name, f.write(t, entries), false)
				u.check(t, false)
				if code != ExitCorrupt || !strings.Contains(stderr, "insecure path") {
					t.Errorf("exit %d, want %d and a refusal\n%s", code, ExitCorrupt, stderr)
				}
				if b, err := os.ReadFile(filepath.Join(u.dest, "after.txt")); err != nil || string(b) != "after" {
					t.Errorf("the entry after the chain: %q, %v", b, err)
				}
			})
		}
	}
}

// TestAttackExistingDirectory: a directory entry naming one the user has
// (.ssh, 0700) must not change its mode or times, unless --overwrite.
func TestAttackExistingDirectory(t *testing.T) {
	entries := []wentry{{name: ".ssh", kind: 'd', mode: 0o777}}
	for _, f := range []string{"tar", "zip"} {
		write := writeTar
		if f == "zip" {
			write = writeZip
		}
		for _, flags := range [][]string{nil, {"--skip-existing"}} {
			t.Run(f+"/"+strings.Join(flags, ""), func(t *testing.T) {
				u := newUserTree(t)
				code, stderr := u.extract(t, "a."+f, write(t, entries), false, flags...)
				u.check(t, false)
				fi, err := os.Stat(filepath.Join(u.dest, ".ssh"))
				if err != nil || !fi.ModTime().Equal(u.sshTime) {
					t.Errorf(".ssh time %v, want the user's %v (%v)", fi.ModTime(), u.sshTime, err)
				}
				if code != ExitOK {
					t.Errorf("exit %d\n%s", code, stderr)
				}
			})
		}
	}
}

// TestAttackTwoArchives: a first archive leaves links in the destination
// (each harmless alone) that a second archive into the same directory uses
// to reach the user's files or to leave the destination.
func TestAttackTwoArchives(t *testing.T) {
	first := []wentry{
		{name: "l", kind: 's', link: "."},
		{name: "x", kind: 'd'},
		{name: "x/y", kind: 's', link: ".."},
	}
	second := []wentry{
		{name: "l/.bashrc", body: "evil through a link of the first archive"},
		{name: "l/.ssh/authorized_keys", body: "ssh-rsa evil"},
		{name: "x/y/z", kind: 's', link: ".."},
		{name: "c", kind: 's', link: "x/y/.."},
	}
	for _, f := range pathFormats {
		for _, flags := range [][]string{nil, {"--skip-existing"}} {
			t.Run(f.name+"/"+strings.Join(flags, ""), func(t *testing.T) {
				u := newUserTree(t)
				if code, stderr := u.extract(t, "a1."+f.name, f.write(t, first), false, flags...); code != ExitOK {
					t.Fatalf("first archive: exit %d\n%s", code, stderr)
				}
				code, stderr := u.extract(t, "a2."+f.name, f.write(t, second), false, flags...)
				u.check(t, false)
				if code == ExitOK {
					t.Errorf("second archive: exit 0\n%s", stderr)
				}
			})
		}
	}
}

// TestAttackStdinAsFile: the same hostile archive gives the same tree and
// exit code from standard input as from a file.
func TestAttackStdinAsFile(t *testing.T) {
	entries := []wentry{
		{name: "sub", kind: 'd'},
		{name: "d", kind: 's', link: "sub"},
		{name: "d/.bashrc", body: "evil one"},
		{name: "d", kind: 's', link: "."},
		{name: "d/.bashrc", body: "evil two"},
		{name: "a", kind: 's', link: "."},
		{name: "a/b", kind: 's', link: ".."},
		{name: "ok.txt", body: "fine"},
	}
	// A zip from a pipe is spooled and read by its central directory, as
	// the file is: with its links too, the trees are the same.
	for _, f := range []string{"tar", "zip"} {
		write := writeTar
		if f == "zip" {
			write = writeZip
		}
		t.Run(f, func(t *testing.T) {
			arch := write(t, entries)
			var trees [2]string
			var codes [2]ExitCode
			for i, stdin := range []bool{false, true} {
				u := newUserTree(t)
				codes[i], _ = u.extract(t, "a."+f, arch, stdin)
				u.check(t, false)
				trees[i] = treeOf(t, u.dest)
			}
			if codes[0] != codes[1] || trees[0] != trees[1] {
				t.Errorf("file: exit %d\n%s\nstdin: exit %d\n%s", codes[0], trees[0], codes[1], trees[1])
			}
		})
	}
}

// treeOf describes a directory tree: each path with its kind and content
// or link target.
func treeOf(t *testing.T, root string) string {
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&b, "%s -> %s\n", rel, target)
		case fi.IsDir():
			fmt.Fprintf(&b, "%s/\n", rel)
		default:
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "%s %q\n", rel, data)
		}
		return nil
	})
	return b.String()
}
