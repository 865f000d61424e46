package cli

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// run executes unpack with args and returns the exit code, stdout and stderr.
func run(t *testing.T, stdin io.Reader, args ...string) (ExitCode, string, string) {
	t.Helper()
	code, out, errOut, _ := runErrs(t, stdin, args...)
	return code, out, errOut
}

// runErrs is run that also returns the errors reported, as they were
// before they were printed.
func runErrs(t *testing.T, stdin io.Reader, args ...string) (ExitCode, string, string, []error) {
	t.Helper()
	var out, errOut bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var errs []error
	f := &Factory{In: stdin, Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" },
		Context: context.Background(), reported: func(err error) { errs = append(errs, err) }}
	code := Run(f, args)
	return code, out.String(), errOut.String(), errs
}

// reported reports whether one of errs errors.Is target.
func reported(errs []error, target error) bool {
	for _, err := range errs {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

type tarEntry struct {
	name, body, link string
	typ              byte
	mode             int64
}

var mtime = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

func makeTar(t *testing.T, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: e.mode, ModTime: mtime,
			Size: int64(len(e.body)), Format: tar.FormatPAX}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	return buf.Bytes()
}

func gz(t *testing.T, data []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

func zst(t *testing.T, data []byte) []byte {
	w, _ := zstd.NewWriter(nil)
	return w.EncodeAll(data, nil)
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var sample = []tarEntry{
	{name: "top/", typ: tar.TypeDir, mode: 0o755},
	{name: "top/a.txt", body: "hello\n", mode: 0o640},
	{name: "top/sub/b.bin", body: strings.Repeat("xyz", 10000), mode: 0o755},
	{name: "top/link", typ: tar.TypeSymlink, link: "a.txt"},
	{name: "top/hard", typ: tar.TypeLink, link: "top/a.txt"},
}

func TestExtractTarGz(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "s.tar.gz", gz(t, makeTar(t, sample)))
	out := filepath.Join(dir, "out")
	code, stdout, stderr := run(t, nil, "x", arch, "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if got := readFile(t, filepath.Join(out, "top/a.txt")); got != "hello\n" {
		t.Errorf("a.txt = %q", got)
	}
	fi, err := os.Stat(filepath.Join(out, "top/sub/b.bin"))
	if err != nil || fi.Mode().Perm() != 0o755 || fi.Size() != 30000 || !fi.ModTime().Equal(mtime) {
		t.Errorf("b.bin: %v %v", fi, err)
	}
	if fi, _ := os.Stat(filepath.Join(out, "top/a.txt")); fi.Mode().Perm() != 0o640 {
		t.Errorf("a.txt mode %v", fi.Mode())
	}
	if l, err := os.Readlink(filepath.Join(out, "top/link")); err != nil || l != "a.txt" {
		t.Errorf("link: %q %v", l, err)
	}
	if got := readFile(t, filepath.Join(out, "top/hard")); got != "hello\n" {
		t.Errorf("hard link = %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(out, "top")); !fi.ModTime().Equal(mtime) {
		t.Errorf("dir mtime %v", fi.ModTime())
	}
	// A second extraction refuses to replace files, then --overwrite and --skip-existing work.
	code, _, stderr = run(t, nil, "x", arch, "-o", out)
	if code != ExitError || !strings.Contains(stderr, "already exists") {
		t.Errorf("re-extract: exit %d, %s", code, stderr)
	}
	if code, _, stderr = run(t, nil, "x", arch, "-o", out, "--overwrite"); code != ExitOK {
		t.Errorf("--overwrite: exit %d, %s", code, stderr)
	}
	if code, _, stderr = run(t, nil, "x", arch, "-o", out, "--skip-existing", "-q"); code != ExitOK || stderr != "" {
		t.Errorf("--skip-existing: exit %d, %q", code, stderr)
	}
	leftovers(t, out)
}

// leftovers fails if any temporary file remains below dir.
func leftovers(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), ".unpack-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestRefusesEscapes(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.Mkdir(outside, 0o755)
	entries := []tarEntry{
		{name: "../evil.txt", body: "x"},
		{name: "/abs.txt", body: "x"},
		{name: "a/../../evil2.txt", body: "x"},
		{name: `win\evil.txt`, body: "x"},
		{name: "C:/evil.txt", body: "x"},
		{name: "abslink", typ: tar.TypeSymlink, link: "/etc"},
		{name: "uplink", typ: tar.TypeSymlink, link: "../outside"},
		{name: "uplink/through.txt", body: "x"},
		{name: "hardout", typ: tar.TypeLink, link: "../outside/secret"},
		{name: "inlink", typ: tar.TypeSymlink, link: "sub"},
		{name: "sub/", typ: tar.TypeDir},
		{name: "inlink/ok.txt", body: "through an inside link"},
		{name: "safe.txt", body: "safe"},
		{name: "sub", typ: tar.TypeSymlink, link: "."}, // would replace a directory
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600)
	arch := write(t, dir, "evil.tar", makeTar(t, entries))
	out := filepath.Join(dir, "out")
	code, _, stderr := run(t, nil, "x", arch, "-o", out)
	if code != ExitCorrupt {
		t.Errorf("exit %d, want %d", code, ExitCorrupt)
	}
	for _, want := range []string{"../evil.txt: insecure path", `removed a leading "/" or drive letter from 2 member names`,
		"backslash", "abslink: insecure path", "uplink: insecure path", "hardout: insecure path",
		"sub: already exists"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if got := readFile(t, filepath.Join(out, "safe.txt")); got != "safe" {
		t.Errorf("safe.txt = %q", got)
	}
	// Absolute names land inside, stripped, as GNU tar puts them.
	for _, n := range []string{"abs.txt", "evil.txt"} {
		if got := readFile(t, filepath.Join(out, n)); got != "x" {
			t.Errorf("%s = %q", n, got)
		}
	}
	if got := readFile(t, filepath.Join(out, "sub/ok.txt")); got != "through an inside link" {
		t.Errorf("sub/ok.txt = %q", got)
	}
	// Nothing was created or changed outside the destination.
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		if n.Name() != "out" && n.Name() != "outside" && n.Name() != "evil.tar" {
			t.Errorf("created outside the destination: %s", n.Name())
		}
	}
	if list, _ := os.ReadDir(outside); len(list) != 1 {
		t.Errorf("outside changed: %v", list)
	}
	leftovers(t, out)
}

func TestCorruptStreamLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	data := gz(t, []byte(strings.Repeat("data ", 1000)))
	data[len(data)-8] ^= 1 // CRC32 in the trailer
	arch := write(t, dir, "bad.txt.gz", data)
	out := filepath.Join(dir, "out")
	code, _, stderr := run(t, nil, "x", arch, "-o", out)
	if code != ExitCorrupt || !strings.Contains(stderr, "bad.txt.gz: bad.txt: ") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if list, _ := os.ReadDir(out); len(list) != 0 {
		t.Errorf("left behind: %v", list)
	}
	// --keep-broken keeps it as NAME.broken, never under its name.
	code, _, _ = run(t, nil, "x", arch, "-o", out, "--keep-broken")
	if _, err := os.Stat(filepath.Join(out, "bad.txt.broken")); code != ExitCorrupt || err != nil {
		t.Errorf("--keep-broken: exit %d, %v", code, err)
	}
	// Truncated input: exit 3 as well.
	arch = write(t, dir, "trunc.txt.gz", data[:len(data)/2])
	if code, _, stderr = run(t, nil, "t", arch); code != ExitCorrupt {
		t.Errorf("truncated: exit %d, %s", code, stderr)
	}
}

func TestStdinAndStdout(t *testing.T) {
	tarData := makeTar(t, sample)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// A non-seekable stdin (a plain io.Reader) holding a tar.zst.
	code, _, stderr := run(t, io.MultiReader(bytes.NewReader(zst(t, tarData))), "x", "-", "-o", out)
	if code != ExitOK {
		t.Fatalf("stdin: exit %d: %s", code, stderr)
	}
	if got := readFile(t, filepath.Join(out, "top/a.txt")); got != "hello\n" {
		t.Errorf("a.txt = %q", got)
	}
	// -c writes a compressed stream's raw bytes.
	arch := write(t, dir, "s.tar.zst", zst(t, tarData))
	code, stdout, _ := run(t, nil, "x", "-c", arch)
	if code != ExitOK || stdout != string(tarData) {
		t.Errorf("-c: exit %d, %d bytes, want %d", code, len(stdout), len(tarData))
	}
	// -c on an archive (tar) writes the files' contents in order.
	arch = write(t, dir, "s.tar", tarData)
	code, stdout, _ = run(t, nil, "x", "-c", arch)
	if want := "hello\n" + strings.Repeat("xyz", 10000); code != ExitOK || stdout != want {
		t.Errorf("-c tar: exit %d, %d bytes", code, len(stdout))
	}
}

func TestVerifyAndListJSON(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "s.tar.gz", gz(t, makeTar(t, sample)))
	for _, cmd := range []string{"t", "l"} {
		code, stdout, stderr := run(t, nil, cmd, "--json", arch)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != len(sample)+1 {
			t.Fatalf("%s: %d lines", cmd, len(lines))
		}
		var e entryJSON
		if err := json.Unmarshal([]byte(lines[2]), &e); err != nil || e.Name != "top/sub/b.bin" ||
			e.Size != 30000 || e.Status != "ok" || e.Type != "file" || e.Mode != "-rwxr-xr-x" {
			t.Errorf("%s: entry %+v %v", cmd, e, err)
		}
		var s summaryJSON
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil || s.Summary.Entries != len(sample) ||
			s.Summary.Format != "gzip" || s.Summary.Status != "ok" {
			t.Errorf("%s: summary %+v %v", cmd, s, err)
		}
	}
	code, stdout, _ := run(t, nil, "l", arch)
	if code != ExitOK || !strings.Contains(stdout, "top/link -> a.txt") || !strings.Contains(stdout, "4 files, 1 folders") {
		t.Errorf("list: %d\n%s", code, stdout)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	junk := write(t, dir, "junk.bin", []byte("this is not an archive at all, just some text"))
	cases := []struct {
		args []string
		want ExitCode
		msg  string
	}{
		{[]string{"t", junk}, ExitUnsupported, "not a recognised archive"},
		{[]string{"t", filepath.Join(dir, "missing.zip")}, ExitError, "no such file"},
		{[]string{"x"}, ExitUsage, "requires at least 1 arg"},
		{[]string{"x", "--bogus", junk}, ExitUsage, "unknown flag"},
		{[]string{"frobnicate"}, ExitUsage, "unknown command"},
		{[]string{"x", "--overwrite", "--skip-existing", junk}, ExitUsage, "exclude each other"},
		{[]string{"t", "-", "-"}, ExitUsage, "only once"},
		{[]string{"t", "--memlimit", "lots", junk}, ExitUsage, "--memlimit"},
		{[]string{"t", "--format", "arc", junk}, ExitUsage, "unknown format"},
		{[]string{"t", "--format", "gzip", junk}, ExitCorrupt, "gzip"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, nil, c.args...)
		if code != c.want || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.want, c.msg)
		}
	}
	code, stdout, _ := run(t, nil, "--help")
	if code != ExitOK || !strings.Contains(stdout, "EXIT STATUS") {
		t.Errorf("--help: %d %q", code, stdout)
	}
	code, stdout, _ = run(t, nil, "version")
	for _, line := range []string{"\ncommit: ", "\ngo: go", "\nformats: ", "\nfast paths: "} {
		if code != ExitOK || !strings.Contains(stdout, line) {
			t.Errorf("version: %d %q, no %q line", code, stdout, line)
		}
	}
	code, long, _ := run(t, nil, "--version")
	if code != ExitOK || long != stdout {
		t.Errorf("--version: %d %q, want the version command's %q", code, long, stdout)
	}
	code, stdout, _ = run(t, nil, "completion", "bash")
	if code != ExitOK || !strings.Contains(stdout, "bash completion") {
		t.Errorf("completion: %d", code)
	}
}

func TestExtractWithoutOutputDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	one := write(t, dir, "one.tar.gz", gz(t, makeTar(t, sample)))
	two := write(t, dir, "two.tar", makeTar(t, []tarEntry{{name: "a", body: "1"}, {name: "b", body: "2"}}))
	single := write(t, dir, "note.txt.zst", zst(t, []byte("note")))
	for _, a := range []string{one, two, single} {
		if code, _, stderr := run(t, nil, "x", a); code != ExitOK {
			t.Fatalf("%s: exit %d %s", a, code, stderr)
		}
	}
	if readFile(t, "top/a.txt") != "hello\n" || readFile(t, "two/a") != "1" || readFile(t, "note.txt") != "note" {
		t.Error("wrong layout")
	}
	// The single top-level item exists now: the second run goes into a folder.
	code, _, stderr := run(t, nil, "x", one)
	if code != ExitOK || readFile(t, "one/top/a.txt") != "hello\n" || !strings.Contains(stderr, "extracted into one/") {
		t.Errorf("second run: %d %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".unpack-") {
			t.Errorf("staging left: %s", e.Name())
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "512M": 512 << 20, "64k": 64 << 10, "100": 100, "1.5G": 3 << 29} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"-1", "NaN", "inf", "+Inf", "8E", "8388608T", "1e19", "1e400", ""} {
		if n, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) = %d, accepted", bad, n)
		}
	}
	if n, err := parseSize("8388607T"); err != nil || n != 8388607<<40 {
		t.Errorf("parseSize(8388607T) = %d, %v", n, err)
	}
}

// TestMemLimitHuge: a --memlimit past what any decoder takes is clamped,
// not passed on to be refused as corrupt data (zstd's decoder refused
// 100T as an option error, exit 3); a value past int64 is a usage error.
func TestMemLimitHuge(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "a.zst", zst(t, []byte("hello")))
	for _, lim := range []string{"100T", "8388607T", "1e18"} {
		if code, _, errOut := run(t, nil, "t", "--memlimit", lim, path); code != ExitOK {
			t.Errorf("--memlimit %s: exit %d: %s", lim, code, errOut)
		}
	}
	if code, _, errOut, errs := runErrs(t, nil, "t", "--memlimit", "1e30", path); code != ExitUsage || !reported(errs, errSizeRange) {
		t.Errorf("--memlimit 1e30: exit %d: %s", code, errOut)
	}
}

func TestGzipStoredName(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Name = "original.txt"
	w.Write([]byte("body"))
	w.Close()
	arch := write(t, dir, "renamed.gz", buf.Bytes())
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, nil, "x", "-N", arch, "-o", out); code != ExitOK {
		t.Fatalf("exit %d %s", code, stderr)
	}
	if readFile(t, filepath.Join(out, "original.txt")) != "body" {
		t.Error("stored name not used")
	}
	if code, _, _ := run(t, nil, "x", arch, "-o", out); code != ExitOK || readFile(t, filepath.Join(out, "renamed")) != "body" {
		t.Error("default name not used")
	}
}

func TestLimits(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "s.tar.gz", gz(t, makeTar(t, sample)))
	bomb := write(t, dir, "zeros.gz", gz(t, make([]byte, 64<<20)))
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"t", "--max-entries", "2", arch}, "more than 2 entries"},
		{[]string{"t", "--max-size", "10K", arch}, "output exceeds 10.0 KiB"},
		{[]string{"t", "--max-ratio", "100", bomb}, "decompression bomb"},
		{[]string{"x", "-o", filepath.Join(dir, "o"), "--max-ratio", "100", bomb}, "decompression bomb"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, nil, c.args...)
		if code != ExitUnsupported || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
	if list, _ := os.ReadDir(filepath.Join(dir, "o")); len(list) != 0 {
		t.Errorf("bomb left %v", list)
	}
	// Standard input has a default bound.
	data := zst(t, make([]byte, 256<<20))
	if code, _, stderr := run(t, bytes.NewReader(data), "t", "-"); code != ExitUnsupported {
		t.Errorf("stdin bomb: exit %d %s", code, stderr)
	}
	if code, _, _ := run(t, nil, "t", "--max-entries", "5", "--max-size", "1M", arch); code != ExitOK {
		t.Errorf("within limits: exit %d", code)
	}
}

func TestSelection(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "s.tar.gz", gz(t, makeTar(t, sample)))
	cases := []struct {
		args []string
		want []string // files present below out
	}{
		{[]string{"--include", "top/sub"}, []string{"top/sub/b.bin"}},
		{[]string{"--include", "*.txt"}, []string{"top/a.txt"}},
		{[]string{"--include", "top/*.txt"}, []string{"top/a.txt"}},
		{[]string{"--exclude", "top/sub", "--exclude", "top/link", "--exclude", "top/hard"}, []string{"top/a.txt"}},
		{[]string{"--strip-components", "1", "--exclude", "top/link", "--exclude", "top/hard"}, []string{"a.txt", "sub/b.bin"}},
		{[]string{"--flat", "--include", "top/sub/b.bin", "--include", "top/a.txt"}, []string{"a.txt", "b.bin"}},
		{[]string{"--", "top/a.txt"}, []string{"top/a.txt"}},
		{[]string{"--strip-components", "1", "--", "top/hard", "top/a.txt"}, []string{"a.txt", "hard"}},
	}
	for i, c := range cases {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		args := append([]string{"x", arch, "-o", out}, c.args...)
		if c.args[0] == "--" || len(c.args) > 2 && c.args[2] == "--" {
			args = append([]string{"x", "-o", out, arch}, c.args...)
		}
		code, _, stderr := run(t, nil, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d %s", c.args, code, stderr)
		}
		var got []string
		filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				rel, _ := filepath.Rel(out, p)
				got = append(got, rel)
			}
			return nil
		})
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%v: got %v, want %v", c.args, got, c.want)
		}
	}
	if code, _, _ := run(t, nil, "x", arch, "--include", "[", "-o", dir); code != ExitUsage {
		t.Errorf("bad pattern: exit %d", code)
	}
}

func TestManifest(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "s.tar.gz", gz(t, makeTar(t, sample)))
	code, stdout, stderr := run(t, nil, "t", "--manifest", arch)
	if code != ExitOK {
		t.Fatalf("exit %d %s", code, stderr)
	}
	// The same lines sha256sum prints for the extracted files.
	want := "" +
		"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  top/a.txt\n" +
		"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  top/hard\n"
	if !strings.HasPrefix(stdout, want[:70]) || !strings.Contains(stdout, "  top/sub/b.bin\n") {
		t.Errorf("manifest:\n%s", stdout)
	}
	good := write(t, dir, "SHA256SUMS", []byte(stdout))
	if code, _, stderr := run(t, nil, "t", "--expect", good, arch); code != ExitOK {
		t.Errorf("--expect good: exit %d %s", code, stderr)
	}
	bad := strings.Replace(stdout, "5891b5b522d5df08", "0000000000000000", 1)
	bad = strings.Replace(bad, "top/hard", "top/gone", 1) + "\\" + strings.Repeat("ab", 32) + "  odd\\nname\n"
	badPath := write(t, dir, "BAD", []byte(bad))
	code, _, stderr = run(t, nil, "t", "--expect", badPath, arch)
	for _, w := range []string{"top/a.txt: SHA-256 differs", "top/gone: missing", "top/hard: extra", `: odd\nname: missing`} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if code != ExitCorrupt {
		t.Errorf("exit %d", code)
	}
	code, stdout, _ = run(t, nil, "t", "--json", "--manifest", write(t, dir, "p.tar", makeTar(t, sample[:2])))
	if code != ExitOK || !strings.Contains(stdout, `"status":"unverifiable"`) || !strings.Contains(stdout, `"sha256":"5891b5b5`) {
		t.Errorf("json: %s", stdout)
	}
}

func TestToTar(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "s.tar.zst", zst(t, makeTar(t, sample)))
	code, stdout, stderr := run(t, nil, "x", "--to-tar", arch)
	if code != ExitOK {
		t.Fatalf("exit %d %s", code, stderr)
	}
	tr := tar.NewReader(strings.NewReader(stdout))
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		got = append(got, fmt.Sprintf("%s %c %o %s %d %s", h.Name, h.Typeflag, h.Mode, h.Linkname, len(body), h.ModTime.UTC().Format("2006")))
	}
	want := "top/ 5 755  0 2021|top/a.txt 0 640  6 2021|top/sub/b.bin 0 755  30000 2021|top/link 2 777 a.txt 0 2021|top/hard 1 644 top/a.txt 0 2021"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	// A single stream of unknown size is spooled.
	code, stdout, _ = run(t, nil, "x", "--to-tar", write(t, dir, "n.txt.zst", zst(t, []byte("note"))))
	tr = tar.NewReader(strings.NewReader(stdout))
	if h, err := tr.Next(); code != ExitOK || err != nil || h.Name != "n.txt" || h.Size != 4 {
		t.Errorf("single: %d %v %v", code, h, err)
	}
	// A failing entry stops the stream without an end marker.
	bad := gz(t, []byte(strings.Repeat("data ", 1000)))
	bad[len(bad)-8] ^= 1
	code, stdout, _ = run(t, nil, "x", "--to-tar", write(t, dir, "bad.gz", bad))
	if code != ExitCorrupt || len(stdout) != 0 {
		t.Errorf("bad: exit %d, %d bytes", code, len(stdout))
	}
	if code, _, _ := run(t, nil, "x", "--to-tar", "-c", arch); code != ExitUsage {
		t.Errorf("--to-tar -c: exit %d", code)
	}
}

// TestSingleThread checks when a run drops to one processor: --threads 1
// with nothing written to disk (standard output, a tar stream, a test),
// and not to disk or with more threads; and when the default threads
// leave it to the governor: the same runs without --threads.
func TestSingleThread(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "s.tar.gz", gz(t, makeTar(t, sample)))
	const (
		none = iota
		one
		governed
	)
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"x", "-c", "--threads", "1", arch}, one},
		{[]string{"x", "--to-tar", "--threads", "1", arch}, one},
		{[]string{"t", "--threads", "1", arch}, one},
		{[]string{"x", "-c", arch}, governed},
		{[]string{"x", "--to-tar", arch}, governed},
		{[]string{"t", arch}, governed},
		{[]string{"x", "-c", "--threads", "2", arch}, none},
		{[]string{"t", "--threads", "2", arch}, none},
		{[]string{"x", "--threads", "1", "-o", filepath.Join(dir, "out1"), arch}, none},
		{[]string{"x", "-o", filepath.Join(dir, "out0"), arch}, none},
	} {
		var out, errOut bytes.Buffer
		ones, governs := 0, 0
		f := &Factory{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" },
			Context: context.Background(), oneProcessor: func() { ones++ }, governProcessors: func() { governs++ }}
		if code := Run(f, c.args); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut.String())
		}
		got := none
		switch {
		case ones > 0 && governs > 0:
			t.Fatalf("%v: both one processor and the governor", c.args)
		case ones > 0:
			got = one
		case governs > 0:
			got = governed
		}
		if got != c.want {
			t.Errorf("%v: %d, want %d (0 none, 1 one processor, 2 governed)", c.args, got, c.want)
		}
	}
}
