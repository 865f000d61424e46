package extract

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// openFDs counts the process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(des)
}

// TestDirHandlesBounded: an archive of more directories than the process
// may keep open (here the bound is 8) is extracted whole, held files
// committed into directories whose handles were closed meanwhile, and the
// descriptors in use stay near the bound, not one per directory.
func TestDirHandlesBounded(t *testing.T) {
	old, oldHeld := maxDirHandles, maxHeldFDs
	maxDirHandles = func() int { return 8 }
	maxHeldFDs = func() int64 { return 8 } // held files open unnamed, the rest named
	t.Cleanup(func() { maxDirHandles, maxHeldFDs = old, oldHeld })
	for _, held := range []bool{false, true} {
		t.Run(fmt.Sprintf("held=%v", held), func(t *testing.T) {
			dest := t.TempDir()
			d, err := NewDir(dest, DirOptions{})
			if err != nil {
				t.Fatal(err)
			}
			base := openFDs(t)
			want := map[string]string{}
			var verdicts []archive.Verdict
			peak := 0
			for i := range 300 {
				dn := fmt.Sprintf("d%03d/e%d", i, i%7)
				name := dn + "/f"
				data := strings.Repeat("x", i%50)
				want[fmt.Sprintf("d%03d", i)], want[dn], want[name] = "/", "/", data
				if err := d.Put(dir(dn+"/", 0o755), nil); err != nil {
					t.Fatal(err)
				}
				e := &archive.Entry{Name: name, Type: archive.TypeFile, Pending: held}
				if err := d.Put(e, strings.NewReader(data)); err != nil {
					t.Fatalf("Put %s: %v", name, err)
				}
				verdicts = append(verdicts, archive.Verdict{Entry: e})
				// Each queued write holds its directory's handle until
				// written: how many are queued depends on how fast the
				// writers run (on the load), so the count is taken with
				// the queue empty, where only the bounds are left.
				d.waitWrites()
				peak = max(peak, openFDs(t)-base)
			}
			if held {
				for _, err := range d.SettleAll(verdicts) {
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			// The bounds and the writers' files: far below one per
			// directory (600).
			if peak > 8+8+100 {
				t.Errorf("%d descriptors open at the peak, want about 8", peak)
			}
			sameTree(t, "bounded handles", dest, false, want)
		})
	}
}
