package extract

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// Files are committed two ways on Linux: created unnamed (O_TMPFILE) and
// linked, or, Pending or without O_TMPFILE, under a temporary name and
// renamed. The package's tests run the first; TestNamedPath runs them all
// again the second way.

const namedEnv = "UNPACK_TEST_NAMED"

func init() {
	if os.Getenv(namedEnv) != "" {
		testNamed = true
	}
}

func TestNamedPath(t *testing.T) {
	testutil.StartsProcess(t)
	if testNamed || testing.Short() {
		t.Skip("the named path's run itself, or -short")
	}
	cmd := exec.Command(os.Args[0], "-test.skip", "^(TestNamedPath|TestKillLeaves.*)$", "-test.count=1")
	cmd.Env = append(os.Environ(), namedEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tests with temporary names: %v\n%s", err, out)
	}
}

// visible lists what is in dir.
func visible(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range list {
		names = append(names, de.Name())
	}
	return names
}

// TestDirUnnamedWhileWriting: a file being written is not in its directory
// under any name (unnamed), or is there under a temporary one (named).
func TestDirUnnamedWhileWriting(t *testing.T) {
	skipStaged(t, "a file is written under its own name in a stage")
	for _, named := range []bool{false, true} {
		dest := t.TempDir()
		d, _ := NewDir(dest, DirOptions{})
		d.noTmpfile.Store(named || testNamed)
		pr, pw := io.Pipe()
		done := make(chan error)
		go func() {
			done <- d.Put(&archive.Entry{Name: "f", Type: archive.TypeFile, Mode: 0o640, ModTime: mtime}, pr)
		}()
		pw.Write([]byte("first half "))
		mid := visible(t, dest)
		pw.Write([]byte("second half"))
		pw.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		d.Close()
		switch {
		case !named && !testNamed && len(mid) != 0:
			t.Errorf("unnamed: visible while written: %v", mid)
		case named && (len(mid) != 1 || !strings.HasPrefix(mid[0], ".unpack-")):
			t.Errorf("named: while written: %v", mid)
		}
		if got := visible(t, dest); len(got) != 1 || got[0] != "f" {
			t.Errorf("named %v: after: %v", named, got)
		}
		fi, _ := os.Stat(filepath.Join(dest, "f"))
		b, _ := os.ReadFile(filepath.Join(dest, "f"))
		if string(b) != "first half second half" || fi.Mode().Perm() != 0o640&^processUmask() || !fi.ModTime().Equal(mtime) {
			t.Errorf("named %v: %q %v %v", named, b, fi.Mode(), fi.ModTime())
		}
	}
}

// TestDirUnnamedBroken: a file whose data failed goes with its descriptor,
// or is kept as NAME.broken with KeepBroken.
func TestDirUnnamedBroken(t *testing.T) {
	for _, keep := range []bool{false, true} {
		dest := t.TempDir()
		d, _ := NewDir(dest, DirOptions{KeepBroken: keep})
		bad := archive.Corruptf("CRC mismatch")
		err := d.Put(&archive.Entry{Name: "f", Type: archive.TypeFile}, io.MultiReader(strings.NewReader("partial"), iotest.ErrReader(bad)))
		d.Close()
		if !errors.Is(err, bad) {
			t.Fatalf("err = %v", err)
		}
		got := visible(t, dest)
		if !keep && len(got) != 0 || keep && (len(got) != 1 || got[0] != "f.broken") {
			t.Errorf("keep %v: %v", keep, got)
		}
		if keep {
			if b, _ := os.ReadFile(filepath.Join(dest, "f.broken")); string(b) != "partial" {
				t.Errorf("f.broken = %q", b)
			}
		}
	}
}

// TestDirUnnamedExisting: linkat cannot replace: an existing name goes
// through the policy, and nothing temporary is left.
func TestDirUnnamedExisting(t *testing.T) {
	for _, c := range []struct {
		policy Policy
		user   bool // the name is a user's file, not this extraction's
		want   string
		err    error
	}{
		{Refuse, false, "two", nil},
		{Refuse, true, "user", ErrExists},
		{Skip, true, "user", ErrSkipped},
		{Overwrite, true, "two", nil},
	} {
		dest := t.TempDir()
		if c.user {
			os.WriteFile(filepath.Join(dest, "a"), []byte("user"), 0o644)
		}
		d, _ := NewDir(dest, DirOptions{Policy: c.policy})
		var err error
		if !c.user {
			put(t, d, file("a", "one"), strings.NewReader("one"))
		}
		err = d.Put(file("a", "two"), strings.NewReader("two"))
		d.Close()
		if !errors.Is(err, c.err) || c.err == nil && err != nil {
			t.Errorf("%+v: err = %v", c, err)
		}
		if b, _ := os.ReadFile(filepath.Join(dest, "a")); string(b) != c.want {
			t.Errorf("%+v: a = %q", c, b)
		}
		if temps(dest) {
			t.Errorf("%+v: temporary files left: %v", c, visible(t, dest))
		}
	}
}

const killEnv = "UNPACK_TEST_KILL_DEST"

// TestKillLeavesNothing: an extraction killed (SIGKILL) while it writes a
// file leaves nothing of it when the file is unnamed; a temporary file
// when it is named (which is why unnamed is the way wherever it works).
func TestKillLeavesNothing(t *testing.T) {
	if dest := os.Getenv(killEnv); dest != "" {
		killChild(dest)
		return
	}
	testutil.StartsProcess(t)
	for _, named := range []bool{false, true} {
		dest := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run", "^TestKillLeavesNothing$", "-test.count=1")
		cmd.Env = append(os.Environ(), killEnv+"="+dest)
		if named {
			cmd.Env = append(cmd.Env, namedEnv+"=1")
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if line != "writing\n" {
			t.Fatalf("child: %q", line)
		}
		got := visible(t, dest)
		switch {
		case !named && len(got) != 0:
			t.Errorf("unnamed: left after kill -9: %v", got)
		case named && (len(got) != 1 || !strings.HasPrefix(got[0], ".unpack-")):
			t.Errorf("named: left after kill -9: %v (want the temporary file)", got)
		}
	}
}

// killChild writes a file whose data never ends, saying so once its first
// bytes are written.
func killChild(dest string) {
	d, err := NewDir(dest, DirOptions{})
	if err != nil {
		os.Exit(2)
	}
	r := io.MultiReader(bytes.NewReader(make([]byte, 1<<16)), stall{})
	d.Put(&archive.Entry{Name: "big", Type: archive.TypeFile}, r)
	os.Exit(2)
}

// stall says "writing" on its first read, then never returns data.
type stall struct{}

func (stall) Read([]byte) (int, error) {
	os.Stdout.WriteString("writing\n")
	for {
		time.Sleep(time.Hour)
	}
}

const killHeldEnv = "UNPACK_TEST_KILL_HELD_DEST"

// TestKillLeavesNoHeldNames: an extraction killed (SIGKILL) while files
// written by the pool wait for their stream's verdict leaves none of them
// when they are held unnamed; temporary names when they are named.
func TestKillLeavesNoHeldNames(t *testing.T) {
	if dest := os.Getenv(killHeldEnv); dest != "" {
		killHeldChild(dest)
		return
	}
	testutil.StartsProcess(t)
	for _, named := range []bool{false, true} {
		dest := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run", "^TestKillLeavesNoHeldNames$", "-test.count=1")
		cmd.Env = append(os.Environ(), killHeldEnv+"="+dest)
		if named {
			cmd.Env = append(cmd.Env, namedEnv+"=1")
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if line != "held\n" {
			t.Fatalf("child: %q", line)
		}
		n := 0
		filepath.WalkDir(dest, func(p string, de os.DirEntry, err error) error {
			if err == nil && !de.IsDir() {
				n++
			}
			return nil
		})
		switch {
		case !named && n != 0:
			t.Errorf("unnamed: %d files left after kill -9", n)
		case named && n != 20:
			t.Errorf("named: %d files left after kill -9, want the 20 temporary ones", n)
		}
	}
}

// killHeldChild holds 20 files written by the pool, says so, and waits.
func killHeldChild(dest string) {
	d, err := NewDir(dest, DirOptions{})
	if err != nil {
		os.Exit(2)
	}
	for i := range 20 {
		e := &archive.Entry{Name: "sub/f" + strconv.Itoa(i), Type: archive.TypeFile, Pending: true}
		if err := d.Put(e, strings.NewReader("held data")); err != nil {
			os.Exit(2)
		}
	}
	d.waitWrites()
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Hour)
}
