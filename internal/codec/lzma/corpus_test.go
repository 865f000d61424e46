package lzma

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/testutil/streamcorpus"
)

// TestCorpus runs the .lzma and .tar.lzma files of the shared corpus.
func TestCorpus(t *testing.T) {
	streamcorpus.Rows(t, "lzma", func(t *testing.T, row testutil.Row, data []byte) {
		r, err := NewAloneReader(bytes.NewReader(data), archive.DefaultMemLimit)
		streamcorpus.Check(t, row, r, err)
	})
}

// checkExpect checks err against a manifest expectation.
func checkExpect(t *testing.T, expect string, err error) {
	t.Helper()
	switch expect {
	case "ok", "ok?":
		if err != nil {
			t.Fatalf("want success, got %v", err)
		}
	case "must-fail":
		t.Logf("error: %v", err)
		if !errors.Is(err, archive.ErrCorrupt) {
			t.Fatalf("want a corrupt-data error, got %v", err)
		}
	case "unsupported":
		if !errors.Is(err, archive.ErrUnsupported) {
			t.Fatalf("want an unsupported error, got %v", err)
		}
	default:
		t.Logf("expect %q: got %v", expect, err)
	}
}

// xzLZMA2 returns the dictionary size and the LZMA2 data of the first
// block of a single-filter (LZMA2 only) .xz file, parsing just enough of
// the container for the test.
func xzLZMA2(t *testing.T, data []byte) (int64, []byte) {
	t.Helper()
	if len(data) < 13 || string(data[:6]) != "\xfd7zXZ\x00" {
		t.Fatal("not an xz file")
	}
	b := data[12:]
	size := (int(b[0]) + 1) * 4
	flags := b[1]
	if flags&3 != 0 {
		t.Skip("more than one filter")
	}
	h := b[2:size]
	vli := func() uint64 {
		var v uint64
		for i := 0; ; i++ {
			c := h[0]
			h = h[1:]
			v |= uint64(c&0x7F) << (7 * i)
			if c < 0x80 {
				return v
			}
		}
	}
	if flags&0x40 != 0 {
		vli()
	}
	if flags&0x80 != 0 {
		vli()
	}
	if id := vli(); id != 0x21 {
		t.Fatalf("filter %#x is not LZMA2", id)
	}
	vli()
	dict, err := DictSize2(h[0])
	if err != nil {
		t.Fatal(err)
	}
	return dict, b[size:]
}

// TestCorpusXZLZMA2 decodes the LZMA2 data of the xz test files that
// exercise LZMA2 chunk handling, with Reader2 alone.
func TestCorpusXZLZMA2(t *testing.T) {
	dir := testutil.CorpusDir(t)
	good := regexp.MustCompile(`^good-1-(lzma2-\d|check-\w+|block_header-\d)\.xz$`)
	bad := regexp.MustCompile(`^bad-1-lzma2-[1-8]\.xz$`)
	files, _ := filepath.Glob(filepath.Join(dir, "files/xz/tests/files/*-1-*.xz"))
	n := 0
	for _, path := range files {
		name := filepath.Base(path)
		isGood, isBad := good.MatchString(name), bad.MatchString(name)
		if !isGood && !isBad {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dict, lz := xzLZMA2(t, data)
			src := bufio.NewReader(bytes.NewReader(lz))
			r, err := NewReader2(src, dict)
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			_, err = io.Copy(h, r)
			if isBad {
				checkExpect(t, "must-fail", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, path)
			want, _ := testutil.ExpectedFiles(filepath.Join(dir, "expected", rel+".sha256s"))
			if got := hex.EncodeToString(h.Sum(nil)); got != want["<stream>"] {
				t.Fatalf("sha256 %s, want %s", got, want["<stream>"])
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d xz LZMA2 files found", n)
	}
}
