package iso9660

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// tree is what an image extracts to: each file's SHA-256, each link's
// target.
type tree map[string]string

func (t tree) String() string {
	var lines []string
	for k, v := range t {
		lines = append(lines, k+" "+v)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// readTree reads every entry of r sequentially. Hard links take their
// target's sum; [BOOT]/ entries are left out unless boot is set.
func readTree(r archive.Reader, boot bool) (tree, error) {
	t := tree{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return t, err
		}
		if strings.HasPrefix(e.Name, "[BOOT]") && !boot {
			continue
		}
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			n, err := io.Copy(h, r)
			if err != nil {
				return t, &archive.EntryError{Entry: e.Name, Err: err}
			}
			if n != e.Size {
				return t, fmt.Errorf("%s: %d bytes, entry says %d", e.Name, n, e.Size)
			}
			t[e.Name] = hex.EncodeToString(h.Sum(nil))
		case archive.TypeHardlink:
			t[e.Name] = t[e.Linkname]
		case archive.TypeSymlink:
			t["link "+e.Name] = e.Linkname
		}
	}
}

// expected reads a fixture's .sums file: bsdtar's extraction of it.
func expected(t *testing.T, name string) tree {
	f, err := os.Open(strings.TrimSuffix(name, ".iso") + ".sums")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := tree{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "link "); ok {
			name, target, _ := strings.Cut(rest, " -> ")
			want["link "+name] = target
			continue
		}
		sum, name, _ := strings.Cut(line, "  ")
		want[name] = sum
	}
	return want
}

func openFile(t testing.TB, name string) *Reader {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// TestFixtures reads every image genisoimage and xorriso wrote
// (scripts/testdata/iso.sh) and compares it with bsdtar's extraction.
func TestFixtures(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.iso")
	if len(names) < 6 {
		t.Fatalf("%d fixtures", len(names))
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			got, err := readTree(openFile(t, name), false)
			if err != nil {
				t.Fatal(err)
			}
			if want := expected(t, name); got.String() != want.String() {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestMetadata: Rock Ridge modes, times, links and zisofs are read.
func TestMetadata(t *testing.T) {
	es, _ := openFile(t, "testdata/zisofs.iso").Entries()
	byName := map[string]*archive.Entry{}
	for _, e := range es {
		byName[e.Name] = e
	}
	for name, want := range map[string]struct {
		typ  archive.Type
		perm os.FileMode
	}{
		"bin":                            {archive.TypeDir, 0o750},
		"bin/random.bin":                 {archive.TypeFile, 0o600},
		"docs/link-to-hello":             {archive.TypeSymlink, 0o777},
		"docs/long text with spaces.txt": {archive.TypeFile, 0o644},
	} {
		e := byName[name]
		if e == nil {
			t.Errorf("%s missing", name)
			continue
		}
		if e.Type != want.typ || e.Mode.Perm() != want.perm {
			t.Errorf("%s: %v %v, want %v %v", name, e.Type, e.Mode.Perm(), want.typ, want.perm)
		}
	}
	if e := byName["docs/long text with spaces.txt"]; e == nil || e.Method != "zisofs" || e.Size != 60390 || e.PackedSize >= e.Size {
		t.Errorf("zisofs entry: %+v", e)
	}
	if e := byName["hello.txt"]; e == nil || e.ModTime.Year() != 2021 {
		t.Errorf("hello.txt time: %+v", e)
	}
}

// TestBootImage lists an El Torito boot image as 7-Zip does, with 7-Zip's
// bytes (sha256 of 7zz's [BOOT]/Boot-NoEmul.img for testdata/boot.iso).
func TestBootImage(t *testing.T) {
	got, err := readTree(openFile(t, "testdata/boot.iso"), true)
	if err != nil {
		t.Fatal(err)
	}
	const want7zz = "10fc3c51a152e90e5b90319b601d92ccf37290ef53c35ff92507687d8a911a08"
	if got["[BOOT]/Boot-NoEmul.img"] != want7zz {
		t.Errorf("boot image %q, want 7-Zip's", got["[BOOT]/Boot-NoEmul.img"])
	}
}

// TestRandomAccess opens every entry concurrently and compares with the
// sequential read.
func TestRandomAccess(t *testing.T) {
	for _, name := range []string{"testdata/rr-joliet.iso", "testdata/zisofs.iso"} {
		want, err := readTree(openFile(t, name), true)
		if err != nil {
			t.Fatal(err)
		}
		r := openFile(t, name)
		es, _ := r.Entries()
		var mu sync.Mutex
		got := tree{}
		var wg sync.WaitGroup
		for i, e := range es {
			if e.Type != archive.TypeFile {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				rc, err := r.Open(i)
				if err != nil {
					t.Error(err)
					return
				}
				defer rc.Close()
				h := sha256.New()
				if _, err := io.Copy(h, rc); err != nil {
					t.Error(err)
				}
				mu.Lock()
				got[e.Name] = hex.EncodeToString(h.Sum(nil))
				mu.Unlock()
			}()
		}
		wg.Wait()
		for k, v := range got {
			if want[k] != v {
				t.Errorf("%s: %s: random access %s, sequential %s", name, k, v, want[k])
			}
		}
	}
}

// TestZisofsDamage: a flipped byte in a compressed block fails that file
// (its zlib data or Adler-32), never another.
func TestZisofsDamage(t *testing.T) {
	b, _ := os.ReadFile("testdata/zisofs.iso")
	r := openFile(t, "testdata/zisofs.iso")
	var f *file
	for i := range r.files {
		if r.files[i].zf != nil {
			f = r.files[i]
		}
	}
	if f == nil {
		t.Fatal("no zisofs file")
	}
	for _, at := range []int64{200, 1000, f.extents[0].size - 5} {
		d := bytes.Clone(b)
		d[f.extents[0].start+at] ^= 0x10
		r, err := NewReader(bytes.NewReader(d), int64(len(d)), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = readTree(r, false)
		var ee *archive.EntryError
		if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrChecksum) || !errors.As(err, &ee) || ee.Entry != f.entry.Name {
			t.Errorf("flip at %d: %v", at, err)
		}
	}
}

// TestTruncated cuts every fixture at many lengths: each cut opens with a
// corrupt error or reads with one, never panics or hangs, and never gives
// a file of the wrong size as whole.
func TestTruncated(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.iso")
	for _, name := range names {
		b, _ := os.ReadFile(name)
		for cut := 0; cut < len(b); cut += 2048*7 + 13 {
			r, err := NewReader(bytes.NewReader(b[:cut]), int64(cut), nil)
			if err != nil {
				if !errors.Is(err, archive.ErrCorrupt) {
					t.Errorf("%s cut at %d: %v", name, cut, err)
				}
				continue
			}
			if _, err := readTree(r, true); err != nil && !errors.Is(err, archive.ErrCorrupt) {
				t.Errorf("%s cut at %d: %v", name, cut, err)
			}
		}
	}
}

// img builds a small image by hand: the primary volume descriptor at
// sector 16, the terminator, then the given sectors from 18 on.
type img struct{ sectors map[uint32][]byte }

// rec is one directory record to write.
type rec struct {
	name   string
	extent uint32
	size   uint32
	flags  byte
	sua    []byte
}

func appendRecord(b []byte, r rec) []byte {
	name := []byte(r.name)
	n := 33 + len(name)
	if len(name)%2 == 0 {
		n++
	}
	n += len(r.sua)
	d := make([]byte, n)
	d[0] = byte(n)
	binary.LittleEndian.PutUint32(d[2:], r.extent)
	binary.BigEndian.PutUint32(d[6:], r.extent)
	binary.LittleEndian.PutUint32(d[10:], r.size)
	binary.BigEndian.PutUint32(d[14:], r.size)
	copy(d[18:], []byte{121, 1, 2, 3, 4, 5, 0})
	d[25] = r.flags
	d[28], d[31] = 1, 1
	d[32] = byte(len(name))
	copy(d[33:], name)
	copy(d[n-len(r.sua):], r.sua)
	return append(b, d...)
}

// dir returns a directory sector at lba holding "." and ".." and recs.
func dir(lba, parent uint32, recs ...rec) []byte {
	b := appendRecord(nil, rec{name: "\x00", extent: lba, size: sectorSize, flags: flagDir})
	b = appendRecord(b, rec{name: "\x01", extent: parent, size: sectorSize, flags: flagDir})
	for _, r := range recs {
		b = appendRecord(b, r)
	}
	return b
}

func (m img) bytes() []byte {
	last := uint32(18)
	for lba := range m.sectors {
		last = max(last, lba)
	}
	b := make([]byte, int(last+1)*sectorSize)
	pvd := b[16*sectorSize:]
	pvd[0] = vdPrimary
	copy(pvd[1:], "CD001")
	pvd[6] = 1
	binary.LittleEndian.PutUint16(pvd[128:], sectorSize)
	binary.BigEndian.PutUint16(pvd[130:], sectorSize)
	appendRecord(pvd[156:156], rec{name: "\x00", extent: 18, size: sectorSize, flags: flagDir})
	term := b[17*sectorSize:]
	term[0] = vdTerminator
	copy(term[1:], "CD001")
	for lba, s := range m.sectors {
		copy(b[int(lba)*sectorSize:], s)
	}
	return b
}

func openImg(m img) (*Reader, error) {
	b := m.bytes()
	return NewReader(bytes.NewReader(b), int64(len(b)), nil)
}

// TestHostile: images built to loop, to make one extent count many times,
// or to point outside themselves.
func TestHostile(t *testing.T) {
	data := bytes.Repeat([]byte("data"), 512)
	t.Run("control", func(t *testing.T) {
		r, err := openImg(img{map[uint32][]byte{18: dir(18, 18, rec{name: "A.TXT;1", extent: 20, size: 2048}), 20: data}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := readTree(r, false)
		if err != nil || len(got) != 1 || got["A.TXT"] == "" {
			t.Fatalf("%v %v", got, err)
		}
	})
	t.Run("directory loop", func(t *testing.T) {
		_, err := openImg(img{map[uint32][]byte{
			18: dir(18, 18, rec{name: "SUB", extent: 19, size: sectorSize, flags: flagDir}),
			19: dir(19, 18, rec{name: "BACK", extent: 18, size: sectorSize, flags: flagDir}),
		}})
		if !errors.Is(err, errDirLoop) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("partial overlap", func(t *testing.T) {
		_, err := openImg(img{map[uint32][]byte{
			18: dir(18, 18, rec{name: "A", extent: 20, size: 4096}, rec{name: "B", extent: 21, size: 2048}),
			20: data, 21: data,
		}})
		var oe *archive.OverlapError
		if !errors.Is(err, archive.ErrCorrupt) || !errors.As(err, &oe) || oe.A != "A" || oe.B != "B" {
			t.Errorf("got %v", err)
		}
	})
	t.Run("one extent, many names", func(t *testing.T) {
		var recs []rec
		for i := range 50 {
			recs = append(recs, rec{name: fmt.Sprintf("F%02d", i), extent: 20, size: 2048})
		}
		r, err := openImg(img{map[uint32][]byte{18: dir(18, 18, recs...), 20: data}})
		if err != nil {
			t.Fatal(err)
		}
		es, _ := r.Entries()
		files := 0
		for _, e := range es[1:] {
			if e.Type != archive.TypeHardlink || e.Linkname != "F00" {
				t.Errorf("%s: %v -> %q, want a hard link to F00", e.Name, e.Type, e.Linkname)
			}
		}
		for _, e := range es {
			if e.Type == archive.TypeFile {
				files++
			}
		}
		if files != 1 {
			t.Errorf("%d files, want 1", files)
		}
	})
	t.Run("data past the end", func(t *testing.T) {
		r, err := openImg(img{map[uint32][]byte{
			18: dir(18, 18, rec{name: "OK", extent: 20, size: 100}, rec{name: "OUT", extent: 900, size: 2048}),
			20: data,
		}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = readTree(r, false)
		var ee *archive.EntryError
		if !errors.Is(err, errTruncated) || !errors.As(err, &ee) || ee.Entry != "OUT" {
			t.Errorf("got %v", err)
		}
	})
	t.Run("directory past the end", func(t *testing.T) {
		_, err := openImg(img{map[uint32][]byte{18: dir(18, 18, rec{name: "SUB", extent: 900, size: sectorSize, flags: flagDir})}})
		if !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("continuation loop", func(t *testing.T) {
		// SP in the root's "." record, then a record whose CE points at
		// its own system use area, over and over.
		sp := []byte{'S', 'P', 7, 1, 0xBE, 0xEF, 0}
		ce := make([]byte, 28)
		copy(ce, "CE\x1c\x01")
		root := appendRecord(nil, rec{name: "\x00", extent: 18, size: sectorSize, flags: flagDir, sua: sp})
		root = appendRecord(root, rec{name: "\x01", extent: 18, size: sectorSize, flags: flagDir})
		off := len(root)
		root = appendRecord(root, rec{name: "A", extent: 20, size: 10, sua: ce})
		suaAt := off + 34 // 33 + one-byte name, odd: no padding
		binary.LittleEndian.PutUint32(root[suaAt+4:], 18)
		binary.LittleEndian.PutUint32(root[suaAt+12:], uint32(suaAt))
		binary.LittleEndian.PutUint32(root[suaAt+20:], 28)
		_, err := openImg(img{map[uint32][]byte{18: root, 20: data}})
		if !errors.Is(err, errContinuations) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("no CD001", func(t *testing.T) {
		b := img{map[uint32][]byte{18: dir(18, 18)}}.bytes()
		b[16*sectorSize+1] = 'X'
		if _, err := NewReader(bytes.NewReader(b), int64(len(b)), nil); !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("got %v", err)
		}
	})
}

// FuzzReader opens and reads hand-built images, mutated: errors are
// typed, nothing panics or hangs.
func FuzzReader(f *testing.F) {
	sp := []byte{'S', 'P', 7, 1, 0xBE, 0xEF, 0}
	px := []byte{'P', 'X', 36, 1, 0xa4, 0x81, 0, 0, 0, 0, 0x81, 0xa4, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	nm := []byte{'N', 'M', 9, 1, 0, 'n', 'a', 'm', 'e'}
	sl := []byte{'S', 'L', 12, 1, 0, 0, 3, 'a', 'b', 'c', 4, 0}
	root := appendRecord(nil, rec{name: "\x00", extent: 18, size: sectorSize, flags: flagDir, sua: sp})
	root = appendRecord(root, rec{name: "\x01", extent: 18, size: sectorSize, flags: flagDir})
	root = appendRecord(root, rec{name: "A;1", extent: 20, size: 300, sua: append(append([]byte{}, px...), nm...)})
	root = appendRecord(root, rec{name: "L;1", extent: 0, size: 0, sua: sl})
	root = appendRecord(root, rec{name: "SUB", extent: 19, size: sectorSize, flags: flagDir})
	f.Add(img{map[uint32][]byte{18: root, 19: dir(19, 18, rec{name: "B;1", extent: 21, size: 10}), 20: []byte("hello"), 21: []byte("x")}}.bytes()[15*sectorSize:])
	f.Fuzz(func(t *testing.T, tail []byte) {
		// The first 15 sectors (the system area) are not read: keep the
		// fuzzed bytes to what is.
		b := append(make([]byte, 15*sectorSize), tail...)
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			if !archive.Categorized(err) {
				t.Fatalf("uncategorized error %v", err)
			}
			return
		}
		if _, err := readTree(r, true); err != nil && !archive.Categorized(err) {
			t.Fatalf("uncategorized error %v", err)
		}
	})
}
