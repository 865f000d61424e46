package wim

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
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
			for _, threads := range []int{1, 3} {
				r, err := openFile(t, "testdata/"+name+".wim", &archive.Options{MemLimit: limit, Threads: threads})
				if name == "solid" && limit != 0 && errors.Is(err, archive.ErrLimit) {
					continue // its chunks are of 64 MiB
				}
				if err != nil {
					t.Fatalf("%s, limit %d: %v", name, limit, err)
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
		{32 << 10, 1 << 30, 16},
		{32 << 10, 256 << 10, 2},
		{32 << 10, 64 << 10, 1},
		{128 << 10, 1 << 30, 4},
		{64 << 20, 1 << 30, 1},
	} {
		res := &resource{chunkSize: c.chunk}
		if res.setUnit(c.limit); res.group != c.want {
			t.Errorf("chunks of %d, limit %d: units of %d chunks, want %d", c.chunk, c.limit, res.group, c.want)
		}
	}
}
