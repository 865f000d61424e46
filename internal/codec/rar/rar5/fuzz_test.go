package rar5

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// fuzzSeeds are small RAR 5 archives: written by the test writer and,
// when the corpus is present, its small rar5 files.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		vols(f, writerOpts{comment: "c"}, testEntry{name: "d", dir: true}, testEntry{name: "a", data: patternData(300, 1)}),
		vols(f, writerOpts{headerPassword: "p"}, testEntry{name: "a", data: patternData(100, 2), password: "p", mac: true}),
	}
	for _, fx := range fixtures(f) {
		if data := fixtureData(f, fx.name); len(data) <= 4<<10 {
			seeds = append(seeds, data)
		}
	}
	// The corpus, when present, adds more (the fixtures above are seeds
	// either way).
	for _, row := range corpusRows(f) {
		if data, err := os.ReadFile(row.Path); err == nil && len(data) <= 4<<10 {
			seeds = append(seeds, data)
		}
	}
	return seeds
}

// corpusRows returns the rar5 rows of the corpus, or none when it is absent.
func corpusRows(tb testing.TB) []testutil.Row {
	if _, err := os.Stat(filepath.Join(testutil.CorpusPath(), "manifest.tsv")); err != nil {
		return nil
	}
	var rows []testutil.Row
	for _, r := range testutil.Manifest(tb) {
		if r.Format == "rar5" {
			rows = append(rows, r)
		}
	}
	return rows
}

// FuzzReader reads arbitrary bytes as a RAR 5 archive: any error is fine, a
// panic, a hang or an unbounded allocation is not.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := &archive.Options{Passwords: []string{"p"}, MemLimit: 64 << 20}
		r, err := openBytes(data, opt, nil)
		if err != nil {
			return
		}
		buf := make([]byte, 4096)
		for i := 0; i < 64; i++ {
			e, err := r.Next()
			if err != nil {
				return
			}
			var n int64
			for n < 1<<20 {
				m, err := r.Read(buf)
				n += int64(m)
				if err != nil {
					break
				}
			}
			// No byte past a file's declared size, error or not.
			if e.Type == archive.TypeFile && e.Size >= 0 && n > e.Size {
				t.Fatalf("%s: %d bytes, more than the %d it declares", e.Name, n, e.Size)
			}
		}
	})
}

// FuzzDecode feeds arbitrary bytes to the decompressor as one entry's
// packed data, non-solid and then solid.
func FuzzDecode(f *testing.F) {
	for _, fx := range fixtures(f) {
		if fx.password == "" {
			if p := firstPacked(fixtureData(f, fx.name)); p != nil {
				f.Add(p, false)
			}
		}
	}
	for _, row := range corpusRows(f) {
		if !row.IsFirstOfUnit() || row.HasFeature("stored") || row.Password != "" {
			continue
		}
		data, err := os.ReadFile(row.Path)
		if err != nil || len(data) > 64<<10 {
			continue
		}
		// The packed data of the archive's first compressed entry.
		if p := firstPacked(data); p != nil {
			f.Add(p, false)
		}
	}
	f.Add([]byte{0xc0 | 7, 0x5a ^ (0xc0 | 7) ^ 1, 1, 0}, true)
	f.Fuzz(func(t *testing.T, data []byte, extra bool) {
		var d decoder
		buf := make([]byte, 4096)
		for pass := 0; pass < 2; pass++ {
			if err := d.Reset(bytes.NewReader(data), 256<<10, -1, pass == 1, extra, 64<<20); err != nil {
				return
			}
			var n int
			for n < 1<<20 {
				m, err := d.Read(buf)
				n += m
				if err != nil {
					break
				}
			}
		}
	})
}

// firstPacked returns the packed bytes of the first compressed file entry
// of a plain RAR 5 archive, or nil.
func firstPacked(arc []byte) []byte {
	r, err := openBytes(arc, &archive.Options{}, nil)
	if err != nil {
		return nil
	}
	rr := r.(*reader)
	for {
		e, err := r.Next()
		if err != nil {
			return nil
		}
		if e.Type == archive.TypeFile && rr.cur.method != 0 && rr.cur.crypt == nil && !rr.partSplit {
			p := make([]byte, rr.cur.dataSize)
			if _, err := io.ReadFull(rr.vol.r, p); err != nil {
				return nil
			}
			rr.partLeft = 0
			return p
		}
	}
}
