package zip

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// fuzzLimit keeps fuzzed archives from declaring big dictionaries.
const fuzzLimit = 1 << 24

// addSeeds adds every single-file fixture as a seed.
func addSeeds(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.zip")
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
}

// drain reads every entry with a cap on the output, returning nothing:
// the target only looks for panics and hangs.
func drain(r archive.Reader) {
	var total int64
	for i := 0; i < 1000; i++ {
		if _, err := r.Next(); err == io.EOF {
			return
		} else if err != nil {
			continue
		}
		n, _ := io.CopyN(io.Discard, r, 1<<22)
		total += n
		if total > 1<<24 {
			return
		}
	}
}

func FuzzZip(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		opt := &archive.Options{Passwords: []string{"secret"}, MemLimit: fuzzLimit}
		r, err := Open(&archive.Input{R: bytes.NewReader(b), RA: bytes.NewReader(b), Size: int64(len(b)), Name: "fuzz"}, opt)
		if err != nil {
			return
		}
		defer r.Close()
		if ra, ok := r.(archive.RandomAccess); ok {
			if entries, err := ra.Entries(); err == nil {
				for i := range entries {
					if rc, err := ra.Open(i); err == nil {
						io.CopyN(io.Discard, rc, 1<<20)
						rc.Close()
					}
				}
			}
		}
		drain(r)
	})
}

func FuzzZipStream(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		opt := &archive.Options{Passwords: []string{"secret"}, MemLimit: fuzzLimit}
		r := NewStreamReader(bytes.NewReader(b), opt)
		defer r.Close()
		// Every Pending entry is settled exactly once, however the
		// stream ends.
		pending := map[*archive.Entry]bool{}
		for {
			e, err := r.Next()
			if err != nil {
				break
			}
			if e.Pending {
				pending[e] = true
			}
			io.Copy(io.Discard, r)
		}
		for _, v := range r.Settled() {
			if !pending[v.Entry] {
				t.Fatalf("%q settled twice or never returned", v.Entry.Name)
			}
			delete(pending, v.Entry)
		}
		if len(pending) > 0 {
			t.Fatalf("%d entries never settled", len(pending))
		}
	})
}
