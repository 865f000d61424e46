package rar5

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"sync"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// readRandom lists r's entries and reads every regular file through
// concurrent Opens.
func readRandom(t *testing.T, r archive.Reader) map[string]string {
	ra, ok := r.(archive.RandomAccess)
	if !ok {
		t.Fatal("no random access")
	}
	entries, err := ra.Entries()
	if err != nil {
		t.Fatal(err)
	}
	sums := make([]string, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		if e.Type != archive.TypeFile {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc, err := ra.Open(i)
			if err != nil {
				t.Errorf("%s: %v", e.Name, err)
				return
			}
			defer rc.Close()
			h := sha256.New()
			if _, err := io.Copy(h, rc); err != nil {
				t.Errorf("%s: %v", e.Name, err)
				return
			}
			sums[i] = hex.EncodeToString(h.Sum(nil))
		}()
	}
	wg.Wait()
	files := map[string]string{}
	for i, e := range entries {
		if e.Type == archive.TypeFile {
			files[e.Name] = sums[i]
		}
	}
	return files
}

func TestRandomAccessWriter(t *testing.T) {
	entries := []testEntry{{name: "d", dir: true}, {name: "a", data: patternData(50<<10, 5), password: "p", mac: true},
		{name: "b", data: patternData(200<<10, 6)}, {name: "c", data: patternData(10, 7)}}
	for _, o := range []writerOpts{{}, {volumeSize: 64 << 10}, {volumeSize: 64 << 10, headerPassword: "p"}} {
		paths := writeVolumes(t, buildArchive(t, o, entries))
		r, f, err := openFile(t, paths[0], &archive.Options{Passwords: []string{"p"}})
		if err != nil {
			t.Fatal(err)
		}
		sameFiles(t, readRandom(t, r), wantFiles(entries))
		// Sequential reading still works on the same reader.
		files, _, err := readAll(r)
		if err != nil {
			t.Fatal(err)
		}
		sameFiles(t, files, wantFiles(entries))
		r.Close()
		f.Close()
	}
}

func TestRandomAccessCorpus(t *testing.T) {
	for _, row := range testutil.Manifest(t) {
		if row.Format != "rar5" || !row.IsFirstOfUnit() || row.Expect != "ok" || row.HasFeature("solid") {
			continue
		}
		if row.HasFeature("blake2") && verify.New(verify.BLAKE2sp) == nil {
			continue
		}
		t.Run(row.Local, func(t *testing.T) {
			opt := &archive.Options{}
			if row.Password != "" {
				opt.Passwords = []string{row.Password}
			}
			r, f, err := openFile(t, row.Path, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			want, _ := testutil.ExpectedFiles(row.Expected)
			got := readRandom(t, r)
			for name, sum := range want {
				if got[name] != sum {
					t.Errorf("%s differs", name)
				}
			}
		})
	}
}
