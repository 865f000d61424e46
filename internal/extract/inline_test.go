package extract

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// TestWriteHeldInline: after WriteHeldInline, the held files of a
// directory given to Put are written by Put itself (no writer pool is
// started), those of one given to the writer by the writer, in a stage
// under their own names and elsewhere unnamed or under temporary names,
// and are committed, superseded or removed at their verdicts alike.
func TestWriteHeldInline(t *testing.T) {
	// The writer's last: there is none off Linux (ownBy ends the test).
	for _, c := range []struct{ staged, writer bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		staged := c.staged
		dest := t.TempDir()
		d, err := NewDir(dest, DirOptions{Staged: staged})
		if err != nil {
			t.Fatal(err)
		}
		d.WriteHeldInline()
		if err := d.Put(&archive.Entry{Name: "a/", Type: archive.TypeDir}, nil); err != nil {
			t.Fatal(err)
		}
		ownBy(t, d, "a", c.writer)
		held := func(name, data string) *archive.Entry {
			e, r := pending(name, data)
			e.Hold = archive.NextHold()
			put(t, d, e, r)
			return e
		}
		ok, bad := held("a/ok", "data"), held("a/bad", "broken")
		old, e := held("a/twice", "old"), held("a/twice", "new")
		if started := d.pool.Load() != nil; started != c.writer {
			t.Fatalf("the writer pool started: %v, want %v", started, c.writer)
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
