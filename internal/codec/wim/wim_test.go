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
