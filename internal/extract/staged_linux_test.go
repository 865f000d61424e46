package extract

import (
	"errors"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// TestStagedHeldThenDirectory: a held file whose name a later entry makes
// a directory of before the file is written (its writer slow) is the
// archive contradicting itself; the directory, recorded as this
// extraction's, stays, and nothing is left under a temporary name.
func TestStagedHeldThenDirectory(t *testing.T) {
	d, dest := stagedDir(t)
	release := slowWrites(t, "a")
	e, r := pending("a", "file")
	if err := d.Put(e, r); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(&archive.Entry{Name: "a/b", Type: archive.TypeFile}, strings.NewReader("below")); err != nil {
		t.Fatal(err)
	}
	release()
	if err := d.Settle(e, nil); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("Settle: %v, want the archive contradicting itself", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "held, then a directory", dest, false, map[string]string{"a": "/", "a/b": "below"})
}
