package msi

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/cfb"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/testutil/entrytree"
)

func wantFiles(t testing.TB, name string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.SplitN(line, " ", 3)
		m[f[2]] = f[0] + " " + f[1]
	}
	return m
}

func openPath(t testing.TB, p string) (archive.Reader, error) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return Open(&archive.Input{RA: bytes.NewReader(b), Size: int64(len(b)), Path: p, Name: p}, &archive.Options{})
}

// TestFixtures installs the wixl-written databases, with an embedded and
// with an external cabinet, as msiextract does.
func TestFixtures(t *testing.T) {
	for _, c := range []struct{ msi, files string }{{"t.msi", "files.txt"}, {"t-ext.msi", "ext-files.txt"}} {
		r, err := openPath(t, filepath.Join("testdata", c.msi))
		if err != nil {
			t.Fatal(err)
		}
		got, err := entrytree.Sized(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := wantFiles(t, c.files)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %v\nwant %v", c.msi, got, want)
		}
	}
}

// TestMissingCabinet: an external cabinet that is not there is a missing
// volume, named.
func TestMissingCabinet(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/t-ext.msi")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "t-ext.msi")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := openPath(t, p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := entrytree.Sized(r); !errors.Is(err, archive.ErrMissingVolume) || !testutil.Names(err, "t-ext.cab") {
		t.Errorf("%v", err)
	}
}

// TestNotInstaller: a compound file without the tables is corrupt as a
// database.
func TestNotInstaller(t *testing.T) {
	b, err := os.ReadFile("../cfb/testdata/t.msi")
	if err != nil {
		t.Fatal(err)
	}
	f, err := cfb.OpenFile(bytes.NewReader(b), int64(len(b)), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if !f.IsMSI() {
		t.Error("IsMSI false for an MSI")
	}
	// A .doc-like file: the cfb package's built files have no string pool.
	if _, err := NewReader(&cfb.File{}, "", &archive.Options{}); err == nil {
		t.Error("no error for a file without tables")
	}
}

// TestDamaged cuts and flips the embedded-cabinet fixture: errors of a
// category, never a panic; a flip in a cabinet's data fails its checksum.
func TestDamaged(t *testing.T) {
	b, err := os.ReadFile("testdata/t.msi")
	if err != nil {
		t.Fatal(err)
	}
	run := func(c []byte) error {
		r, err := Open(&archive.Input{RA: bytes.NewReader(c), Size: int64(len(c)), Path: "/nonexistent/t.msi"}, &archive.Options{})
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = entrytree.Sized(r)
		return err
	}
	for n := 0; n < len(b); n += 509 {
		if err := run(b[:n]); err != nil && !archive.Categorized(err) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
	for i := 0; i < len(b); i += 197 {
		c := bytes.Clone(b)
		c[i] ^= 1 << (i % 8)
		if err := run(c); err != nil && !archive.Categorized(err) {
			t.Fatalf("flip at %d: %v", i, err)
		}
	}
}

func TestLongName(t *testing.T) {
	for in, want := range map[string]string{"SUBDIR~1|Sub Dir": "Sub Dir", "plain": "plain", "a|b|c": "b|c"} {
		if got := longName(in); got != want {
			t.Errorf("%q: %q", in, got)
		}
	}
}

// FuzzMSI reads any input as an installer database (external cabinets
// looked for where none are).
func FuzzMSI(f *testing.F) {
	for _, p := range []string{"testdata/t-ext.msi"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Open(&archive.Input{RA: bytes.NewReader(data), Size: int64(len(data)), Path: "/nonexistent/x.msi"}, &archive.Options{MemLimit: 64 << 20})
		if err == nil {
			_, err = entrytree.Sized(r)
			r.Close()
		}
		if err != nil && !archive.Categorized(err) {
			t.Fatalf("error of no category: %v", err)
		}
	})
}

// TestTableLimits: a string pool or table whose decoded form would pass
// the memory limit is refused before it is built; string references past
// the pool are corrupt.
func TestTableLimits(t *testing.T) {
	d := &db{limit: 1 << 10, refSize: 2, strs: []string{"", "a"}}
	if _, err := d.decode(make([]byte, 4096), []column{{"x", 2}}); !errors.Is(err, archive.ErrLimit) {
		t.Errorf("table: %v", err)
	}
	d.limit = 1 << 20
	if _, err := d.decode([]byte{5, 0}, []column{{"s", typeString | 64}}); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("string past the pool: %v", err)
	}
	rows, err := d.decode([]byte{1, 0, 0x05, 0x80}, []column{{"s", typeString | 64}, {"i", 2}})
	if err != nil || rows[0][0] != "a" || rows[0][1] != 5 {
		t.Errorf("%v %v", rows, err)
	}
}

// TestFileHash: a file whose data differ from its MsiFileHash MD5 fails
// with a checksum mismatch naming the table.
func TestFileHash(t *testing.T) {
	r, err := openPath(t, "testdata/t.msi")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := r.(*Reader)
	if len(m.md5s) == 0 {
		t.Fatal("no MsiFileHash rows read")
	}
	m.md5s["readme"] = bytes.Repeat([]byte{1}, 16)
	_, err = entrytree.Sized(r)
	if !errors.Is(err, archive.ErrChecksum) || !testutil.Names(err, "MsiFileHash") {
		t.Errorf("%v", err)
	}
}
