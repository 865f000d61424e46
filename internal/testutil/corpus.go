// Package testutil helps tests find the shared corpus and its manifest,
// read fixtures and compare decoded output with expected sums.
package testutil

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// RepoRoot is the project's root directory (where go.mod is).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// CorpusDir returns $UNPACK_CORPUS (default ../shared/corpus beside the
// repository), or skips the test when it has no manifest.
func CorpusDir(t testing.TB) string {
	t.Helper()
	dir := CorpusPath()
	if _, err := os.Stat(filepath.Join(dir, "manifest.tsv")); err != nil {
		t.Skipf("shared corpus not found at %s (set UNPACK_CORPUS)", dir)
	}
	return dir
}

// CorpusPath is where the corpus is expected, present or not.
func CorpusPath() string {
	if d := os.Getenv("UNPACK_CORPUS"); d != "" {
		return d
	}
	return filepath.Join(RepoRoot(), "..", "shared", "corpus")
}

// Row is one line of the corpus manifest.
type Row struct {
	Path      string   // absolute path of the file
	Local     string   // local_path as in the manifest
	Format    string   // rar4, rar5, 7z, zip, tar, tar.gz, gz, xz, …
	Features  []string // solid, encrypted-data, …
	Password  string
	Expect    string // ok, ok?, must-fail, no-crash, unsupported, needs-password
	UnitFirst string // absolute path of the first volume ("" when not a set)
	Expected  string // absolute path of the .sha256s file ("" when none)
	Notes     string
}

// IsFirstOfUnit reports whether the row should be opened itself (it is not
// a later volume of a set).
func (r Row) IsFirstOfUnit() bool { return r.UnitFirst == "" || r.UnitFirst == r.Path }

// HasFeature reports whether the row lists feature f.
func (r Row) HasFeature(f string) bool {
	for _, x := range r.Features {
		if strings.TrimSuffix(x, "?") == f {
			return true
		}
	}
	return false
}

// Manifest reads the corpus manifest, skipping the test when absent.
func Manifest(t testing.TB) []Row {
	t.Helper()
	dir := CorpusDir(t)
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var cols map[string]int
	var rows []Row
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = map[string]int{}
			for i, c := range fields {
				cols[c] = i
			}
			continue
		}
		get := func(name string) string {
			if i, ok := cols[name]; ok && i < len(fields) {
				return fields[i]
			}
			return ""
		}
		abs := func(p string) string {
			if p == "" {
				return ""
			}
			return filepath.Join(dir, p)
		}
		r := Row{
			Path: abs(get("local_path")), Local: get("local_path"), Format: get("format"),
			Password: get("password"), Expect: get("expect"), UnitFirst: abs(get("unit_first")),
			Expected: abs(get("expected_file")), Notes: get("notes"),
		}
		if f := get("features"); f != "" {
			r.Features = strings.Split(f, ",")
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// ExpectedFiles reads a .sha256s file: name → lowercase hex SHA-256.
// Single streams use the name "<stream>". Missing file: nil map.
func ExpectedFiles(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if len(line) < 66 {
			continue
		}
		m[line[66:]] = line[:64]
	}
	return m, nil
}

// ExpectedLinks reads the .links file beside a .sha256s file: name → target.
func ExpectedLinks(sha256sPath string) map[string]string {
	data, err := os.ReadFile(strings.TrimSuffix(sha256sPath, ".sha256s") + ".links")
	if err != nil {
		return nil
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, target, ok := strings.Cut(line, " -> "); ok {
			m[name] = target
		}
	}
	return m
}
