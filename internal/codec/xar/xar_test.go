package xar

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
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// wantFiles reads a testdata list of "SHA-256 size name" lines.
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

type result struct {
	files   map[string]string // name -> "sha size"; hard links as their target
	links   map[string]string // symlinks
	types   map[string]archive.Type
	pending int
	entries []*archive.Entry
}

// readAll reads every entry of r and its data, settling Pending ones.
func readAll(r *Reader) (*result, error) {
	res := &result{files: map[string]string{}, links: map[string]string{}, types: map[string]archive.Type{}}
	pending := map[*archive.Entry]bool{}
	for {
		e, err := r.Next()
		for _, v := range r.Settled() {
			if v.Err != nil {
				return res, v.Err
			}
			delete(pending, v.Entry)
		}
		if err == io.EOF {
			if len(pending) != 0 {
				return res, fmt.Errorf("%d entries never settled", len(pending))
			}
			return res, nil
		}
		if err != nil {
			return res, err
		}
		res.entries = append(res.entries, e)
		res.types[e.Name] = e.Type
		if e.Pending {
			res.pending++
			pending[e] = true
		}
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			n, err := io.Copy(h, r)
			if err != nil {
				return res, fmt.Errorf("%s: %w", e.Name, err)
			}
			res.files[e.Name] = fmt.Sprintf("%s %d", hex.EncodeToString(h.Sum(nil)), n)
		case archive.TypeSymlink:
			res.links[e.Name] = e.Linkname
		case archive.TypeHardlink:
			res.files[e.Name] = res.files[e.Linkname]
		}
	}
}

func openBytes(t testing.TB, b []byte, seekable bool) (*Reader, error) {
	t.Helper()
	in := &archive.Input{R: bytes.NewReader(b), Size: -1, Name: "t"}
	if seekable {
		in.RA, in.Size = bytes.NewReader(b), int64(len(b))
	}
	return NewReader(in, &archive.Options{Threads: 1})
}

// cuts are the points where TestTruncated and TestBitFlips damage a file
// of n bytes: every byte of the header and the start of the TOC, then
// about k points spread over the rest.
func cuts(n, k int) []int {
	if testing.Short() {
		k /= 4
	}
	var c []int
	for i := 0; i < min(n, 64); i++ {
		c = append(c, i)
	}
	for i := 64; i < n; i += max(1, n/k) {
		c = append(c, i)
	}
	return c
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFixtures reads every bsdtar-written archive, from a file and from a
// pipe, and compares with the source tree scripts/testdata/xar.sh used.
func TestFixtures(t *testing.T) {
	want := wantFiles(t, "files.txt")
	for _, name := range []string{"t-gzip.xar", "t-bzip2.xar", "t-xz.xar", "t-lzma.xar", "t-none.xar", "t-md5.xar", "t-nosum.xar"} {
		for _, seekable := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/seekable=%v", name, seekable), func(t *testing.T) {
				r, err := openBytes(t, readFile(t, name), seekable)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				res, err := readAll(r)
				if err != nil {
					t.Fatal(err)
				}
				for n, w := range want {
					if res.files[n] != w {
						t.Errorf("%s: got %q, want %q", n, res.files[n], w)
					}
				}
				if len(res.files) != len(want) {
					t.Errorf("%d files, want %d: %v", len(res.files), len(want), res.files)
				}
				if res.links["sym"] != "d/text.txt" {
					t.Errorf("symlink: %q", res.links["sym"])
				}
				if res.types["d"] != archive.TypeDir || res.types["d/e"] != archive.TypeDir {
					t.Errorf("directories: %v", res.types)
				}
				// One of the two names is the file, the other a hard link to it.
				if res.types["two"]+res.types["d/two-2"] != archive.TypeFile+archive.TypeHardlink {
					t.Errorf("hard link: %v %v", res.types["two"], res.types["d/two-2"])
				}
				if res.pending != 0 {
					t.Errorf("%d pending entries in a plain xar", res.pending)
				}
			})
		}
	}
}

// TestEntryFields checks the metadata taken from the TOC.
func TestEntryFields(t *testing.T) {
	r, err := openBytes(t, readFile(t, "t-gzip.xar"), true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.entries {
		if e.ModTime.UTC().Format("2006-01-02T15:04:05") != "2021-03-04T05:06:07" {
			t.Errorf("%s: mtime %v", e.Name, e.ModTime)
		}
		switch e.Name {
		case "d/text.txt":
			if e.Mode != 0o640 || e.Size != 50001 || e.Method != "zlib" || e.Checksum != verify.SHA1 || len(e.ChecksumValue) != 20 {
				t.Errorf("%s: %+v", e.Name, e)
			}
		case "d":
			if e.Mode != 0o755 {
				t.Errorf("%s: mode %v", e.Name, e.Mode)
			}
		}
	}
}

// TestPackages reads the .pkg and .xip fixtures: their Payload, Scripts
// and Content members as trees, byte-exact with bsdtar's extraction of
// the cpio archives, every tree entry Pending and settled at the end.
func TestPackages(t *testing.T) {
	for _, c := range []struct{ archive, files string }{{"t.pkg", "pkg-files.txt"}, {"t.xip", "xip-files.txt"}} {
		for _, seekable := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/seekable=%v", c.archive, seekable), func(t *testing.T) {
				want := wantFiles(t, c.files)
				r, err := openBytes(t, readFile(t, c.archive), seekable)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				res, err := readAll(r)
				if err != nil {
					t.Fatal(err)
				}
				for n, w := range want {
					if res.files[n] != w {
						t.Errorf("%s: got %q, want %q", n, res.files[n], w)
					}
				}
				if len(res.files) != len(want) {
					t.Errorf("%d files, want %d: %v", len(res.files), len(want), res.files)
				}
				if res.pending == 0 {
					t.Error("no pending entries")
				}
			})
		}
	}
}

// TestTruncated cuts each fixture at many points: every cut fails, with
// a corrupt-data error, never a panic.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"t-gzip.xar", "t-bzip2.xar", "t-xz.xar", "t-lzma.xar", "t-none.xar", "t.pkg", "t.xip"} {
		b := readFile(t, name)
		for _, n := range cuts(len(b), 60) {
			for _, seekable := range []bool{true, false} {
				r, err := openBytes(t, b[:n], seekable)
				if err == nil {
					_, err = readAll(r)
					r.Close()
				}
				if err == nil {
					t.Fatalf("%s cut at %d (seekable %v): no error", name, n, seekable)
				}
				if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrNotArchive) {
					t.Fatalf("%s cut at %d: %v is not ErrCorrupt", name, n, err)
				}
			}
		}
	}
}

// TestBitFlips flips bits through fixtures that carry checksums: every
// flip either fails or gives the same files (a flip in a part nothing
// reads: the TOC's creation time text, say).
func TestBitFlips(t *testing.T) {
	for _, name := range []string{"t-gzip.xar", "t-xz.xar", "t-none.xar", "t-md5.xar", "t.pkg"} {
		b := readFile(t, name)
		r, err := openBytes(t, b, true)
		if err != nil {
			t.Fatal(err)
		}
		good, err := readAll(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range cuts(len(b), 80) {
			c := bytes.Clone(b)
			c[i] ^= 1 << (i % 8)
			r, err := openBytes(t, c, true)
			if err == nil {
				var res *result
				res, err = readAll(r)
				r.Close()
				if err == nil && fmt.Sprint(res.files) != fmt.Sprint(good.files) {
					t.Fatalf("%s: flip at %d changed the files without an error", name, i)
				}
			}
		}
	}
}

// TestOneByteReader reads from a pipe that gives one byte at a time.
func TestOneByteReader(t *testing.T) {
	b := readFile(t, "t.pkg")
	r, err := NewReader(&archive.Input{R: iotest.OneByteReader(bytes.NewReader(b)), Size: -1}, &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.files) != len(wantFiles(t, "pkg-files.txt")) {
		t.Errorf("%d files", len(res.files))
	}
}
