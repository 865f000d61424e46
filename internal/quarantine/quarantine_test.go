package quarantine

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Off macOS nothing is read or written, whatever the archive carries.
func TestNothingOffDarwin(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("macOS quarantines")
	}
	dir := t.TempDir()
	arch := filepath.Join(dir, "a.zip")
	if err := os.WriteFile(arch, []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, ok := Of(arch); ok || v != nil {
		t.Errorf("Of = %q, %v off macOS", v, ok)
	}
	f, err := os.Create(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Apply(f, []byte("0083;65a1b2c3;Safari;")); err != nil {
		t.Errorf("Apply off macOS: %v", err)
	}
}

func TestOfMissing(t *testing.T) {
	if _, ok := Of(filepath.Join(t.TempDir(), "none")); ok {
		t.Error("Of of a missing file is true")
	}
	if _, ok := of(filepath.Join(t.TempDir(), "none"), "user.unpack-test"); ok {
		t.Error("of of a missing file is true")
	}
}
