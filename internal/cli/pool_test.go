package cli

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPoolMemberCheckFails: a tar.gz of two gzip members, 60 files each;
// the second member's CRC is broken. The files the first member's check
// covers are whole, the others are removed and named, and nothing is
// left under a temporary name (the writer pool and the batched commit).
func TestPoolMemberCheckFails(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	split := 0
	for i := range 120 {
		data := strings.Repeat(fmt.Sprint(i), 1+i*37)
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("d/f%03d", i), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write([]byte(data))
		if i == 59 {
			tw.Flush()
			split = buf.Len()
		}
	}
	tw.Close()
	first, second := gz(t, buf.Bytes()[:split]), gz(t, buf.Bytes()[split:])
	second[len(second)-8] ^= 1 // its CRC32
	dir := t.TempDir()
	arch := write(t, dir, "two.tar.gz", append(first, second...))
	out := filepath.Join(dir, "out")
	code, _, stderr := run(t, nil, "x", arch, "-o", out)
	if code != ExitCorrupt {
		t.Errorf("exit %d: %s", code, stderr)
	}
	for i := range 120 {
		name := fmt.Sprintf("d/f%03d", i)
		b, err := os.ReadFile(filepath.Join(out, name))
		switch {
		case i < 60 && (err != nil || string(b) != strings.Repeat(fmt.Sprint(i), 1+i*37)):
			t.Errorf("%s: %v, %d bytes", name, err, len(b))
		case i >= 60 && err == nil:
			t.Errorf("%s left whole", name)
		case i >= 60 && !strings.Contains(stderr, name):
			t.Errorf("%s not named in the errors", name)
		}
	}
	leftovers(t, out)
}
