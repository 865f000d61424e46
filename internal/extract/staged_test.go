package extract

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"

	"github.com/unpack-dev/unpack/internal/testutil"
)

const stagedEnv = "UNPACK_TEST_STAGED"

func init() {
	if os.Getenv(stagedEnv) != "" {
		testStaged = true
	}
}

// TestStagedPath runs the package's tests again with every Dir staged:
// files whose names are free are created under them, the others (files
// already there, a later entry of a name) take the ordinary way, and
// every rule holds either way.
func TestStagedPath(t *testing.T) {
	testutil.StartsProcess(t)
	if testStaged || testNamed || testing.Short() {
		t.Skip("the staged run itself, or the named run, or -short")
	}
	cmd := exec.Command(os.Args[0], "-test.skip", "^(TestNamedPath|TestStagedPath|TestKillLeaves.*)$", "-test.count=1")
	cmd.Env = append(os.Environ(), stagedEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tests with every Dir staged: %v\n%s", err, out)
	}
}

// skipStaged skips a test of what a stage does otherwise (why) in the
// staged run.
func skipStaged(t *testing.T, why string) {
	t.Helper()
	if testStaged {
		t.Skip("staged run: " + why)
	}
}

// stagedDir is a Dir on a new stage (Linux: the fast path under test).
func stagedDir(t *testing.T) (*Dir, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("files are created under temporary names here")
	}
	dest := t.TempDir()
	d, err := NewDir(dest, DirOptions{Staged: true})
	if err != nil {
		t.Fatal(err)
	}
	return d, dest
}

// TestStagedUnderOwnName: in a stage a file is created under its own name,
// with no temporary name, and has its mode and time.
func TestStagedUnderOwnName(t *testing.T) {
	d, dest := stagedDir(t)
	mt := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	e := &archive.Entry{Name: "a/f", Type: archive.TypeFile, Mode: 0o640, ModTime: mt}
	if err := d.Put(e, strings.NewReader("data")); err != nil {
		t.Fatal(err)
	}
	if temps(dest) {
		t.Error("a temporary name in a stage")
	}
	held, r := pending("a/g", "held")
	put(t, d, held, r)
	if _, err := os.Lstat(filepath.Join(dest, "a/g")); err != nil {
		t.Errorf("a held file in a stage is not under its name: %v", err)
	}
	if err := d.Settle(held, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "staged", dest, false, map[string]string{"a": "/", "a/f": "data", "a/g": "held"})
	fi, err := os.Stat(filepath.Join(dest, "a/f"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640&^processUmask() || !fi.ModTime().Equal(mt) {
		t.Errorf("a/f: mode %v, time %v", fi.Mode(), fi.ModTime())
	}
}

// TestStagedFailedLeavesNothing: a file whose data fails, or whose verdict
// fails, or that is never settled, is not left in the stage.
func TestStagedFailedLeavesNothing(t *testing.T) {
	d, dest := stagedDir(t)
	bad := &archive.Entry{Name: "bad", Type: archive.TypeFile}
	if err := d.Put(bad, iotest.DataErrReader(iotest.ErrReader(errStream))); err == nil {
		t.Error("a failing file was put")
	}
	e1, r1 := pending("failed", "x")
	put(t, d, e1, r1)
	e2, r2 := pending("unsettled", "y")
	put(t, d, e2, r2)
	big := &archive.Entry{Name: "big", Type: archive.TypeFile, Pending: true, Size: 2 << 20}
	put(t, d, big, strings.NewReader(strings.Repeat("z", 2<<20))) // not queued: written here
	if err := d.Settle(e1, errStream); !errors.Is(err, errStream) {
		t.Errorf("Settle: %v", err)
	}
	if err := d.Settle(big, errStream); !errors.Is(err, errStream) {
		t.Errorf("Settle big: %v", err)
	}
	var ue *UnsettledError
	if err := d.Close(); !errors.As(err, &ue) || len(ue.Entries) != 1 {
		t.Errorf("Close: %v", err)
	}
	sameTree(t, "failed", dest, false, map[string]string{})
}

// TestStagedLaterWins: a later entry of a name held under it takes the
// name (the earlier moved aside, with its hard link), whichever verdicts.
func TestStagedLaterWins(t *testing.T) {
	for _, failLater := range []bool{false, true} {
		d, dest := stagedDir(t)
		e1, r1 := pending("f", "one")
		put(t, d, e1, r1)
		l := &archive.Entry{Name: "h", Type: archive.TypeHardlink, Linkname: "f", Pending: true}
		put(t, d, l, nil)
		e2, r2 := pending("f", "two")
		put(t, d, e2, r2)
		var later error
		if failLater {
			later = errStream
		}
		for _, v := range []struct {
			e   *archive.Entry
			err error
		}{{e1, nil}, {l, nil}, {e2, later}} {
			if err := d.Settle(v.e, v.err); err != v.err {
				t.Errorf("Settle %s: %v", v.e.Name, err)
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"h": "one", "f": "two"}
		if failLater {
			delete(want, "f")
		}
		sameTree(t, "later wins", dest, false, want)
	}
}

// TestStagedAbort: an interrupt removes the files in flight and held,
// and a file whose data ends after it is not kept.
func TestStagedAbort(t *testing.T) {
	d, dest := stagedDir(t)
	e1, r1 := pending("held", "x")
	put(t, d, e1, r1)
	pr, pw := io.Pipe()
	done := make(chan error)
	go func() {
		done <- d.Put(&archive.Entry{Name: "flight", Type: archive.TypeFile}, pr)
	}()
	pw.Write([]byte("part"))
	d.Abort()
	pw.Close()
	if err := <-done; err == nil {
		t.Error("a file ended after Abort was kept")
	}
	d.Close()
	sameTree(t, "aborted", dest, false, map[string]string{})
}

// TestStagedDirModes: in a stage a directory whose entry's mode is the
// one it was made with gets no chmod, and keeps it; any other gets its own.
func TestStagedDirModes(t *testing.T) {
	dest := t.TempDir()
	d, err := NewDir(dest, DirOptions{Staged: true})
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]os.FileMode{"same": 0o755, "priv": 0o700, "ro": 0o555, "wide": 0o777}
	for name, m := range modes {
		if err := d.Put(dir(name, m), nil); err != nil {
			t.Fatal(err)
		}
		if err := d.Put(file(name+"/f", "x"), strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for name, m := range modes {
		fi, err := os.Stat(filepath.Join(dest, name))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fi.Mode().Perm(), m&^processUmask(); got != want {
			t.Errorf("%s: mode %o, want %o", name, got, want)
		}
	}
}
