package cpio

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
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// wantFiles reads testdata/files.txt: "SHA-256 size name" per regular file.
func wantFiles(t testing.TB) map[string]string {
	t.Helper()
	data, err := os.ReadFile("testdata/files.txt")
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
	files map[string]string // name -> "sha size", hard links resolved
	links map[string]string // symlinks
	other []string
	kinds map[string]archive.Type
}

func readAll(r archive.Reader) (*result, error) { return readAllBy(r, false) }

// readAllBy reads the entries' data through Read, or through WriteTo.
func readAllBy(r archive.Reader, writeTo bool) (*result, error) {
	res := &result{files: map[string]string{}, links: map[string]string{}, kinds: map[string]archive.Type{}}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, err
		}
		name := strings.TrimPrefix(e.Name, "./")
		res.kinds[name] = e.Type
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			var n int64
			var err error
			if writeTo {
				n, err = r.(io.WriterTo).WriteTo(h)
			} else {
				n, err = io.Copy(h, iotest.OneByteReader(r))
			}
			if err != nil {
				return res, fmt.Errorf("%s: %w", e.Name, err)
			}
			if n != e.Size {
				return res, fmt.Errorf("%s: %d bytes, header says %d", e.Name, n, e.Size)
			}
			res.files[name] = fmt.Sprintf("%s %d", hex.EncodeToString(h.Sum(nil)), n)
		case archive.TypeHardlink:
			target, ok := res.files[strings.TrimPrefix(e.Linkname, "./")]
			if !ok {
				return res, fmt.Errorf("%s: link to %s, not given before", e.Name, e.Linkname)
			}
			res.files[name] = target
		case archive.TypeSymlink:
			res.links[name] = e.Linkname
		case archive.TypeOther:
			res.other = append(res.other, name+" "+e.Device)
		}
	}
}

var fixtures = []struct {
	file string
	kind Kind
	sum  bool
}{
	{"t-odc.cpio", ODC, false},
	{"t-newc.cpio", Newc, false},
	{"t-crc.cpio", CRC, true},
	{"t-bin.cpio", Binary, false},
	{"t-binbe.cpio", Binary, false},
}

func TestFixtures(t *testing.T) {
	want := wantFiles(t)
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			data := testutil.Fixture(t, f.file)
			r := NewReader(iotest.HalfReader(bytes.NewReader(data)))
			res, err := readAll(r)
			if err != nil {
				t.Fatal(err)
			}
			res2, err := readAllBy(NewReader(bytes.NewReader(data)), true)
			if err != nil || fmt.Sprint(res2.files) != fmt.Sprint(res.files) {
				t.Fatalf("WriteTo: %v, %v", err, res2.files)
			}
			if r.Kind() != f.kind {
				t.Errorf("kind %v, want %v", r.Kind(), f.kind)
			}
			for name, w := range want {
				if res.files[name] != w {
					t.Errorf("%s: got %q, want %q", name, res.files[name], w)
				}
			}
			if len(res.files) != len(want) {
				t.Errorf("%d files, want %d", len(res.files), len(want))
			}
			if res.links["sym"] != "d/text.txt" || len(res.other) != 1 || res.other[0] != "fifo FIFO" {
				t.Errorf("links %v, other %v", res.links, res.other)
			}
			if res.kinds["d/e"] != archive.TypeDir {
				t.Errorf("d/e is %v", res.kinds["d/e"])
			}
			// newc and crc carry the data once: the other names are links.
			links := 0
			for _, k := range res.kinds {
				if k == archive.TypeHardlink {
					links++
				}
			}
			if wantLinks := map[Kind]int{Newc: 3, CRC: 3}[f.kind]; links != wantLinks {
				t.Errorf("%d hard links, want %d", links, wantLinks)
			}
		})
	}
}

func TestEntryFields(t *testing.T) {
	r := NewReader(bytes.NewReader(testutil.Fixture(t, "t-crc.cpio")))
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.Name != "d/text.txt" {
			continue
		}
		if e.Mode != 0o640 || !e.ModTime.Equal(time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)) ||
			e.Checksum != verify.Sum32 || len(e.ChecksumValue) != 4 || e.Size != 5001 {
			t.Fatalf("entry %+v", e)
		}
		return
	}
}

// TestCRCSum changes one data byte of each file of the crc archive: that
// file's read ends with a Sum32 mismatch, the others read on.
func TestCRCSum(t *testing.T) {
	data := testutil.Fixture(t, "t-crc.cpio")
	i := bytes.Index(data, []byte("long name\n"))
	bad := bytes.Clone(data)
	bad[i] ^= 1
	r := NewReader(bytes.NewReader(bad))
	var failed []string
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.WriteTo(io.Discard); err != nil {
			var mm *verify.MismatchError
			if !errors.As(err, &mm) || mm.Kind != verify.Sum32 {
				t.Fatalf("%s: %v", e.Name, err)
			}
			failed = append(failed, e.Name)
		}
	}
	if len(failed) != 1 || failed[0] != strings.Repeat("n", 200) {
		t.Fatalf("failed: %v", failed)
	}
}

func TestTruncatedAndFlipped(t *testing.T) {
	for _, f := range fixtures {
		data := testutil.Fixture(t, f.file)
		end := bytes.Index(data, []byte(trailer)) + len(trailer) + 1
		for n := 0; n < end; n += 37 {
			for _, wt := range []bool{false, true} {
				_, err := readAllBy(NewReader(bytes.NewReader(data[:n])), wt)
				if !errors.Is(err, archive.ErrCorrupt) {
					t.Fatalf("%s cut at %d (WriteTo %v): %v", f.file, n, wt, err)
				}
			}
		}
		for i := 0; i < end; i += 13 {
			bad := bytes.Clone(data)
			bad[i] ^= 0x41
			_, err := readAll(NewReader(bytes.NewReader(bad)))
			if err != nil && !archive.Categorized(err) {
				t.Fatalf("%s flip at %d: %v", f.file, i, err)
			}
		}
	}
}

func TestDetect(t *testing.T) {
	for _, f := range fixtures {
		if !archive.IsCpioHeader(testutil.Fixture(t, f.file)) {
			t.Errorf("%s not detected", f.file)
		}
	}
	for _, s := range []string{"070707xyz", "\xc7\x71 not a cpio header at all", "070701" + strings.Repeat("g", 104)} {
		if archive.IsCpioHeader([]byte(s)) {
			t.Errorf("%q detected", s)
		}
	}
}

// TestHeldLinksBounded: a newc archive of ever more zero-size links of
// one inode stops at the bound instead of growing without end.
func TestHeldLinksBounded(t *testing.T) {
	defer func(n int) { maxHeld = n }(maxHeld)
	maxHeld = 1000
	var b bytes.Buffer
	for i := 0; i <= maxHeld; i++ {
		name := fmt.Sprintf("l%d", i)
		fmt.Fprintf(&b, "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%s\x00",
			1, 0o100644, 0, 0, 2, 0, 0, 0, 0, 0, 0, len(name)+1, 0, name)
		for b.Len()%4 != 0 {
			b.WriteByte(0)
		}
	}
	_, err := readAll(NewReader(&b))
	if !errors.Is(err, ErrTooMany) {
		t.Fatalf("got %v", err)
	}
}

func FuzzCpio(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.cpio")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(newcArchive(true, []string{"big"}, [][]byte{bytes.Repeat([]byte("0123456789abcdef"), 8<<10)}))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := readAll(NewReader(bytes.NewReader(data)))
		if err != nil && !archive.Categorized(err) {
			t.Fatalf("error of no category: %v", err)
		}
		// The same archive as a file (archive.FileSeq's direct reads)
		// gives what the stream gives.
		want, werr := readAllBy(NewReader(bytes.NewReader(data)), true)
		r, _ := Open(&archive.Input{RA: bytes.NewReader(data), Size: int64(len(data))}, nil)
		got, gerr := readAllBy(r.(*Reader), true)
		if (werr == nil) != (gerr == nil) || errors.Is(werr, ErrTruncated) != errors.Is(gerr, ErrTruncated) ||
			fmt.Sprint(want.files) != fmt.Sprint(got.files) {
			t.Fatalf("stream: %v %v\nfile: %v %v", werr, want.files, gerr, got.files)
		}
	})
}

// newcArchive is a newc (or crc) archive of the files named in order,
// with their data.
func newcArchive(crc bool, names []string, data [][]byte) []byte {
	var b bytes.Buffer
	magic := "070701"
	if crc {
		magic = "070702"
	}
	pad := func() {
		for b.Len()%4 != 0 {
			b.WriteByte(0)
		}
	}
	add := func(name string, mode int, d []byte) {
		var sum uint32
		if crc {
			sum = verify.UpdateSum32(0, d)
		}
		fmt.Fprintf(&b, "%s%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%s\x00",
			magic, b.Len(), mode, 0, 0, 1, 0, len(d), 0, 0, 0, 0, len(name)+1, sum, name)
		pad()
		b.Write(d)
		pad()
	}
	for i, n := range names {
		add(n, 0o100644, data[i])
	}
	add(trailer, 0, nil)
	return b.Bytes()
}

// TestFileInput: entries long enough for WriteTo to read around the
// input buffer (archive.FileSeq) give their bytes through Read and
// WriteTo alike when the archive is a file; a flipped byte deep in a crc
// entry fails its sum; a cut archive is truncated.
func TestFileInput(t *testing.T) {
	sizes := []int{0, 3, 70 << 10, 1<<20 + 1, 5, 300<<10 + 2, 5<<20 + 9} // the last read by several goroutines
	var names []string
	var data [][]byte
	want := map[string]string{}
	for i, n := range sizes {
		d := make([]byte, n)
		for j := range d {
			d[j] = byte(j*13 + i + j>>10)
		}
		name := fmt.Sprintf("f%d", i)
		names, data = append(names, name), append(data, d)
		want[name] = fmt.Sprintf("%x %d", sha256.Sum256(d), n)
	}
	open := func(t *testing.T, b []byte) *Reader {
		f := testutil.TempFile(t, "a.cpio", b)
		r, err := Open(&archive.Input{RA: f, Size: int64(len(b)), R: strings.NewReader("not this")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.(*Reader)
	}
	for _, crc := range []bool{false, true} {
		a := newcArchive(crc, names, data)
		for _, wt := range []bool{false, true} {
			res, err := readAllBy(open(t, a), wt)
			if err != nil {
				t.Fatalf("crc %v WriteTo %v: %v", crc, wt, err)
			}
			for name, w := range want {
				if res.files[name] != w {
					t.Errorf("crc %v WriteTo %v: %s: %q, want %q", crc, wt, name, res.files[name], w)
				}
			}
		}
		cut := bytes.Index(a, []byte("f5")) + 200<<10
		if _, err := readAllBy(open(t, a[:cut]), true); !errors.Is(err, ErrTruncated) {
			t.Errorf("crc %v cut: %v", crc, err)
		}
	}
	for _, f := range []struct {
		name string
		at   int
	}{{"f3", 600 << 10}, {"f6", 3 << 20}} {
		bad := newcArchive(true, names, data)
		bad[bytes.Index(bad, []byte(f.name))+f.at] ^= 4
		_, err := readAllBy(open(t, bad), true)
		var mm *verify.MismatchError
		if !errors.As(err, &mm) || !strings.HasPrefix(err.Error(), f.name+":") {
			t.Errorf("%s flipped: %v", f.name, err)
		}
	}
}
