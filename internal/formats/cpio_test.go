package formats

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// TestCpioInStream reads the newc archive inside gzip, xz, zstd and bzip2
// in one step, from a file and from a one-byte-at-a-time stdin.
func TestCpioInStream(t *testing.T) {
	list, err := os.ReadFile("testdata/cpio/files.txt")
	if err != nil {
		t.Skip(err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		f := strings.SplitN(line, " ", 3)
		want[f[2]] = f[0] + " " + f[1]
	}
	paths, _ := filepath.Glob("testdata/cpio/t.cpio.*")
	if len(paths) != 4 {
		t.Fatalf("%d fixtures", len(paths))
	}
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		for _, in := range []string{p, "-"} {
			got, a, err := decodeAll(t, in, iotest.OneByteReader(bytes.NewReader(data)), OpenOptions{})
			if err != nil {
				t.Fatalf("%s (%s): %v", p, in, err)
			}
			if _, ok := a.Reader.(*tarInStream); !ok || a.Tar {
				t.Fatalf("%s: read as %T", p, a.Reader)
			}
			// The three names with data once carry it on one (the other
			// two are hard links), as do the two of the empty file.
			if len(got) != len(want)-3 {
				t.Errorf("%s: %d files, want %d", p, len(got), len(want)-3)
			}
			for name, b := range got {
				sum := sha256.Sum256(b)
				if s := fmt.Sprintf("%s %d", hex.EncodeToString(sum[:]), len(b)); want[name] != s {
					t.Errorf("%s: %s: %s, want %s", p, name, s, want[name])
				}
			}
		}
	}
}
