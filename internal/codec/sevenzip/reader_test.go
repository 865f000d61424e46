package sevenzip

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"github.com/unpack-dev/unpack/internal/testutil"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// fixtures made by scripts/testdata/sevenzip.sh.
var fixtures = []struct {
	name     string
	password string
}{
	{name: "copy.7z"},
	{name: "lzma.7z"},
	{name: "lzma2.7z"},
	{name: "bzip2.7z"},
	{name: "deflate.7z"},
	{name: "mx0.7z"},
	{name: "mx1.7z"},
	{name: "mx9.7z"},
	{name: "nonsolid.7z"},
	{name: "bcj2.7z"},
	{name: "aes.7z", password: "Secret"},
	{name: "aes-hdr.7z", password: "Secret"},
	{name: "aes-copy.7z", password: "Secret"},
	{name: "vol.7z.001"},
	{name: "empty.7z"},
	{name: "ppmd.7z"},
	{name: "deflate64.7z"},
	{name: "bcj.7z"},
	{name: "arm.7z"},
	{name: "armt.7z"},
	{name: "arm64.7z"},
	{name: "ppc.7z"},
	{name: "sparc.7z"},
	{name: "ia64.7z"},
	{name: "riscv.7z"},
	{name: "delta.7z"},
}

// checkTree compares what was extracted with the fixture source tree.
func checkTree(t *testing.T, name string, files, links map[string]string) {
	t.Helper()
	want := testutil.SHA256Sums(t, "testdata/src.sha256s")
	if name == "empty.7z" {
		want = map[string]string{"dir/empty.txt": want["dir/empty.txt"]}
	}
	for n, sum := range want {
		if files[n] != sum {
			t.Errorf("%s: %s: got sha256 %q, want %s", name, n, files[n], sum)
		}
	}
	if len(files) != len(want) {
		t.Errorf("%s: %d files, want %d", name, len(files), len(want))
	}
	if name != "empty.7z" && links["dir/link"] != "../text.txt" {
		t.Errorf("%s: dir/link -> %q, want ../text.txt", name, links["dir/link"])
	}
}

func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			var pws []string
			if fx.password != "" {
				pws = []string{fx.password}
			}
			r, err := openFile(t, filepath.Join("testdata", fx.name), pws...)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			files, links, err := extractAll(r)
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, fx.name, files, links)
		})
	}
}

// TestEntries checks the metadata of one archive in detail.
func TestEntries(t *testing.T) {
	r, err := openFile(t, "testdata/lzma2.7z")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := map[string]*archive.Entry{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name] = e
	}
	tests := []struct {
		name string
		typ  archive.Type
		mode fs.FileMode
		size int64
	}{
		{"dir", archive.TypeDir, 0o755, 0},
		{"dir/sub", archive.TypeDir, 0o750, 0},
		{"emptydir", archive.TypeDir, 0o755, 0},
		{"dir/empty.txt", archive.TypeFile, 0o644, 0},
		{"dir/sub/small.txt", archive.TypeFile, 0o640, 10},
		{"dir/link", archive.TypeSymlink, 0o777, 11},
		{"text.txt", archive.TypeFile, 0o644, 12000},
	}
	for _, tt := range tests {
		e := got[tt.name]
		if e == nil {
			t.Errorf("%s missing", tt.name)
			continue
		}
		if e.Type != tt.typ || e.Mode != tt.mode || e.Size != tt.size {
			t.Errorf("%s: type %v mode %v size %d, want %v %v %d", tt.name, e.Type, e.Mode, e.Size, tt.typ, tt.mode, tt.size)
		}
		if e.ModTime.Unix() != 1704164645 {
			t.Errorf("%s: mtime %v", tt.name, e.ModTime)
		}
	}
	if e := got["text.txt"]; e != nil && (e.Checksum != verify.CRC32 || len(e.ChecksumValue) != 4 || !strings.HasPrefix(e.Method, "LZMA2")) {
		t.Errorf("text.txt: checksum %v %x method %q", e.Checksum, e.ChecksumValue, e.Method)
	}
}

// readAllWith extracts through a reader wrapper (one byte, half reads).
func readAllWith(t *testing.T, path string, wrap func(io.Reader) io.Reader) map[string]string {
	r, err := openFile(t, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sums := map[string]string{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Type != archive.TypeFile {
			continue
		}
		h := sha256.New()
		if _, err := io.Copy(h, wrap(r)); err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		sums[e.Name] = hex.EncodeToString(h.Sum(nil))
	}
	return sums
}

func TestSmallReads(t *testing.T) {
	want := testutil.SHA256Sums(t, "testdata/src.sha256s")
	for _, name := range []string{"lzma2.7z", "bcj2.7z", "aes-copy.7z"} {
		for wname, wrap := range map[string]func(io.Reader) io.Reader{
			"onebyte": iotest.OneByteReader, "half": iotest.HalfReader,
		} {
			if name == "aes-copy.7z" {
				continue // needs a password; covered by TestFixtures
			}
			got := readAllWith(t, "testdata/"+name, wrap)
			for n, s := range want {
				if got[n] != s {
					t.Errorf("%s %s: %s differs", name, wname, n)
				}
			}
		}
	}
}

// TestSkip reads only some entries: skipped data of a solid folder must
// be decoded and dropped, and later entries still verify.
func TestSkip(t *testing.T) {
	want := testutil.SHA256Sums(t, "testdata/src.sha256s")
	for _, name := range []string{"lzma2.7z", "nonsolid.7z", "bcj2.7z"} {
		r, err := openFile(t, "testdata/"+name)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 || e.Type != archive.TypeFile {
				continue
			}
			h := sha256.New()
			if _, err := io.Copy(h, r); err != nil {
				t.Fatalf("%s: %s: %v", name, e.Name, err)
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != want[e.Name] {
				t.Errorf("%s: %s differs", name, e.Name)
			}
		}
		r.Close()
	}
}

func TestPasswords(t *testing.T) {
	tests := []struct {
		name, password string
		openErr        error // from Open
		readErr        error // from reading the entries
	}{
		{"aes.7z", "", nil, archive.ErrNeedPassword},
		{"aes.7z", "wrong", nil, archive.ErrPassword},
		{"aes-hdr.7z", "", archive.ErrNeedPassword, nil},
		{"aes-hdr.7z", "wrong", archive.ErrPassword, nil},
		{"aes-copy.7z", "", archive.ErrNeedPassword, nil},
		{"aes-copy.7z", "wrong", archive.ErrPassword, nil},
	}
	for _, tt := range tests {
		var pws []string
		if tt.password != "" {
			pws = []string{tt.password}
		}
		r, err := openFile(t, "testdata/"+tt.name, pws...)
		if tt.openErr != nil {
			if !errors.Is(err, tt.openErr) {
				t.Errorf("%s/%q: Open: %v, want %v", tt.name, tt.password, err, tt.openErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		_, _, err = extractAll(r)
		if !errors.Is(err, tt.readErr) || errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrPassword) {
			t.Errorf("%s/%q: read: %v, want %v", tt.name, tt.password, err, tt.readErr)
		}
		r.Close()
	}
}

// TestSeveralPasswords gives the right password after wrong ones.
func TestSeveralPasswords(t *testing.T) {
	r, err := openFile(t, "testdata/aes-hdr.7z", "nope", "Secret")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	files, links, err := extractAll(r)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, "aes-hdr.7z", files, links)
}

// TestSeveralDataPasswords picks the right password for encrypted data
// under a plain header.
func TestSeveralDataPasswords(t *testing.T) {
	r, err := openFile(t, "testdata/aes.7z", "nope", "Secret", "other")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	files, links, err := extractAll(r)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, "aes.7z", files, links)
}

// TestPipe opens an archive from a non-seekable reader.
func TestPipe(t *testing.T) {
	data, err := os.ReadFile("testdata/lzma2.7z")
	if err != nil {
		t.Fatal(err)
	}
	in := &archive.Input{R: bufio.NewReader(bytes.NewReader(data)), Size: -1, Name: "-"}
	r, err := Open(in, &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	files, links, err := extractAll(r)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, "lzma2.7z", files, links)
}

// TestMissingVolume drops the last volume.
func TestMissingVolume(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"vol.7z.001", "vol.7z.002", "vol.7z.003"} {
		data, err := os.ReadFile("testdata/" + n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := openFile(t, filepath.Join(dir, "vol.7z.001"))
	if !errors.Is(err, archive.ErrMissingVolume) {
		t.Fatalf("got %v, want ErrMissingVolume", err)
	}
}

func TestMemLimit(t *testing.T) {
	f, err := os.Open("testdata/lzma.7z")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r, err := Open(&archive.Input{R: f, RA: f, Size: st.Size(), Path: f.Name()}, &archive.Options{MemLimit: 1024})
	if err == nil {
		_, _, err = extractAll(r)
	}
	if !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
}

// TestHeaderLimit: the files a header describes count against the limit.
func TestHeaderLimit(t *testing.T) {
	data := testutil.Fixture(t, "lzma2.7z")
	_, err := openBytes(data, &archive.Options{MemLimit: 2000})
	if !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
}

// openBytes opens an in-memory archive.
func openBytes(data []byte, opt *archive.Options) (*Reader, error) {
	br := bytes.NewReader(data)
	return open(&archive.Input{R: br, RA: br, Size: int64(len(data)), Name: "mem.7z"}, opt)
}

// TestTruncated cuts archives short: every cut must fail cleanly.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"copy.7z", "lzma2.7z", "bcj2.7z", "aes-hdr.7z", "nonsolid.7z"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(data)/97)
		for n := 0; n < len(data); n += step {
			r, err := openBytes(data[:n], &archive.Options{Passwords: []string{"Secret"}})
			if err == nil {
				_, _, err = extractAll(r)
			}
			if err == nil {
				t.Errorf("%s cut at %d: no error", name, n)
				continue
			}
			if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrPassword) {
				t.Errorf("%s cut at %d: %v is not ErrCorrupt", name, n, err)
			}
		}
	}
}

// TestBitFlips flips bits everywhere: there must be no panic, and since
// every byte is under some CRC, copy.7z must always fail.
func TestBitFlips(t *testing.T) {
	for _, name := range []string{"copy.7z", "lzma2.7z", "bcj2.7z", "aes-copy.7z"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		flips := 211
		if name == "aes-copy.7z" {
			flips = 29 // each flip pays a 2^19-round key derivation
		}
		step := max(1, len(data)/flips)
		for i := 0; i < len(data); i += step {
			bad := bytes.Clone(data)
			bad[i] ^= 1 << (i % 8)
			r, err := openBytes(bad, &archive.Options{Passwords: []string{"Secret"}, MemLimit: 1 << 26})
			if err == nil {
				_, _, err = extractAll(r)
			}
			if name == "copy.7z" && err == nil {
				t.Errorf("%s: flip at %d: no error", name, i)
			}
		}
	}
}

// TestReadAllocs: reading an entry allocates nothing per Read.
func TestReadAllocs(t *testing.T) {
	for _, name := range []string{"lzma2.7z", "bcj.7z", "bcj2.7z", "copy.7z"} {
		r, err := openFile(t, "testdata/"+name)
		if err != nil {
			t.Fatal(err)
		}
		for {
			e, err := r.Next()
			if err != nil {
				t.Fatalf("%s: no text.txt: %v", name, err)
			}
			if e.Name == "text.txt" {
				break
			}
		}
		buf := make([]byte, 64)
		r.Read(buf) // warm up: the folder opens on the first Read
		if n := testing.AllocsPerRun(100, func() { r.Read(buf) }); n != 0 {
			t.Errorf("%s: %v allocations per Read", name, n)
		}
		r.Close()
	}
}

// TestSolidDamage damages a solid folder: the entry where decoding fails
// and every later entry of the folder report a corrupt-data error, and
// Next keeps going.
func TestSolidDamage(t *testing.T) {
	data := testutil.Fixture(t, "lzma2.7z")
	r0, err := openBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &r0.db.si.folders[0]
	data[r0.src.base+f.packStart+int64(r0.db.si.packSizes[0]/3)] ^= 0xFF
	r, err := openBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	failed, seen := 0, 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen++
		if _, err := io.Copy(io.Discard, r); err != nil {
			failed++
			if !errors.Is(err, archive.ErrCorrupt) {
				t.Errorf("%s: %v is not ErrCorrupt", e.Name, err)
			}
		}
	}
	if failed == 0 || seen != 8 {
		t.Errorf("%d of %d entries failed", failed, seen)
	}
}
