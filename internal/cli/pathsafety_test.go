package cli

import (
	"archive/tar"
	stdzip "archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vector is one hostile entry (or a few in a row): what it is, the message
// its refusal must carry, and the formats that cannot carry it.
type vector struct {
	what    string
	entries []wentry
	msg     string            // in the refusal
	msgFor  map[string]string // format → message where it differs
	skip    string            // formats that cannot carry it, space-separated
}

// The 7z and RAR 4 readers turn '\' into '/' (Windows archivers' separator),
// so a backslash ".." is refused as "..".
var hostile = []vector{
	{what: "dot-dot", entries: []wentry{{name: "../up.txt", body: "x"}}, msg: `../up.txt: insecure path: ".." in path`},
	// A leading "/" or drive letter is stripped (with a warning); ".."
	// after it stays refused.
	{what: "absolute, then ..", entries: []wentry{{name: "/../abs.txt", body: "x"}}, msg: `/../abs.txt: insecure path: ".." in path`},
	{what: "backslash", entries: []wentry{{name: `..\win.txt`, body: "x"}}, msg: "insecure path: backslash",
		msgFor: map[string]string{"7z": `../win.txt: insecure path: ".." in path`, "rar4": `../win.txt: insecure path: ".." in path`}},
	{what: "drive letter, then ..", entries: []wentry{{name: "C:/../drive.txt", body: "x"}}, msg: `C:/../drive.txt: insecure path: ".." in path`},
	// tar (archive/tar) cannot write a NUL in a name; in 7z a NUL ends it.
	{what: "NUL byte", entries: []wentry{{name: "nul\x00name.txt", body: "x"}}, msg: "NUL byte", skip: "tar 7z"},
	{what: "long name", entries: []wentry{{name: strings.Repeat("n", 300) + ".txt", body: "x"}}, msg: "longer than 255"},
	{what: "symlink to /", entries: []wentry{{name: "rootlink", kind: 's', link: "/"}}, msg: "rootlink: insecure path: symlink to absolute path"},
	{what: "symlink out, then a file through it", entries: []wentry{
		{name: "uplink", kind: 's', link: "../outside"},
		{name: "uplink/through.txt", body: "x"},
	}, msg: "uplink: insecure path: symlink target \"../outside\" leaves the destination"},
	// zip, 7z and RAR 4 have no hard links.
	{what: "hard link out", entries: []wentry{{name: "hardout", kind: 'h', link: "../outside/secret"}},
		msg: "hardout: insecure path", skip: "zip 7z rar4"},
	{what: "directory replaced by a symlink", entries: []wentry{
		{name: "sub", kind: 'd'},
		{name: "sub", kind: 's', link: "."},
		{name: "sub/after.txt", body: "inside"},
	}, msg: "sub: already exists: a directory extracted from this archive is in the way"},
}

// pathFormats are the formats that carry names, with their writers.
var pathFormats = []struct {
	name  string
	write func(t *testing.T, entries []wentry) []byte
}{
	{"tar", writeTar},
	{"zip", writeZip},
	{"7z", func(_ *testing.T, e []wentry) []byte { return write7z(e) }},
	{"rar5", func(_ *testing.T, e []wentry) []byte { return writeRAR5(e) }},
	{"rar4", func(_ *testing.T, e []wentry) []byte { return writeRAR4(e) }},
}

func writeTar(t *testing.T, entries []wentry) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(e.body)),
			Format: tar.FormatPAX}
		switch e.kind {
		case 'd':
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		case 's':
			h.Typeflag, h.Size = tar.TypeSymlink, 0
		case 'h':
			h.Typeflag, h.Size = tar.TypeLink, 0
		}
		if e.mode != 0 {
			h.Mode = e.mode
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(e.body))
	}
	tw.Close()
	return buf.Bytes()
}

// writeZip stores entries (Store, so that a test can damage their bytes in
// place); a symlink is Unix mode S_IFLNK with the target as data.
func writeZip(t *testing.T, entries []wentry) []byte {
	var buf bytes.Buffer
	zw := stdzip.NewWriter(&buf)
	for _, e := range entries {
		fh := &stdzip.FileHeader{Name: e.name, Method: stdzip.Store}
		body := e.body
		switch e.kind {
		case 'd':
			fh.Name += "/"
			fh.SetMode(fs.ModeDir | 0o755)
			if e.mode != 0 {
				fh.SetMode(fs.ModeDir | fs.FileMode(e.mode))
			}
		case 's':
			fh.SetMode(fs.ModeSymlink | 0o777)
			body = e.link
		case 'h':
			t.Fatal("zip has no hard links")
		default:
			fh.SetMode(0o644)
		}
		w, err := zw.CreateHeader(fh)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	zw.Close()
	return buf.Bytes()
}

const secret = "SECRET-OUTSIDE-CONTENT"

// extractHostile writes arch into a fresh directory beside an "outside"
// directory holding a secret, extracts it into "dest", and checks that
// nothing outside dest was created or changed and that the secret was not
// read into dest (flags are added to the command). It returns the exit
// code, stderr and dest.
func extractHostile(t *testing.T, fileName string, arch []byte, flags ...string) (ExitCode, string, string) {
	t.Helper()
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.Mkdir(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret"), []byte(secret), 0o600)
	before, _ := os.Stat(filepath.Join(outside, "secret"))
	p := write(t, dir, fileName, arch)
	dest := filepath.Join(dir, "dest")
	code, _, stderr := run(t, nil, append([]string{"x", p, "-o", dest}, flags...)...)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != "outside" && n != "dest" && n != fileName {
			t.Errorf("created outside the destination: %s", n)
		}
	}
	if list, _ := os.ReadDir(outside); len(list) != 1 {
		t.Errorf("outside changed: %v", list)
	}
	if after, err := os.Stat(filepath.Join(outside, "secret")); err != nil || !after.ModTime().Equal(before.ModTime()) ||
		after.Size() != before.Size() {
		t.Errorf("the outside file changed: %v", err)
	}
	for _, abs := range []string{"/abs.txt", "/up.txt", "/win.txt"} {
		if _, err := os.Lstat(abs); err == nil {
			t.Errorf("%s exists", abs)
		}
	}
	filepath.Walk(dest, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if strings.HasPrefix(fi.Name(), ".unpack-") {
			t.Errorf("temporary file left: %s", p)
		}
		if fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the outside file's content", p)
			}
		}
		return nil
	})
	return code, stderr, dest
}

// TestPathSafety extracts, per format and per hostile vector, an archive of
// a safe entry, the vector, and another safe entry: the vector is refused
// with its message (exit 3), both safe entries extract, and nothing outside
// the destination is created, changed or read.
func TestPathSafety(t *testing.T) {
	for _, f := range pathFormats {
		for _, v := range hostile {
			if strings.Contains(" "+v.skip+" ", " "+f.name+" ") {
				continue
			}
			t.Run(f.name+"/"+v.what, func(t *testing.T) {
				entries := append([]wentry{{name: "safe1.txt", body: "safe one"}}, v.entries...)
				entries = append(entries, wentry{name: "safe2.txt", body: "safe two"})
				code, stderr, dest := extractHostile(t, "hostile."+f.name, f.write(t, entries))
				if code != ExitCorrupt {
					t.Errorf("exit %d, want %d\n%s", code, ExitCorrupt, stderr)
				}
				msg := v.msg
				if m, ok := v.msgFor[f.name]; ok {
					msg = m
				}
				if !strings.Contains(stderr, msg) {
					t.Errorf("no %q in\n%s", msg, stderr)
				}
				for name, want := range map[string]string{"safe1.txt": "safe one", "safe2.txt": "safe two"} {
					if b, err := os.ReadFile(filepath.Join(dest, name)); err != nil || string(b) != want {
						t.Errorf("%s: %q, %v", name, b, err)
					}
				}
				if v.what == "directory replaced by a symlink" {
					if fi, err := os.Lstat(filepath.Join(dest, "sub")); err != nil || !fi.IsDir() {
						t.Errorf("sub is no longer a directory: %v", err)
					}
					if got := readFile(t, filepath.Join(dest, "sub", "after.txt")); got != "inside" {
						t.Errorf("sub/after.txt = %q", got)
					}
				}
			})
		}
	}
}

// TestDuplicateNames: a second entry of the same name replaces the first
// (as tar does; files already on disk before the extraction are still
// protected by the overwrite policy), and a second entry whose data fails
// its check leaves the first in place, whole, with no temporary file.
func TestDuplicateNames(t *testing.T) {
	for _, f := range pathFormats {
		t.Run(f.name, func(t *testing.T) {
			entries := []wentry{
				{name: "dup.txt", body: "first version"},
				{name: "dup.txt", body: "second version"},
				{name: "safe.txt", body: "safe"},
			}
			code, stderr, dest := extractHostile(t, "dup."+f.name, f.write(t, entries))
			if code != ExitOK {
				t.Errorf("exit %d\n%s", code, stderr)
			}
			if got := readFile(t, filepath.Join(dest, "dup.txt")); got != "second version" {
				t.Errorf("dup.txt = %q", got)
			}
			if f.name == "tar" {
				return // no checksum over tar data to fail
			}
			// The second copy's stored bytes are damaged after its CRC was
			// computed.
			entries = []wentry{
				{name: "dup.txt", body: "first version"},
				{name: "safe.txt", body: "safe"},
				{name: "dup.txt", body: "damaged version"},
			}
			arch := bytes.Replace(f.write(t, entries), []byte("damaged version"), []byte("DAMAGED version"), 1)
			code, stderr, dest = extractHostile(t, "dup."+f.name, arch)
			if code != ExitCorrupt || !strings.Contains(stderr, "dup.txt: ") {
				t.Errorf("exit %d\n%s", code, stderr)
			}
			if got := readFile(t, filepath.Join(dest, "dup.txt")); got != "first version" {
				t.Errorf("dup.txt = %q after a damaged duplicate", got)
			}
			if got := readFile(t, filepath.Join(dest, "safe.txt")); got != "safe" {
				t.Errorf("safe.txt = %q", got)
			}
		})
	}
}

// TestContradictingEntries: a file and a directory of one path, or a file
// where a later entry needs a directory, fail as corrupt (exit 3) in every
// format, also when zip and 7z entries are written in parallel in whatever
// order, and the entries around them still extract.
func TestContradictingEntries(t *testing.T) {
	cases := map[string][]wentry{
		"file, then a file below it": {{name: "a/b", body: "file"}, {name: "a/b/c", body: "below"}},
		"directory, then a file":     {{name: "a/b", kind: 'd'}, {name: "a/b", body: "file"}},
		"file, then a directory":     {{name: "a/b", body: "file"}, {name: "a/b", kind: 'd'}},
	}
	for _, f := range pathFormats {
		for what, c := range cases {
			entries := append([]wentry{{name: "safe1.txt", body: "safe one"}}, c...)
			entries = append(entries, wentry{name: "safe2.txt", body: "safe two"})
			arch := f.write(t, entries)
			for _, threads := range []string{"1", "4", "4", "4"} {
				code, stderr, dest := extractHostile(t, "c."+f.name, arch, "--threads", threads)
				if code != ExitCorrupt || !strings.Contains(stderr, "extracted from this archive") {
					t.Errorf("%s, %s: exit %d\n%s", f.name, what, code, stderr)
				}
				if got := readFile(t, filepath.Join(dest, "safe2.txt")); got != "safe two" {
					t.Errorf("%s, %s: safe2.txt = %q", f.name, what, got)
				}
			}
		}
	}
}
