package rarshared

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

func TestGetBuf(t *testing.T) {
	for _, n := range []int{1, 100, 4 << 10, 5000, 64 << 10, 1 << 26, 3 << 20} {
		b := GetBuf(n)
		if len(b) != n {
			t.Fatalf("GetBuf(%d): length %d", n, len(b))
		}
		PutBuf(b)
	}
	PutBuf(nil) // no pool: nothing happens
	// A pooled size comes back with its length set, whatever it was put
	// back with.
	b := GetBuf(8 << 10)
	PutBuf(b[:10])
	if c := GetBuf(8 << 10); len(c) != 8<<10 {
		t.Fatalf("reused buffer: length %d", len(c))
	}
}

func TestRoundPow2(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 2, 3: 4, 4096: 4096, 4097: 8192, 1<<20 + 1: 2 << 20} {
		if got := RoundPow2(n); got != want {
			t.Errorf("RoundPow2(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestCopyRing copies positions between rings of different sizes, across
// both wrap points.
func TestCopyRing(t *testing.T) {
	src := make([]byte, 16)
	for p := uint64(20); p < 36; p++ {
		src[p%16] = byte(p)
	}
	dst := make([]byte, 32)
	CopyRing(dst, src, 20, 36)
	for p := uint64(20); p < 36; p++ {
		if dst[p%32] != byte(p) {
			t.Fatalf("position %d: %d", p, dst[p%32])
		}
	}
	small := make([]byte, 8)
	CopyRing(small, dst, 30, 36)
	for p := uint64(30); p < 36; p++ {
		if small[p%8] != byte(p) {
			t.Fatalf("to a smaller ring, position %d: %d", p, small[p%8])
		}
	}
}

func TestOpenVolume(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.part2.rar")
	if err := os.WriteFile(p, []byte("v"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := &archive.Options{}
	f, err := OpenVolume(opt, p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = OpenVolume(opt, filepath.Join(dir, "x.part3.rar"))
	if !errors.Is(err, archive.ErrMissingVolume) {
		t.Fatalf("missing volume: %v", err)
	}
	// Any other failure is passed on as it is, not taken for a missing
	// volume.
	denied := &archive.Options{OpenVolume: func(string) (*os.File, error) { return nil, os.ErrPermission }}
	if _, err := OpenVolume(denied, p); !errors.Is(err, os.ErrPermission) || errors.Is(err, archive.ErrMissingVolume) {
		t.Fatalf("permission denied: %v", err)
	}
}
