package zip

import (
	stdzip "archive/zip"
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

// FuzzZip opens arbitrary bytes as a zip file and reads every entry at
// random and in order: no panic, no hang, no file longer than it
// declares without an error, and the bytes archive/zip reads where both
// read an entry.
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
				// The standard library's reader, where it reads the same
				// number of entries, gives the same bytes for every entry
				// that both read to the end without an error (both check
				// the CRC-32).
				std, serr := stdzip.NewReader(bytes.NewReader(b), int64(len(b)))
				same := serr == nil && len(std.File) == len(entries)
				for i, e := range entries {
					rc, err := ra.Open(i)
					if err != nil {
						continue
					}
					got, err := io.ReadAll(io.LimitReader(rc, 1<<20))
					rc.Close()
					// No byte past a file's declared size is handed out
					// (the read that finds them gives the error alone).
					if e.Type == archive.TypeFile && e.Size >= 0 && int64(len(got)) > e.Size {
						t.Fatalf("%s: %d bytes, more than the %d it declares", e.Name, len(got), e.Size)
					}
					if err != nil || !same || len(got) == 1<<20 {
						continue
					}
					if want, ok := readStd(std.File[i]); ok && !bytes.Equal(got, want) {
						t.Fatalf("entry %d %q: %d bytes, archive/zip reads %d others", i, e.Name, len(got), len(want))
					}
				}
			}
		}
		drain(r)
	})
}

// readStd reads f with archive/zip, up to 1 MiB: ok when it reads to
// the end without an error.
func readStd(f *stdzip.File) ([]byte, bool) {
	rc, err := f.Open()
	if err != nil {
		return nil, false
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 1<<20))
	if err != nil || len(b) == 1<<20 {
		return nil, false
	}
	// A clean end: the next read reports io.EOF after the CRC check.
	if n, err := rc.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		return nil, false
	}
	return b, true
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
