//go:build darwin || linux

package quarantine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// testAttr stands in for Name where the system keeps com.* names for
// itself (Linux allows user.* names only).
const testAttr = "user.unpack-test"

// setOrSkip sets attr on path, skipping the test where the file system
// holds no extended attributes.
func setOrSkip(t *testing.T, path, attr string, value []byte) {
	t.Helper()
	if err := unix.Setxattr(path, attr, value, 0); err != nil {
		if errors.Is(err, errors.ErrUnsupported) {
			t.Skipf("no extended attributes here: %v", err)
		}
		t.Fatal(err)
	}
}

func attrOf(t *testing.T, path, attr string) []byte {
	t.Helper()
	buf := make([]byte, maxValue)
	n, err := unix.Getxattr(path, attr, buf)
	if err != nil {
		t.Fatalf("getxattr %s %s: %v", path, attr, err)
	}
	return buf[:n]
}

// A value read from the archive is set, byte for byte, on an extracted
// file and on an extracted directory; values past the first buffer are
// read whole, values past maxValue not at all.
func TestOfApply(t *testing.T) {
	attr := testAttr
	if runtime.GOOS == "darwin" {
		attr = Name
	}
	dir := t.TempDir()
	arch := filepath.Join(dir, "a.zip")
	if err := os.WriteFile(arch, []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := of(arch, attr); ok {
		t.Fatal("of is true before the attribute is set")
	}
	for _, value := range [][]byte{
		[]byte("0083;65a1b2c3;Safari;8C3E0E4B-6A43-4B5C-9D59-2D9A0E1D3E11"),
		bytes.Repeat([]byte("q"), 1000),
	} {
		setOrSkip(t, arch, attr, value)
		got, ok := of(arch, attr)
		if !ok || !bytes.Equal(got, value) {
			t.Fatalf("of = %.40q, %v; want %.40q", got, ok, value)
		}
		file := filepath.Join(dir, "file")
		sub := filepath.Join(dir, "sub")
		os.Remove(file)
		os.Remove(sub)
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{file, sub} {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			err = apply(f, attr, got)
			f.Close()
			if err != nil {
				t.Fatalf("apply %s: %v", p, err)
			}
			if v := attrOf(t, p, attr); !bytes.Equal(v, value) {
				t.Errorf("%s has %.40q, want %.40q", p, v, value)
			}
		}
	}
	if err := unix.Setxattr(arch, attr, bytes.Repeat([]byte("q"), maxValue+1), 0); err == nil {
		if v, ok := of(arch, attr); ok {
			t.Errorf("of read a %d-byte value", len(v))
		}
	}
}

func TestApplyError(t *testing.T) {
	f, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	err = apply(f, testAttr, []byte("x"))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "setxattr "+testAttr || pe.Path != f.Name() {
		t.Errorf("apply on a closed file: %v", err)
	}
}
