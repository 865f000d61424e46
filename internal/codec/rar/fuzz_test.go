package rar

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// stub stands before an archive as a self-extractor's would, with a
// signature prefix of no known version in it.
var stub = []byte("MZ stub with a false Rar!\x1a\x07\x05 signature\x00")

// readBounded reads up to 64 entries of r, each up to 1 MiB, as name →
// "SHA256 SIZE" (the name made unique by its place), and fails the test
// when an entry gives more than the size it declares.
func readBounded(t *testing.T, r archive.Reader) (map[string]string, error) {
	got := map[string]string{}
	for i := 0; i < 64; i++ {
		e, err := r.Next()
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		h := sha256.New()
		n, err := io.Copy(h, io.LimitReader(r, 1<<20))
		if e.Size >= 0 && n > e.Size {
			t.Fatalf("%s: %d bytes, more than the %d it declares", e.Name, n, e.Size)
		}
		got[fmt.Sprintf("%d %s", i, e.Name)] = hex.EncodeToString(h.Sum(nil)) + " " + fmt.Sprint(n)
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// FuzzOpen opens arbitrary bytes as a RAR archive three ways: from a
// plain reader (the signature scan), from a *bufio.Reader (the peek at a
// signature that starts the file) and after a self-extractor stub. Any
// error is fine; a panic, a hang, an unbounded allocation or an entry
// longer than it declares is not, and the three must read the same
// entries and fail or not together.
func FuzzOpen(f *testing.F) {
	f.Add([]byte(tiny5))
	f.Add([]byte("Rar!\x1a\x07\x00\x00\x00\x00\x00\x00\x00"))
	// The small RAR 4 and RAR 5 fixtures of the two readers.
	for _, dir := range []string{"rar4/testdata", "rar5/testdata"} {
		names, _ := filepath.Glob(filepath.Join(dir, "*.rar"))
		for _, name := range names {
			if b, err := os.ReadFile(name); err == nil && len(b) <= 4<<10 {
				f.Add(b)
			}
		}
	}
	opt := &archive.Options{MemLimit: 64 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(r io.Reader) (map[string]string, error) {
			ar, err := Open(&archive.Input{R: r, Size: -1, Name: "-"}, opt)
			if err != nil {
				return nil, err
			}
			defer ar.Close()
			return readBounded(t, ar)
		}
		scan, serr := read(bytes.NewReader(data))
		peek, perr := read(bufio.NewReader(bytes.NewReader(data)))
		sfx, xerr := read(io.MultiReader(bytes.NewReader(stub), bytes.NewReader(data)))
		if (serr == nil) != (perr == nil) || (serr == nil) != (xerr == nil) ||
			fmt.Sprint(scan) != fmt.Sprint(peek) || fmt.Sprint(scan) != fmt.Sprint(sfx) {
			t.Fatalf("scan: %v %v\npeek: %v %v\nsfx: %v %v", serr, scan, perr, peek, xerr, sfx)
		}
	})
}
