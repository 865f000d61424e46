package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// An extraction into a new or empty directory goes through a hidden stage
// in it (files created under their own names there) and moves the stage's
// top-level items out at the end; into a directory holding anything, the
// ordinary way. These tests hold the two to the same result.

// describeTree is treeOf with each item's mode and mtime (a link's own).
func describeTree(t *testing.T, root string, skip string) string {
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if rel == skip {
			return nil
		}
		mt := fmt.Sprint(fi.ModTime().UnixNano())
		if time.Since(fi.ModTime()) < time.Hour {
			mt = "now" // no time in the archive
		}
		fmt.Fprintf(&b, "%s %v %s", rel, fi.Mode(), mt)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&b, " -> %s\n", target)
		case fi.IsDir():
			b.WriteString("/\n")
		default:
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q\n", data)
		}
		return nil
	})
	return b.String()
}

// stagedCases are archives (as file name and bytes) extracted both ways.
func stagedCases(t *testing.T) map[string][]byte {
	cases := map[string][]byte{
		"sample.tar.gz":  gz(t, makeTar(t, sample)),
		"sample.tar.zst": zst(t, makeTar(t, sample)),
		"ro.tar": makeTar(t, []tarEntry{
			{name: "ro/", typ: '5', mode: 0o555},
			{name: "ro/f", body: "x", mode: 0o444},
			{name: "top.txt", body: "top", mode: 0o600},
		}),
	}
	dup := []wentry{
		{name: "f", body: "one"}, {name: "f", body: "two"},
		{name: "l", kind: 's', link: "f"}, {name: "l", kind: 's', link: "g"}, {name: "g", body: "g"},
	}
	cases["dup.tar"] = writeTar(t, dup)
	cases["dup.tar.gz"] = gz(t, writeTar(t, dup))
	repointed := []wentry{
		{name: "sub", kind: 'd'},
		{name: "d", kind: 's', link: "sub"},
		{name: "d/.bashrc", body: "evil"},
		{name: "d", kind: 's', link: "."},
		{name: "d/.bashrc", body: "evil 2"},
		{name: "k", kind: 's', link: ".ssh"},
		{name: "k/authorized_keys", body: "evil key"},
		{name: ".ssh", kind: 'd'},
	}
	cases["repointed.tar.gz"] = gz(t, writeTar(t, repointed))
	cases["repointed.zip"] = writeZip(t, repointed)
	for i, v := range hostile {
		entries := append([]wentry{{name: "safe1.txt", body: "safe one"}}, v.entries...)
		entries = append(entries, wentry{name: "safe2.txt", body: "safe two"})
		skips := func(f string) bool { return strings.Contains(" "+v.skip+" ", " "+f+" ") }
		if !skips("tar") {
			cases[fmt.Sprintf("hostile%02d.tar.gz", i)] = gz(t, writeTar(t, entries))
		}
		if !skips("zip") {
			cases[fmt.Sprintf("hostile%02d.zip", i)] = writeZip(t, entries)
		}
	}
	bad := gz(t, makeTar(t, sample))
	bad[len(bad)-8] ^= 1 // the CRC32: every entry fails
	cases["badcrc.tar.gz"] = bad
	return cases
}

// TestStagedSameAsOrdinary: into a new directory, into an empty one and
// from standard input (staged) the tree, modes, times, exit code and
// messages are those of the ordinary way (a directory holding a file),
// nothing is left in the stage, and nothing is made outside.
func TestStagedSameAsOrdinary(t *testing.T) {
	for name, arch := range stagedCases(t) {
		dir := t.TempDir()
		p := write(t, dir, name, arch)
		ordinary := filepath.Join(dir, "ordinary")
		os.Mkdir(ordinary, 0o755)
		write(t, ordinary, "marker", []byte("m"))
		wantCode, _, wantErr := run(t, nil, "x", p, "-o", ordinary)
		want := describeTree(t, ordinary, "marker")
		wantErr = strings.ReplaceAll(wantErr, ordinary, "DEST")
		empty := filepath.Join(dir, "empty")
		os.Mkdir(empty, 0o755)
		for _, how := range []struct {
			what  string
			dest  string
			stdin bool
		}{{"new", filepath.Join(dir, "new/deeper"), false}, {"empty", empty, false}, {"stdin", filepath.Join(dir, "stdin"), true}} {
			var code ExitCode
			var stderr string
			if how.stdin {
				code, _, stderr = run(t, bytes.NewReader(arch), "x", "-", "-o", how.dest)
				stderr = strings.ReplaceAll(stderr, "-: ", name+": ")
			} else {
				code, _, stderr = run(t, nil, "x", p, "-o", how.dest)
			}
			stderr = strings.ReplaceAll(stderr, how.dest, "DEST")
			if p != "" {
				stderr = strings.ReplaceAll(stderr, "<stdin>", p)
			}
			if code != wantCode || !how.stdin && stderr != wantErr {
				t.Errorf("%s, %s: exit %d, %q; ordinary: exit %d, %q", name, how.what, code, stderr, wantCode, wantErr)
			}
			if got := describeTree(t, how.dest, ""); got != want {
				t.Errorf("%s, %s:\n%s\nordinary:\n%s", name, how.what, got, want)
			}
			leftovers(t, how.dest)
		}
		list, _ := os.ReadDir(dir)
		if len(list) != 5 {
			t.Errorf("%s: made beside the destinations: %v", name, list)
		}
	}
}

// TestStagedNameAppears: a name that appears in the destination during
// the extraction is never replaced: the item stays in the stage and the
// error names it; the others are moved out.
func TestStagedNameAppears(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "a.tar.gz", gz(t, makeTar(t, []tarEntry{
		{name: "top/", typ: '5', mode: 0o755},
		{name: "top/a.txt", body: "archive"},
		{name: "file.txt", body: "archive"},
		{name: "other.txt", body: "other"},
	})))
	dest := filepath.Join(dir, "out")
	testBeforeMoveOut = func(_, dest string) {
		os.Mkdir(filepath.Join(dest, "top"), 0o700)
		os.WriteFile(filepath.Join(dest, "file.txt"), []byte("user"), 0o600)
	}
	defer func() { testBeforeMoveOut = nil }()
	code, _, stderr := run(t, nil, "x", arch, "-o", dest)
	if code == ExitOK || !strings.Contains(stderr, "not replaced: file.txt, top appeared in "+dest) {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if got := readFile(t, filepath.Join(dest, "file.txt")); got != "user" {
		t.Errorf("file.txt replaced: %q", got)
	}
	if list, _ := os.ReadDir(filepath.Join(dest, "top")); len(list) != 0 {
		t.Errorf("top: %v", list)
	}
	if got := readFile(t, filepath.Join(dest, "other.txt")); got != "other" {
		t.Errorf("other.txt: %q", got)
	}
	stages, _ := filepath.Glob(filepath.Join(dest, ".unpack-stage-*"))
	if len(stages) != 1 {
		t.Fatalf("stage: %v", stages)
	}
	if got := readFile(t, filepath.Join(stages[0], "top/a.txt")); got != "archive" {
		t.Errorf("left in the stage: %q", got)
	}
}

// TestStagedTwoArchives: the second archive into the same directory finds
// it not empty and takes the ordinary way (its policy applies).
func TestStagedTwoArchives(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.tar", makeTar(t, []tarEntry{{name: "f", body: "a"}}))
	b := write(t, dir, "b.tar", makeTar(t, []tarEntry{{name: "f", body: "b"}, {name: "g", body: "b"}}))
	dest := filepath.Join(dir, "out")
	code, _, stderr := run(t, nil, "x", a, b, "-o", dest)
	if code != ExitError || !strings.Contains(stderr, "f: already exists") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if readFile(t, filepath.Join(dest, "f")) != "a" || readFile(t, filepath.Join(dest, "g")) != "b" {
		t.Error("the second archive replaced the first's file")
	}
	leftovers(t, dest)
}

const stagedKillEnv = "UNPACK_TEST_STAGED_KILL"

// TestStagedKillLeavesStage: an extraction killed with SIGKILL leaves, in
// a new destination, only its hidden stage: nothing of the archive under
// its own name in the destination.
func TestStagedKillLeavesStage(t *testing.T) {
	if dest := os.Getenv(stagedKillEnv); dest != "" {
		// A tar.gz whose first file is whole and whose stream never ends.
		pr, pw := io.Pipe()
		go func() {
			tarData := makeTar(t, []tarEntry{{name: "done.txt", body: "whole"}, {name: "big", body: strings.Repeat("x", 1<<20)}})
			pw.Write(tarData[:3*512])
			fmt.Println("fed")
			select {}
		}()
		Run(&Factory{In: pr, Out: io.Discard, ErrOut: os.Stderr, Getenv: func(string) string { return "" }, Context: context.Background()},
			[]string{"x", "-", "-o", dest})
		return
	}
	testutil.StartsProcess(t)
	dest := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestStagedKillLeavesStage$", "-test.count=1")
	cmd.Env = append(os.Environ(), stagedKillEnv+"="+dest)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(out).ReadString('\n')
	// Wait until the first file is in the stage.
	for i := 0; i < 500; i++ {
		if m, _ := filepath.Glob(filepath.Join(dest, ".unpack-stage-*", "done.txt")); len(m) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	list, _ := os.ReadDir(dest)
	if len(list) != 1 || !strings.HasPrefix(list[0].Name(), ".unpack-stage-") {
		t.Errorf("left after kill -9: %v (want the stage alone)", list)
	}
}

// TestStagedInterruptDuringMove: an interrupt while the stage is moved
// out waits for that move instead of running a second one beside it:
// every item is in place, the stage is gone and nothing is reported.
func TestStagedInterruptDuringMove(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "a.tar.gz", gz(t, makeTar(t, []tarEntry{
		{name: "top/", typ: '5', mode: 0o755},
		{name: "top/a.txt", body: "archive"},
		{name: "file.txt", body: "archive"},
	})))
	dest := filepath.Join(dir, "out")
	var errOut bytes.Buffer
	f := &Factory{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut,
		Getenv: func(string) string { return "" }, Context: context.Background()}
	handled := make(chan struct{})
	var first atomic.Bool
	testBeforeMoveOut = func(string, string) {
		if first.Swap(true) {
			return // the second move, if one runs
		}
		go func() { f.interrupted(); close(handled) }() // as Main's signal handler
		select {
		case <-handled: // it did not wait: a second move ran
		case <-time.After(200 * time.Millisecond):
		}
	}
	defer func() { testBeforeMoveOut = nil }()
	code := Run(f, []string{"x", arch, "-o", dest})
	<-handled
	if code != ExitOK {
		t.Errorf("exit %d, %q", code, errOut.String())
	}
	for _, name := range []string{"top/a.txt", "file.txt"} {
		if got := readFile(t, filepath.Join(dest, name)); got != "archive" {
			t.Errorf("%s: %q", name, got)
		}
	}
	if stages, _ := filepath.Glob(filepath.Join(dest, ".unpack-stage-*")); len(stages) != 0 {
		t.Errorf("stage left: %v", stages)
	}
}
