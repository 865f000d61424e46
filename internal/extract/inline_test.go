package extract

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// TestWriteHeldInline: after WriteHeldInline, held files are written by
// Put itself (no writer pool is started), in a stage under their own
// names and elsewhere unnamed or under temporary names, and are committed,
// superseded or removed at their verdicts as through the pool.
func TestWriteHeldInline(t *testing.T) {
	for _, staged := range []bool{false, true} {
		dest := t.TempDir()
		d, err := NewDir(dest, DirOptions{Staged: staged})
		if err != nil {
			t.Fatal(err)
		}
		d.WriteHeldInline()
		held := func(name, data string) *archive.Entry {
			e, r := pending(name, data)
			e.Hold = archive.NextHold()
			put(t, d, e, r)
			return e
		}
		ok, bad := held("a/ok", "data"), held("a/bad", "broken")
		old, e := held("a/twice", "old"), held("a/twice", "new")
		if d.pool.Load() != nil {
			t.Fatal("the writer pool was started")
		}
		errs := d.SettleAll([]archive.Verdict{{Hold: ok.Hold}, {Hold: bad.Hold, Err: errStream}, {Hold: old.Hold}, {Hold: e.Hold}})
		if errs[0] != nil || errs[1] != errStream || errs[2] != nil || errs[3] != nil {
			t.Fatalf("staged %v: SettleAll = %v", staged, errs)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(dest, "a/bad")); err == nil {
			t.Errorf("staged %v: a file that failed its check is there", staged)
		}
		sameTree(t, "inline", dest, false, map[string]string{"a": "/", "a/ok": "data", "a/twice": "new"})
	}
}
