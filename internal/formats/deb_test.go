package formats

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// debTree reads a .deb as dpkg-deb -R lays it out: "SHA-256 size path"
// for files, "link path -> target" for symlinks (as tree.txt lists them).
func debTree(t testing.TB, p string, stdin io.Reader) ([]string, error) {
	a, err := Open(p, &archive.Options{}, OpenOptions{Stdin: stdin})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	var out []string
	for {
		e, err := a.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		name := strings.TrimPrefix(e.Name, "./")
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			n, err := io.Copy(h, a)
			if err != nil {
				return out, &archive.EntryError{Entry: e.Name, Err: err}
			}
			out = append(out, fmt.Sprintf("%s %d %s", hex.EncodeToString(h.Sum(nil)), n, name))
		case archive.TypeSymlink:
			out = append(out, "link "+name+" -> "+e.Linkname)
		}
	}
}

func TestDeb(t *testing.T) {
	want, err := os.ReadFile("testdata/deb/tree.txt")
	if err != nil {
		t.Skip(err)
	}
	wantLines := strings.Split(strings.TrimSpace(string(want)), "\n")
	paths, _ := filepath.Glob("testdata/deb/hello_*.deb")
	if len(paths) != 6 {
		t.Fatalf("%d fixtures", len(paths))
	}
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		for _, in := range []string{p, "-"} {
			got, err := debTree(t, in, bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s (%s): %v", p, in, err)
			}
			slicesSort(got)
			slicesSort(wantLines)
			if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
				t.Fatalf("%s: got\n%s\nwant\n%s", p, strings.Join(got, "\n"), want)
			}
		}
	}
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestDebMD5 reads the package whose md5sums names a wrong MD5 for one
// file: that file's data ends with the mismatch, the others read.
func TestDebMD5(t *testing.T) {
	_, err := debTree(t, "testdata/deb/bad-md5.deb", nil)
	var mm *verify.MismatchError
	var ee *archive.EntryError
	if !errors.As(err, &mm) || mm.Kind != verify.MD5 || !errors.As(err, &ee) || strings.TrimPrefix(ee.Entry, "./") != "usr/share/doc/hello/copyright" {
		t.Fatalf("got %v", err)
	}
}

// TestDebCorrupt cuts and flips every package: an error of a category,
// never a panic or hang; a cut always fails.
func TestDebCorrupt(t *testing.T) {
	paths, _ := filepath.Glob("testdata/deb/*.deb")
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		for i := 0; i < 40; i++ {
			pos := (i*7919 + 13) % len(data)
			bad := bytes.Clone(data)
			bad[pos] ^= 1 << (i % 8)
			checkDebFails(t, p, bad, false)
		}
		for _, cut := range []int{1, 9, 80, len(data) / 3, len(data) / 2, len(data) - 1} {
			checkDebFails(t, p, data[:cut], true)
		}
	}
}

func checkDebFails(t *testing.T, p string, data []byte, mustFail bool) {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := debTree(t, "-", bytes.NewReader(data)); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			// A cut inside the none package's tar padding can go unseen.
			if mustFail && !strings.Contains(p, "none") {
				t.Errorf("%s (%d bytes): truncated input accepted", p, len(data))
			}
			return
		}
		if !archive.Categorized(err) {
			t.Errorf("%s: uncategorised error %v", p, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: hang", p)
	}
}

func FuzzDeb(f *testing.F) {
	paths, _ := filepath.Glob("testdata/deb/*-gzip.deb")
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		debTree(t, "-", bytes.NewReader(data))
	})
}

// debMember returns the offset and size of the ar member whose name
// starts with prefix.
func debMember(t *testing.T, data []byte, prefix string) (int, int) {
	t.Helper()
	for off := 8; off+60 <= len(data); {
		var size int
		fmt.Sscan(string(data[off+48:off+58]), &size)
		if strings.HasPrefix(string(data[off:off+16]), prefix) {
			return off + 60, size
		}
		off += 60 + size + size%2
	}
	t.Fatalf("no member %s", prefix)
	return 0, 0
}

// TestDebPending: the entries of a compressed member are Pending until
// its stream check passes. A gzip CRC-32 broken at the end of data.tar.gz
// (every file reads, and the md5sums match) fails every data entry.
func TestDebPending(t *testing.T) {
	p := "testdata/deb/hello_1.0_all-gzip.deb"
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	read := func(data []byte, oo OpenOptions) (entries []*archive.Entry, verdicts []archive.Verdict, failed error) {
		oo.Stdin = bytes.NewReader(data)
		a, err := Open("-", &archive.Options{}, oo)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		s := a.Reader.(archive.Settler)
		for {
			e, err := a.Next()
			verdicts = append(verdicts, s.Settled()...)
			if err == io.EOF {
				return entries, verdicts, nil
			}
			if err != nil {
				return entries, verdicts, err
			}
			entries = append(entries, e)
			if _, err := io.Copy(io.Discard, a); err != nil {
				return entries, verdicts, err
			}
		}
	}
	entries, verdicts, err := read(data, OpenOptions{})
	if err != nil || len(entries) == 0 || len(verdicts) != len(entries) {
		t.Fatalf("intact: %d entries, %d verdicts, %v", len(entries), len(verdicts), err)
	}
	for i, e := range entries {
		if !e.Pending || !verdicts[i].Same(e) || verdicts[i].Err != nil {
			t.Errorf("intact: %s pending %v, verdict %+v", e.Name, e.Pending, verdicts[i])
		}
	}
	entries, _, err = read(data, OpenOptions{Listing: true})
	if err != nil || len(entries) == 0 {
		t.Fatalf("listing: %d entries, %v", len(entries), err)
	}
	for _, e := range entries {
		if e.Pending {
			t.Errorf("listing: %s is pending", e.Name)
		}
	}

	off, size := debMember(t, data, "data.tar.gz")
	bad := bytes.Clone(data)
	bad[off+size-8] ^= 0xFF // the gzip member's CRC-32
	entries, verdicts, err = read(bad, OpenOptions{})
	if !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("broken CRC: ended with %v", err)
	}
	data0 := 0
	for _, v := range verdicts {
		if !strings.HasPrefix(verdictName(entries, v), "DEBIAN") {
			data0++
			if v.Err == nil {
				t.Errorf("broken CRC: %s passed", verdictName(entries, v))
			}
		}
	}
	if data0 == 0 || len(verdicts) != len(entries) {
		t.Errorf("broken CRC: %d entries, %d verdicts, %d of data", len(entries), len(verdicts), data0)
	}
}
