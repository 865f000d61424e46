package wim

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzms"
	"github.com/unpack-dev/unpack/internal/testutil/entrytree"
)

// expected reads NAME.sums: what wimlib-imagex apply extracted.
func expected(t *testing.T, name string) map[string]string {
	f, err := os.Open(strings.TrimSuffix(name, filepath.Ext(name)) + ".sums")
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

func openFile(t testing.TB, name string, opt *archive.Options) (*Reader, error) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, _ := f.Stat()
	return NewReader(f, fi.Size(), name, opt)
}

func open(t testing.TB, b []byte) (*Reader, error) {
	t.Helper()
	return NewReader(bytes.NewReader(b), int64(len(b)), "", nil)
}

// TestFixtures reads every wimlib-imagex fixture (scripts/testdata/wim.sh)
// and compares it with wimlib-imagex apply's extraction.
func TestFixtures(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.wim")
	names = append(names, "testdata/split.swm")
	if len(names) < 7 {
		t.Fatalf("%d fixtures", len(names))
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			r, err := openFile(t, name, nil)
			if err != nil {
				if errors.Is(err, archive.ErrUnsupported) && strings.Contains(name, "lzx") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			defer r.Close()
			got, err := entrytree.Read(r)
			if err != nil {
				if errors.Is(err, archive.ErrUnsupported) && strings.Contains(name, "lzx") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			if want := expected(t, name); entrytree.Show(got) != entrytree.Show(want) {
				t.Errorf("got\n%s\nwant\n%s", entrytree.Show(got), entrytree.Show(want))
			}
		})
	}
}

func TestComment(t *testing.T) {
	r, err := openFile(t, "testdata/multi.wim", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Comment(), "image 1: one\nimage 2: two"; got != want {
		t.Fatalf("comment %q, want %q", got, want)
	}
	// XML that is not XML: no names, a warning.
	b, _ := os.ReadFile("testdata/tiny-xpress.wim")
	h := parseReshdr(b[72:])
	for i := h.offset + 2; i < h.offset+h.size; i += 2 {
		b[i] = '<'
	}
	var warned string
	r, err = NewReader(bytes.NewReader(b), int64(len(b)), "", &archive.Options{Warn: func(m string) { warned = m }})
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Comment(); c != "" || !strings.Contains(warned, "XML") {
		t.Fatalf("comment %q, warning %q", c, warned)
	}
}

// TestUnits reads the compressed fixtures with memory limits and thread
// counts that make the chunk cache decode one chunk, a few, or whole
// files at a time, ahead or not.
func TestUnits(t *testing.T) {
	for _, name := range []string{"xpress", "lzx", "lzms", "solid", "multi"} {
		for _, limit := range []int64{256 << 10, 512 << 10, 4 << 20, 0} {
			for _, threads := range []int{1, 2, 3} {
				r, err := openFile(t, "testdata/"+name+".wim", &archive.Options{MemLimit: limit, Threads: threads})
				if name == "solid" && limit != 0 && errors.Is(err, archive.ErrLimit) {
					continue // its chunks are of 64 MiB
				}
				if err != nil {
					t.Fatalf("%s, limit %d: %v", name, limit, err)
				}
				if threads == 2 {
					r.cache.liveMin = 1 // every LZMS chunk read as it decodes
				}
				got, err := entrytree.Read(r)
				if err != nil {
					t.Fatalf("%s, limit %d, %d threads: %v", name, limit, threads, err)
				}
				if want := expected(t, "testdata/"+name+".wim"); entrytree.Show(got) != entrytree.Show(want) {
					t.Errorf("%s, limit %d, %d threads: got\n%s\nwant\n%s", name, limit, threads, entrytree.Show(got), entrytree.Show(want))
				}
			}
		}
	}
}

func TestSetUnit(t *testing.T) {
	for _, c := range []struct{ chunk, limit, want int64 }{
		{32 << 10, 1 << 30, 4},
		{32 << 10, 256 << 10, 2},
		{32 << 10, 64 << 10, 1},
		{128 << 10, 1 << 30, 1},
		{4 << 10, 1 << 30, 32},
		{64 << 20, 1 << 30, 1},
	} {
		res := &resource{chunkSize: c.chunk}
		if res.setUnit(c.limit); res.group != c.want {
			t.Errorf("chunks of %d, limit %d: units of %d chunks, want %d", c.chunk, c.limit, res.group, c.want)
		}
	}
}

// readLive reads the WIM in b with every LZMS chunk read as it decodes.
func readLive(b []byte) (map[string]string, error) {
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), "", &archive.Options{Threads: 2})
	if err != nil {
		return nil, err
	}
	r.cache.liveMin = 1
	return entrytree.Read(r)
}

// TestLive reads the LZMS fixtures' chunks as they decode: whole, cut
// short and with bits flipped (an error or the same tree, never a hang),
// and every blob again from the last to the first (each read going back
// in its chunk).
func TestLive(t *testing.T) {
	for _, name := range []string{"testdata/solid.wim", "testdata/lzms.wim", "testdata/tiny-solid.wim"} {
		b, _ := os.ReadFile(name)
		want := entrytree.Show(expected(t, name))
		got, err := readLive(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if entrytree.Show(got) != want {
			t.Fatalf("%s: got\n%s\nwant\n%s", name, entrytree.Show(got), want)
		}
		for n := 0; n < len(b); n += 1 + n/8 {
			if _, err := readLive(b[:n]); err == nil {
				t.Fatalf("%s cut to %d bytes: no error", name, n)
			}
		}
		for i := 0; i < len(b); i += len(b)/300 + 1 {
			c := append([]byte{}, b...)
			c[i] ^= 1 << (i % 8)
			got, err := readLive(c)
			if err == nil && entrytree.Show(got) != want {
				t.Fatalf("%s: flip at %d: no error, other tree", name, i)
			}
			if err != nil && !archive.Categorized(err) {
				t.Fatalf("%s: flip at %d: %v", name, i, err)
			}
		}
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), "", &archive.Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		r.cache.liveMin = 1
		var blobs []*blob
		for _, bl := range r.blobs {
			blobs = append(blobs, bl)
		}
		slices.SortFunc(blobs, func(a, b *blob) int {
			ka, kb := a.key(), b.key()
			return -slices.Compare(ka[:], kb[:])
		})
		for round := range 2 {
			for _, bl := range blobs {
				if _, err := io.Copy(io.Discard, r.open(bl)); err != nil {
					t.Fatalf("%s, round %d, blob at %d: %v", name, round, bl.off, err)
				}
			}
		}
	}
}

// TestLiveBack reads an LZMS chunk with x86 code (one wimlib-imagex
// wrote: 40% of its bytes translated) as it decodes, forwards in pieces
// and then going back: each read gives the bytes Decode does.
func TestLiveBack(t *testing.T) {
	names, _ := filepath.Glob("../lzms/testdata/wimlib2-*.lzms")
	if len(names) != 1 {
		t.Fatalf("chunks %v", names)
	}
	src, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	const size = 100001
	want := make([]byte, size)
	if err := new(lzms.Decoder).Decode(want, src); err != nil {
		t.Fatal(err)
	}
	res := &resource{p: &part{ra: bytes.NewReader(src), size: int64(len(src))}, ctype: compLZMS,
		chunkSize: 1 << 20, usize: size, solid: true, chunks: []int64{0, int64(len(src))}}
	res.setUnit(1 << 30)
	c := &chunkCache{threads: 2, liveMin: 1}
	got := make([]byte, size)
	for _, off := range []int{0, 1000, 5, 60000, 7, 0, size - 1} {
		for at := off; at < size; {
			n, err := c.read(res, 0, int64(at), got[at:min(size, at+777)], 1<<30)
			if err != nil || n == 0 {
				t.Fatalf("read at %d: %d, %v", at, n, err)
			}
			at += n
		}
		if c.st == nil {
			t.Fatal("not read live")
		}
		if !bytes.Equal(got[off:], want[off:]) {
			t.Fatalf("from %d: other bytes", off)
		}
	}
}
