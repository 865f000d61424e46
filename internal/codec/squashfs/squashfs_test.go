package squashfs

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil/entrytree"
)

func expected(t *testing.T, name string) map[string]string {
	f, err := os.Open(strings.TrimSuffix(name, ".sqfs") + ".sums")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "link "); ok {
			n, target, _ := strings.Cut(rest, " -> ")
			want["link "+n] = target
			continue
		}
		sum, n, _ := strings.Cut(line, "  ")
		want[n] = sum
	}
	return want
}

func open(t testing.TB, b []byte) (*Reader, error) {
	t.Helper()
	return NewReader(bytes.NewReader(b), int64(len(b)), nil)
}

// TestFixtures reads every mksquashfs image (scripts/testdata/squashfs.sh)
// and compares it with unsquashfs's extraction.
func TestFixtures(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.sqfs")
	if len(names) < 6 {
		t.Fatalf("%d fixtures", len(names))
	}
	for _, name := range names {
		b, _ := os.ReadFile(name)
		r, err := open(t, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := entrytree.Read(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := expected(t, name); entrytree.Show(got) != entrytree.Show(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", name, entrytree.Show(got), entrytree.Show(want))
		}
	}
}

// TestRandomAccess opens every file concurrently and compares with the
// sequential read.
func TestRandomAccess(t *testing.T) {
	b, _ := os.ReadFile("testdata/xz.sqfs")
	r, _ := open(t, b)
	want, err := entrytree.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	r, _ = open(t, b)
	es, _ := r.Entries()
	var wg sync.WaitGroup
	for i, e := range es {
		if e.Type != archive.TypeFile {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc, _ := r.Open(i)
			h := sha256.New()
			if _, err := io.Copy(h, rc); err != nil {
				t.Error(err)
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != want[e.Name] {
				t.Errorf("%s: %s, sequentially %s", e.Name, got, want[e.Name])
			}
		}()
	}
	wg.Wait()
}

// TestDamage flips bytes and cuts each fixture: typed errors only, never
// a panic, and a zlib block's Adler-32 catches a flip in file data.
func TestDamage(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.sqfs")
	for _, name := range names {
		b, _ := os.ReadFile(name)
		for at := 0; at < len(b); at += 97 {
			d := bytes.Clone(b)
			d[at] ^= 0x20
			if r, err := open(t, d); err != nil {
				if !archive.Categorized(err) {
					t.Errorf("%s flip at %d: %v", name, at, err)
				}
			} else if _, err := entrytree.Read(r); err != nil && !archive.Categorized(err) {
				t.Errorf("%s flip at %d: %v", name, at, err)
			}
		}
		for cut := 0; cut < len(b); cut += 1021 {
			if r, err := open(t, b[:cut]); err == nil {
				if _, err := entrytree.Read(r); err != nil && !archive.Categorized(err) {
					t.Errorf("%s cut at %d: %v", name, cut, err)
				}
			} else if !archive.Categorized(err) {
				t.Errorf("%s cut at %d: %v", name, cut, err)
			}
		}
	}
	// The first data block of gzip.sqfs starts right after the superblock.
	b, _ := os.ReadFile("testdata/gzip.sqfs")
	b[superSize+40] ^= 1
	r, err := open(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entrytree.Read(r); err == nil {
		t.Error("a flipped data byte went unnoticed")
	} else if !errors.Is(err, archive.ErrChecksum) && !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("flipped data byte: %v", err)
	}
}

// FuzzReader reads mutated small images: typed errors, no panics. The
// seeds are the fixtures of up to 16 KiB: tiny.sqfs and the lzma, xz and
// zstd images, so that each of those decompressors is reached.
func FuzzReader(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.sqfs")
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= 16<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			if !archive.Categorized(err) {
				t.Fatalf("uncategorized %v", err)
			}
			return
		}
		if _, err := entrytree.Read(r); err != nil && !archive.Categorized(err) {
			t.Fatalf("uncategorized %v", err)
		}
	})
}

// TestFragmentShared: a fragment block is decoded once for all the file
// tails in it; reading a tail again from it allocates no block.
func TestFragmentShared(t *testing.T) {
	b, _ := os.ReadFile("testdata/gzip.sqfs")
	r, err := open(t, b)
	if err != nil {
		t.Fatal(err)
	}
	var tails []int
	for i, f := range r.files {
		if f.entry.Type == archive.TypeFile && f.frag != noFragment && len(f.sizes) == 0 {
			tails = append(tails, i)
		}
	}
	if len(tails) == 0 {
		t.Fatal("no file only in a fragment")
	}
	read := func(i int) {
		rc, err := r.Open(i)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, rc); err != nil || n != r.files[i].entry.Size {
			t.Fatalf("%s: %d bytes, %v", r.files[i].entry.Name, n, err)
		}
		rc.Close()
	}
	read(tails[0])
	kept := r.frag.get(r.files[tails[0]].frag)
	if kept == nil {
		t.Fatal("the fragment block is not kept")
	}
	r.frag.release(r, kept)
	allocs := testing.AllocsPerRun(20, func() { read(tails[len(tails)-1]) })
	if allocs > 2 {
		t.Errorf("%.0f allocations reading a tail from a kept fragment, want at most 2", allocs)
	}
}

// TestFragmentLimit: with a memory limit of one block, one fragment block
// is kept.
func TestFragmentLimit(t *testing.T) {
	b, _ := os.ReadFile("testdata/gzip.sqfs")
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{MemLimit: int64(r0BlockSize(t, b))})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.frag.slots) != 1 {
		t.Errorf("%d fragment slots, want 1", len(r.frag.slots))
	}
	if _, err := entrytree.Read(r); err != nil {
		t.Fatal(err)
	}
}

func r0BlockSize(t *testing.T, b []byte) uint32 {
	r, err := open(t, b)
	if err != nil {
		t.Fatal(err)
	}
	return r.sb.blockSize
}

// manyFragments makes, with mksquashfs, an image of 40 files of 3000
// bytes in 4 KiB blocks (one tail per fragment block: 40 fragments), and
// returns it with each file's content by name.
func manyFragments(t *testing.T) ([]byte, map[string][]byte) {
	if _, err := exec.LookPath("mksquashfs"); err != nil {
		t.Skip("no mksquashfs (scripts/install-tools.sh)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	files := map[string][]byte{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		b := make([]byte, 3000)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		name := fmt.Sprintf("f%02d", i)
		files[name] = b
		if err := os.WriteFile(filepath.Join(src, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img := filepath.Join(dir, "img.sqfs")
	if out, err := exec.Command("mksquashfs", src, img, "-b", "4096", "-noappend", "-quiet", "-no-progress").CombinedOutput(); err != nil {
		t.Fatalf("mksquashfs: %v\n%s", err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b, files
}

// TestFragmentReuse: a tail still being read keeps its fragment block
// while the other files' tails evict it from a one-slot cache and recycle
// the blocks they let go of, one file at a time and all at once.
func TestFragmentReuse(t *testing.T) {
	b, files := manyFragments(t)
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{MemLimit: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.frags) < 40 || len(r.frag.slots) != 1 {
		t.Fatalf("%d fragments, %d slots: want 40 and 1", len(r.frags), len(r.frag.slots))
	}
	es, _ := r.Entries()
	idx := map[string]int{}
	for i, e := range es {
		idx[e.Name] = i
	}
	readAll := func(name string, rc io.Reader) {
		got, err := io.ReadAll(rc)
		if err != nil || !bytes.Equal(got, files[name]) {
			t.Errorf("%s: %d bytes, %v; not the file", name, len(got), err)
		}
	}
	held, _ := r.Open(idx["f00"])
	head := make([]byte, 100)
	if _, err := io.ReadFull(held, head); err != nil {
		t.Fatal(err)
	}
	for name := range files {
		if name != "f00" {
			rc, _ := r.Open(idx[name])
			readAll(name, rc)
			rc.Close()
		}
	}
	readAll("f00", io.MultiReader(bytes.NewReader(head), held))
	held.Close()

	var wg sync.WaitGroup
	for round := range 4 {
		for name := range files {
			wg.Go(func() {
				rc, _ := r.Open(idx[name])
				defer rc.Close()
				if round%2 == 1 { // read slowly: others evict meanwhile
					rc = struct {
						io.Reader
						io.Closer
					}{iotest.OneByteReader(rc), rc}
				}
				readAll(name, rc)
			})
		}
	}
	wg.Wait()
}
