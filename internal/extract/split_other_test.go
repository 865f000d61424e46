//go:build !linux

package extract

import "testing"

// ownBy: there is no writer beside Put here (see pool_other.go), so a test
// of a directory given to it ends.
func ownBy(t *testing.T, _ *Dir, _ string, writer bool) {
	t.Helper()
	if writer {
		t.Skip("no writer beside Put here")
	}
}

// testSplitOwner is Linux's hook (see pool_linux.go); nothing reads it here.
var testSplitOwner func(dir string) bool
