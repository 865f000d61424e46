package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// TempFile writes b to a file called name in a fresh temporary directory
// and returns it open for reading, closed when the test ends.
func TempFile(t testing.TB, name string, b []byte) *os.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
