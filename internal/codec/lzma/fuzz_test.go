package lzma

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	ulzma "github.com/ulikunitz/xz/lzma"

	"github.com/unpack-dev/unpack/internal/archive"
)

const fuzzMaxOut = 8 << 20

func addSeeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// readCapped reads r to the end, or to fuzzMaxOut bytes (capped reports
// whether it stopped there).
func readCapped(r io.Reader) (out []byte, capped bool, err error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, fuzzMaxOut))
	return buf.Bytes(), n == fuzzMaxOut, err
}

// checkCategory fails when a decoder error is of no archive category.
func checkCategory(t *testing.T, err error) {
	if err != nil && !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("error of no category: %v", err)
	}
}

// FuzzLZMA decodes .lzma files and, when that succeeds, compares the
// output with ulikunitz/xz/lzma's.
func FuzzLZMA(f *testing.F) {
	addSeeds(f, "small-*.lzma")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewAloneReader(bytes.NewReader(data), 16<<20)
		if err != nil {
			checkCategory(t, err)
			return
		}
		got, capped, err := readCapped(r)
		checkCategory(t, err)
		if err != nil || capped {
			return
		}
		or, err := ulzma.NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		want, _, err := readCapped(or)
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("output differs from ulikunitz/xz: %d vs %d bytes", len(got), len(want))
		}
	})
}

// FuzzLZMA2 decodes raw LZMA2 streams with a 64 KiB dictionary and
// compares successful output with ulikunitz/xz/lzma's, and with DecodeAll's
// (which must agree with Read, or report ErrNotFlat). Inputs of odd length
// are decoded with every short match queued (see copyQueued).
func FuzzLZMA2(f *testing.F) {
	addSeeds(f, "small-*.lzma2")
	f.Fuzz(func(t *testing.T, data []byte) {
		// Inputs of odd length decode with every short match queued.
		defer func(d uint32) { queueDist = d }(queueDist)
		if len(data)%2 == 1 {
			queueDist = 0
		}
		r, err := NewReader2(bytes.NewReader(data), 64<<10)
		if err != nil {
			t.Fatal(err)
		}
		got, capped, err := readCapped(r)
		checkCategory(t, err)
		if err != nil || capped {
			flat, ferr := readAllFlat(data, 1<<20, 64<<10)
			if ferr == nil && err != nil && len(flat) < 1<<20 {
				t.Fatalf("Read failed (%v), DecodeAll did not", err)
			}
			if !errors.Is(ferr, ErrNotFlat) {
				checkCategory(t, ferr)
			}
			return
		}
		for _, room := range []int{len(got), len(got) + 100} {
			flat, ferr := readAllFlat(data, room, 64<<10)
			if !errors.Is(ferr, ErrNotFlat) && (ferr != nil || !bytes.Equal(flat, got)) {
				t.Fatalf("DecodeAll into %d: %d bytes, %v; Read gave %d", room, len(flat), ferr, len(got))
			}
		}
		or, err := ulzma.Reader2Config{DictCap: 64 << 10}.NewReader2(bytes.NewReader(data))
		if err != nil {
			return
		}
		want, _, err := readCapped(or)
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("output differs from ulikunitz/xz: %d vs %d bytes", len(got), len(want))
		}
	})
}
