package rar5

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// fixture is one archive of testdata/fixtures.tsv: small public test files
// (testdata/SOURCES.md) with the content the shared corpus recorded for
// them, so that the decoders are checked on real RAR 5 archives in a plain
// clone, without the corpus.
type fixture struct {
	name, password string
	path           string
	files, links   map[string]string
}

// fixtures reads testdata/fixtures.tsv and the expected content of each.
// It fails (never skips) when the files are missing.
func fixtures(t testing.TB) []fixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fixtures.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		name, pw, _ := strings.Cut(line, "\t")
		p := filepath.Join("testdata", name)
		files, err := testutil.ExpectedFiles(p + ".sha256s")
		if err != nil || files == nil {
			t.Fatalf("%s: no expected sums (%v)", name, err)
		}
		links := testutil.ExpectedLinks(p + ".sha256s")
		if links == nil {
			links = map[string]string{}
		}
		out = append(out, fixture{name: name, password: pw, path: p, files: files, links: links})
	}
	if len(out) < 10 {
		t.Fatalf("only %d fixtures", len(out))
	}
	return out
}

// fixtureData returns a fixture file's bytes.
func fixtureData(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// want is what reading f must give: its files and links as the corpus
// recorded them, with two corrections where unpack reads more than the
// tools that recorded them:
//   - rarfile-rar5-dups.rar holds file copies (redirection type 5), which
//     are independent files with their source's content, as unrar makes
//     them, not links;
//   - rarfile-rar5-symlink-win.rar's directory link and junction (which the
//     recording tools skipped) are links too; the junction's absolute
//     target \??\C:\Users\User\stuff\content\dir2 names an entry of the
//     archive and becomes relative.
func (f fixture) want() (files, links map[string]string) {
	files, links = maps.Clone(f.files), maps.Clone(f.links)
	switch f.name {
	case "rarfile-rar5-dups.rar":
		for name, target := range links {
			files[name] = files[target]
		}
		clear(links)
	case "rarfile-rar5-symlink-win.rar":
		links["links/dir_link"] = "../content/dir1"
		links["links/dir_junction"] = "../content/dir2"
	}
	return files, links
}

func (f fixture) options() *archive.Options {
	opt := &archive.Options{}
	if f.password != "" {
		opt.Passwords = []string{f.password}
	}
	return opt
}

func sameMaps(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if !maps.Equal(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// TestFixtures reads every fixture in order from its file (volumes found by
// name), and again through random access where the archive offers it.
func TestFixtures(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			wantFiles, wantLinks := f.want()
			r, file, err := openFile(t, f.path, f.options())
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			files, links, err := readAll(r)
			if err != nil {
				t.Fatal(err)
			}
			sameMaps(t, "files", files, wantFiles)
			sameMaps(t, "links", links, wantLinks)
			r.Close()

			r, file2, err := openFile(t, f.path, f.options())
			if err != nil {
				t.Fatal(err)
			}
			defer file2.Close()
			defer r.Close()
			if _, ok := r.(archive.RandomAccess); ok {
				got := readRandom(t, r)
				sameMaps(t, "files (random access)", got, wantFiles)
			}
		})
	}
}

// TestFixturesStream reads the single-volume fixtures as standard input is
// read (no path, no random access), one byte at a time and in halves, so
// that every buffer boundary of the header and data paths is crossed.
func TestFixturesStream(t *testing.T) {
	for _, f := range fixtures(t) {
		if strings.Contains(f.name, ".part") {
			continue
		}
		data := fixtureData(t, f.name)
		for _, w := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{{"one-byte", iotest.OneByteReader}, {"half", iotest.HalfReader}} {
			t.Run(f.name+"/"+w.name, func(t *testing.T) {
				r, err := Open(&archive.Input{R: bufio.NewReader(w.wrap(bytes.NewReader(data))), Size: -1, Name: "-"}, f.options(), 0)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				files, _, err := readAll(r)
				if err != nil {
					t.Fatal(err)
				}
				wantFiles, _ := f.want()
				if f.name == "rarfile-rar5-dups.rar" {
					// From a stream a copy's source cannot be read again:
					// the copies are hard-link entries marked Copy, which
					// the directory sink makes copies of what it wrote.
					wantFiles = f.files
				}
				sameMaps(t, "files", files, wantFiles)
			})
		}
	}
}

// TestFixturesDamage flips bytes through each single-volume fixture and
// cuts it short: every outcome is a typed error or, where the byte was not
// covered by a check (padding, an unchecked field), success; never a panic
// or a hang.
func TestFixturesDamage(t *testing.T) {
	for _, f := range fixtures(t) {
		if strings.Contains(f.name, ".part") {
			continue
		}
		data := fixtureData(t, f.name)
		step := max(1, len(data)/97)
		if f.password != "" {
			step = max(1, len(data)/13) // each try derives the key again
		}
		for i := 8; i < len(data); i += step {
			for _, mut := range []func([]byte) []byte{
				func(b []byte) []byte { b[i] ^= 0x55; return b },
				func(b []byte) []byte { return b[:i] },
			} {
				d := mut(bytes.Clone(data))
				r, err := Open(&archive.Input{R: bytes.NewReader(d), Size: int64(len(d))}, f.options(), 0)
				if err == nil {
					_, _, err = readAll(r)
					r.Close()
				}
				if err != nil && !typed(err) {
					t.Errorf("%s at %d: untyped error %v", f.name, i, err)
				}
			}
		}
	}
}

// typed reports whether err is one of the archive categories a caller maps
// to an exit code.
func typed(err error) bool {
	for _, c := range []error{archive.ErrCorrupt, archive.ErrChecksum, archive.ErrUnsupported, archive.ErrPassword,
		archive.ErrNeedPassword, archive.ErrLimit, archive.ErrMissingVolume, archive.ErrNotArchive, io.ErrUnexpectedEOF} {
		if errors.Is(err, c) {
			return true
		}
	}
	return false
}
