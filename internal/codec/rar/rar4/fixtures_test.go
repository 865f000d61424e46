package rar4

import (
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
// them, so that the RAR 1.5, 2.0 and 2.9 decoders (LZ, PPMd, filters,
// solid, volumes, encryption) are checked in a plain clone, without the
// corpus.
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

func (f fixture) options() *archive.Options {
	opt := &archive.Options{}
	if f.password != "" {
		opt.Passwords = []string{f.password}
	}
	return opt
}

func (f fixture) data(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(f.path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestFixtures reads every fixture in order (later volumes found by name),
// through random access where the archive offers it, and as standard
// input is read (one byte at a time) for single volumes.
func TestFixtures(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			data := f.data(t)
			r, err := openTest(t, f.path, data, f.options())
			if err != nil {
				t.Fatal(err)
			}
			res := readAll(r)
			r.Close()
			if res.err != nil {
				t.Fatal(res.err)
			}
			if !maps.Equal(res.files, f.files) {
				t.Errorf("files:\n got %v\nwant %v", res.files, f.files)
			}
			if !maps.Equal(res.links, f.links) {
				t.Errorf("links:\n got %v\nwant %v", res.links, f.links)
			}

			r, err = openTest(t, f.path, data, f.options())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if ra, ok := r.(archive.RandomAccess); ok {
				if got := readRandom(t, ra); got != nil && !maps.Equal(got, f.files) {
					t.Errorf("random access:\n got %v\nwant %v", got, f.files)
				}
			}

			if strings.Contains(f.name, ".part") || strings.Contains(f.name, ".multi.") {
				return
			}
			got, err := corpusSums(t, "", data, iotest.OneByteReader, f.options())
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, f.files) {
				t.Errorf("one byte at a time:\n got %v\nwant %v", got, f.files)
			}
		})
	}
}

// readRandom reads every regular file through Open(i).
func readRandom(t *testing.T, ra archive.RandomAccess) map[string]string {
	entries, err := ra.Entries()
	if err != nil {
		if errors.Is(err, archive.ErrUnsupported) {
			return nil
		}
		t.Fatal(err)
	}
	got := map[string]string{}
	for i, e := range entries {
		if e.Type != archive.TypeFile {
			continue
		}
		rc, err := ra.Open(i)
		if errors.Is(err, archive.ErrUnsupported) {
			return nil // solid, volumes or encrypted headers: in order only
		}
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		sum, _, err := testutil.HashAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		got[e.Name] = sum
	}
	return got
}

// TestFixturesDamage flips bytes through each single-volume fixture and
// cuts it short: every outcome is a typed error or success (the byte was
// not covered by a check), never a panic, a hang or an untyped error.
func TestFixturesDamage(t *testing.T) {
	for _, f := range fixtures(t) {
		if strings.Contains(f.name, ".part") || strings.Contains(f.name, ".multi.") {
			continue
		}
		data := f.data(t)
		step := max(1, len(data)/97)
		if f.password != "" {
			step = max(1, len(data)/13) // each try derives the key again
		}
		for i := 8; i < len(data); i += step {
			for _, d := range [][]byte{flip(data, i), data[:i]} {
				r, err := Open(&archive.Input{R: bytes.NewReader(d), Size: int64(len(d))}, f.options(), 0)
				if err == nil {
					err = readAll(r).err
					r.Close()
				}
				if err != nil && !typed(err) {
					t.Errorf("%s at %d: untyped error %v", f.name, i, err)
				}
			}
		}
	}
}

func flip(b []byte, i int) []byte {
	b = bytes.Clone(b)
	b[i] ^= 0x55
	return b
}

// typed reports whether err is one of the categories a caller maps to an
// exit code.
func typed(err error) bool {
	for _, c := range []error{archive.ErrCorrupt, archive.ErrChecksum, archive.ErrUnsupported, archive.ErrPassword,
		archive.ErrNeedPassword, archive.ErrLimit, archive.ErrMissingVolume, archive.ErrNotArchive, io.ErrUnexpectedEOF} {
		if errors.Is(err, c) {
			return true
		}
	}
	return false
}
