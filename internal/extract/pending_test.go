package extract

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

// tree lists what dest holds: name → content ("→target" for a symlink,
// "/" for a directory). Temporary files are left out (see temps).
func tree(t *testing.T, dest string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(dest, func(p string, de os.DirEntry, err error) error {
		if err != nil || p == dest || strings.HasPrefix(de.Name(), ".unpack-") {
			return err
		}
		rel, _ := filepath.Rel(dest, p)
		rel = filepath.ToSlash(rel)
		switch {
		case de.Type()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			got[rel] = "→" + l
		case de.IsDir():
			got[rel] = "/"
		default:
			b, _ := os.ReadFile(p)
			got[rel] = string(b)
		}
		return nil
	})
	return got
}

func sameTree(t *testing.T, what, dest string, mid bool, want map[string]string) {
	got := tree(t, dest)
	t.Helper()
	var diff []string
	for k, v := range want {
		if got[k] != v {
			diff = append(diff, k+": got "+strconv.Quote(got[k])+", want "+strconv.Quote(v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			diff = append(diff, k+": unexpected "+strconv.Quote(v))
		}
	}
	if temps(dest) && !mid {
		diff = append(diff, "temporary files left")
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("%s:\n%s", what, strings.Join(diff, "\n"))
	}
}

func pending(name, data string) (*archive.Entry, io.Reader) {
	return &archive.Entry{Name: name, Type: archive.TypeFile, Pending: true}, strings.NewReader(data)
}

func put(t *testing.T, d *Dir, e *archive.Entry, r io.Reader) {
	t.Helper()
	if err := d.Put(e, r); err != nil {
		t.Fatalf("Put %s: %v", e.Name, err)
	}
	d.waitWrites()
}

// waitWrites waits for the pool's writes of the held files, so that a
// test sees them on disk.
func (d *Dir) waitWrites() {
	d.mu.Lock()
	var hs []*hold
	d.held.each(func(_ heldKey, h *hold) { hs = append(hs, h) })
	d.mu.Unlock()
	for _, h := range hs {
		d.wait(h)
	}
}

// temps reports whether dest holds temporary files.
func temps(dest string) bool {
	found := false
	filepath.WalkDir(dest, func(p string, de os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(de.Name(), ".unpack-") {
			found = true
		}
		return nil
	})
	return found
}

var errStream = archive.Corruptf("gzip: CRC mismatch")

func TestDirPendingHeldUntilSettled(t *testing.T) {
	skipStaged(t, "a held file waits under its own name in a stage")
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	e, r := pending("a/f", "data")
	put(t, d, e, r)
	if _, err := os.Lstat(filepath.Join(dest, "a/f")); err == nil {
		t.Fatal("a pending file is visible under its name before its check")
	}
	// Held unnamed (an open descriptor) where the system allows it, else
	// under a temporary name.
	if temps(dest) != (testNamed || runtime.GOOS != "linux") {
		t.Fatalf("temporary file held: %v", temps(dest))
	}
	if err := d.Settle(e, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "settled", dest, false, map[string]string{"a": "/", "a/f": "data"})
}

func TestDirPendingFailed(t *testing.T) {
	for _, keep := range []bool{false, true} {
		dest := t.TempDir()
		d, _ := NewDir(dest, DirOptions{KeepBroken: keep})
		e, r := pending("f", "data")
		put(t, d, e, r)
		l := &archive.Entry{Name: "h", Type: archive.TypeHardlink, Linkname: "f", Pending: true}
		put(t, d, l, nil)
		if err := d.Settle(e, errStream); err != errStream {
			t.Errorf("Settle = %v", err)
		}
		if err := d.Settle(l, nil); !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("Settle of a link whose file failed = %v", err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		if keep {
			want["f.broken"] = "data"
		}
		sameTree(t, "failed", dest, false, want)
	}
}

// TestDirKeepBrokenName: a file whose own data failed is kept as
// NAME.broken, never under its name, where it would look whole.
func TestDirKeepBrokenName(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{KeepBroken: true})
	e := &archive.Entry{Name: "f", Type: archive.TypeFile}
	err := d.Put(e, io.MultiReader(strings.NewReader("part"), iotest.ErrReader(errStream)))
	if err != errStream {
		t.Errorf("Put = %v", err)
	}
	d.Close()
	sameTree(t, "kept", dest, false, map[string]string{"f.broken": "part"})
}

// TestDirPendingLaterWins: of two entries of one name, the later is the
// file, whether the earlier is settled before or after it is put.
func TestDirPendingLaterWins(t *testing.T) {
	for _, laterPending := range []bool{false, true} {
		dest := t.TempDir()
		d, _ := NewDir(dest, DirOptions{})
		e1, r1 := pending("f", "one")
		put(t, d, e1, r1)
		e2, r2 := pending("f", "two")
		e2.Pending = laterPending
		put(t, d, e2, r2)
		if err := d.Settle(e1, nil); err != nil {
			t.Fatal(err)
		}
		if err := d.Settle(e2, nil); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		sameTree(t, "later wins", dest, false, map[string]string{"f": "two"})
	}
	// The later one failing leaves neither: the archive's file is the later.
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	e1, r1 := pending("f", "one")
	put(t, d, e1, r1)
	e2, r2 := pending("f", "two")
	put(t, d, e2, r2)
	d.Settle(e1, nil)
	d.Settle(e2, errStream)
	d.Close()
	sameTree(t, "later failed", dest, false, map[string]string{})
}

// TestDirPendingHardlink: a hard link to a held file is held with it and
// commits only when both verdicts passed; a link put before a later entry
// of the file's name keeps the earlier data.
func TestDirPendingHardlink(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	e, r := pending("f", "one")
	put(t, d, e, r)
	l := &archive.Entry{Name: "sub/h", Type: archive.TypeHardlink, Linkname: "f", Pending: true}
	put(t, d, l, nil)
	l2 := &archive.Entry{Name: "h2", Type: archive.TypeHardlink, Linkname: "sub/h"} // not pending
	put(t, d, l2, nil)
	e2, r2 := pending("f", "two")
	put(t, d, e2, r2)
	if err := d.Settle(e, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"sub": "/", "h2": "one"}
	if testStaged {
		want["f"] = "two" // held under its own name in a stage
	}
	sameTree(t, "file settled", dest, true, want)
	if err := d.Settle(l, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.Settle(e2, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "all settled", dest, false, map[string]string{"sub": "/", "sub/h": "one", "h2": "one", "f": "two"})
	a, _ := os.Stat(filepath.Join(dest, "sub/h"))
	b, _ := os.Stat(filepath.Join(dest, "h2"))
	if !os.SameFile(a, b) {
		t.Error("sub/h and h2 are not one file")
	}
}

func TestDirPendingAbortAndClose(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	e, r := pending("f", "data")
	put(t, d, e, r)
	d.Abort()
	if temps(dest) {
		t.Error("Abort left a held file")
	}
	d.Close()

	dest = t.TempDir()
	d, _ = NewDir(dest, DirOptions{})
	e, r = pending("dir/never", "data")
	put(t, d, e, r)
	err := d.Close()
	var ue *UnsettledError
	if !errors.As(err, &ue) || !slices.Equal(ue.Entries, []string{"dir/never"}) {
		t.Errorf("Close = %v, want the unsettled entry named", err)
	}
	sameTree(t, "unsettled", dest, false, map[string]string{"dir": "/"})
	// Settling an entry that was never held returns its verdict.
	if err := (&Dir{}).Settle(&archive.Entry{}, errStream); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("Settle of an unheld entry = %v", err)
	}
}

// TestDirPendingLinksAndDirs: a Pending symlink waits like a file and is
// checked again when it commits; a Pending directory is made at once, but
// its mode and times wait for its verdict.
func TestDirPendingLinksAndDirs(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	pend := func(e *archive.Entry) *archive.Entry { e.Pending = true; return e }
	ok := pend(symlink("ok", "sub"))
	bad := pend(symlink("bad", "sub"))
	late := pend(symlink("late", "s/..")) // inside now, outside once s → .
	ro := pend(dir("ro", 0o500))
	for _, e := range []*archive.Entry{ok, bad, late, ro, symlink("s", ".")} {
		put(t, d, e, nil)
	}
	if err := d.Put(hardlink("h", "ok"), nil); !errors.Is(err, ErrInsecurePath) {
		t.Errorf("hard link to a held symlink: %v", err)
	}
	sameTree(t, "held", dest, true, map[string]string{"s": "→.", "ro": "/"})
	if err := d.Settle(ok, nil); err != nil {
		t.Error(err)
	}
	if err := d.Settle(bad, errStream); err != errStream {
		t.Error(err)
	}
	if err := d.Settle(late, nil); !errors.Is(err, ErrInsecurePath) {
		t.Errorf("a held link that now resolves outside: %v", err)
	}
	d.Settle(ro, errStream)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "settled", dest, false, map[string]string{"s": "→.", "ro": "/", "ok": "→sub"})
	if fi, _ := os.Stat(filepath.Join(dest, "ro")); fi.Mode().Perm() == 0o500 {
		t.Error("the mode of a directory whose verdict failed was applied")
	}
}

// TestDirPendingByHold: entries named by their Hold are settled by
// verdicts that carry no *Entry (a tar in a one-frame stream): a copy of
// the entry (as the CLI's layout makes) names the same held file, a
// failed verdict removes its file and the hard link to it, and Close
// names what was never settled by the path it was to take.
func TestDirPendingByHold(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	held := func(name, data string) *archive.Entry {
		e, r := pending(name, data)
		e.Hold = archive.NextHold()
		c := *e // the sink gets a copy; the verdict has only the Hold
		put(t, d, &c, r)
		return e
	}
	ok, bad, never := held("a/ok", "ok"), held("bad", "bad"), held("never", "x")
	l := &archive.Entry{Name: "l", Type: archive.TypeHardlink, Linkname: "bad", Pending: true, Hold: archive.NextHold()}
	put(t, d, l, nil)
	errs := d.SettleAll([]archive.Verdict{{Hold: ok.Hold}, {Hold: bad.Hold, Err: errStream}, {Hold: l.Hold}})
	if errs[0] != nil || errs[1] != errStream || errs[2] == nil {
		t.Errorf("SettleAll = %v", errs)
	}
	var ue *UnsettledError
	if err := d.Close(); !errors.As(err, &ue) || !slices.Equal(ue.Entries, []string{never.Name}) {
		t.Errorf("Close = %v, want the unsettled %s", err, never.Name)
	}
	sameTree(t, "settled by hold", dest, false, map[string]string{"a": "/", "a/ok": "ok"})
}
