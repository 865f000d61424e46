//go:build unix

package cli

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestRARCopyFromPipe: RAR 5 file-copy records are independent files, from
// a file (the source's data read again from the archive) and from a pipe
// (the file this extraction wrote copied by the sink): the same tree, no
// hard links, the same exit code.
func TestRARCopyFromPipe(t *testing.T) {
	arch := writeRAR5([]wentry{
		{name: "a.txt", body: "original data\n"},
		{name: "d", kind: 'd'},
		{name: "d/b.txt", kind: 'c', link: "a.txt"},
		{name: "c.txt", kind: 'c', link: "a.txt"},
	})
	dir := t.TempDir()
	p := write(t, dir, "a.rar", arch)
	var trees [2]string
	for i, src := range []string{p, "-"} {
		dest := filepath.Join(dir, []string{"file", "pipe"}[i])
		var code ExitCode
		var stderr string
		if src == "-" {
			code, _, stderr = runPiped(t, arch, "x", "-", "-o", dest)
		} else {
			code, _, stderr = run(t, nil, "x", src, "-o", dest)
		}
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", src, code, stderr)
		}
		trees[i] = modeTree(t, dest)
		a, _ := os.Stat(filepath.Join(dest, "a.txt"))
		for _, n := range []string{"d/b.txt", "c.txt"} {
			fi, err := os.Stat(filepath.Join(dest, n))
			if err != nil || os.SameFile(a, fi) {
				t.Errorf("%s: %s is a hard link to a.txt (or missing: %v)", src, n, err)
			}
		}
	}
	if trees[0] != trees[1] {
		t.Errorf("file:\n%s\npipe:\n%s", trees[0], trees[1])
	}
	if !strings.Contains(trees[1], `c.txt -rw-r--r-- "original data\n"`) {
		t.Errorf("pipe tree:\n%s", trees[1])
	}
	// t and l agree: a copy's bytes are its source's, listed as a file.
	for _, cmd := range [][]string{{"t", "--manifest"}, {"l"}} {
		fc, fout, _ := run(t, nil, append(cmd, p)...)
		pc, pout, _ := runPiped(t, arch, append(cmd, "-")...)
		if fc != pc || strings.ReplaceAll(fout, p, "-") != pout {
			t.Errorf("%v: file exit %d\n%s\npipe exit %d\n%s", cmd, fc, fout, pc, pout)
		}
	}
}

// TestRARCopyRepointed: the archive re-points the source's name between
// the original and the copy (a symlink a -> outside, or a -> a user's
// file). From a file or a pipe the copy holds the original bytes or is not
// made; nothing outside the destination, nor a user's file, is read.
func TestRARCopyRepointed(t *testing.T) {
	for _, target := range []string{"../outside/canary", "/etc/passwd", ".bashrc"} {
		arch := writeRAR5([]wentry{
			{name: "a", body: "original"},
			{name: "a", kind: 's', link: target},
			{name: "b", kind: 'c', link: "a"},
		})
		for _, stdin := range []bool{false, true} {
			for _, flags := range [][]string{nil, {"--allow-outside-links"}} {
				t.Run(target+map[bool]string{false: " file", true: " pipe"}[stdin]+strings.Join(flags, ""), func(t *testing.T) {
					u := newUserTree(t)
					var code ExitCode
					if stdin {
						code, _, _ = runPiped(t, arch, append(append([]string{"x"}, flags...), "-", "-o", u.dest)...)
					} else {
						code, _ = u.extract(t, "a.rar", arch, false, flags...)
					}
					if flags == nil {
						u.check(t, false)
					}
					if b, err := os.ReadFile(filepath.Join(u.outside, "canary")); err != nil || string(b) != secret {
						t.Errorf("canary: %q, %v", b, err)
					}
					got, err := os.ReadFile(filepath.Join(u.dest, "b"))
					if err == nil && string(got) != "original" {
						t.Errorf("b holds %q (exit %d)", got, code)
					}
				})
			}
		}
	}
}

// TestRARCopyLimits: a copy's bytes count against --max-size from a pipe
// as from a file, though from a pipe they are copied on disk and never
// pass through the decoder: many copies of one file are no way around it.
func TestRARCopyLimits(t *testing.T) {
	ents := []wentry{{name: "big", body: strings.Repeat("x", 100<<10)}}
	for i := range 20 {
		ents = append(ents, wentry{name: "copy" + string(rune('a'+i)), kind: 'c', link: "big"})
	}
	arch := writeRAR5(ents)
	dir := t.TempDir()
	p := write(t, dir, "a.rar", arch)
	fc, _, ferr := run(t, nil, "x", "--max-size", "1MiB", p, "-o", filepath.Join(dir, "file"))
	pc, _, perr := runPiped(t, arch, "x", "--max-size", "1MiB", "-", "-o", filepath.Join(dir, "pipe"))
	if fc != ExitUnsupported || pc != ExitUnsupported || !strings.Contains(perr, "--max-size") {
		t.Errorf("file: exit %d %s\npipe: exit %d %s", fc, ferr, pc, perr)
	}
}

// TestRARCopyToStdoutAndTar: -c and --to-tar give a copy its source's
// bytes from a pipe as from a file (the pipe is kept in a spool so that
// the source can be decoded again), even when the archive re-points the
// source's name to a link between the original and the copy; --json
// reports the copy as a file.
func TestRARCopyToStdoutAndTar(t *testing.T) {
	arch := writeRAR5([]wentry{
		{name: "a", body: "original\n"},
		{name: "a", kind: 's', link: "elsewhere"},
		{name: "d", kind: 'd'},
		{name: "d/b", kind: 'c', link: "a"},
		{name: "c", kind: 'c', link: "a"},
	})
	dir := t.TempDir()
	p := write(t, dir, "a.rar", arch)
	for _, mode := range []string{"-c", "--to-tar"} {
		fc, fout, ferr := run(t, nil, "x", mode, p)
		pc, pout, perr := runPiped(t, arch, "x", mode, "-")
		if fc != ExitOK || pc != ExitOK {
			t.Fatalf("%s: file exit %d %s; pipe exit %d %s", mode, fc, ferr, pc, perr)
		}
		if fout != pout {
			t.Errorf("%s: file and pipe differ:\n%q\n%q", mode, fout, pout)
		}
		if mode == "-c" {
			if pout != strings.Repeat("original\n", 3) {
				t.Errorf("-c from a pipe: %q", pout)
			}
			continue
		}
		tr := tar.NewReader(strings.NewReader(pout))
		files := map[string]string{}
		for {
			h, err := tr.Next()
			if err != nil {
				break
			}
			if h.Typeflag == tar.TypeLink {
				t.Errorf("--to-tar from a pipe: %s is a hard link to %s", h.Name, h.Linkname)
			}
			if h.Typeflag == tar.TypeReg {
				b, _ := io.ReadAll(tr)
				files[h.Name] = string(b)
			}
		}
		for _, n := range []string{"d/b", "c"} {
			if files[n] != "original\n" {
				t.Errorf("--to-tar from a pipe: %s holds %q", n, files[n])
			}
		}
	}
	for _, cmd := range []string{"t", "l"} {
		fc, fout, _ := run(t, nil, cmd, "--json", p)
		pc, pout, perr := runPiped(t, arch, cmd, "--json", "-")
		if pc != ExitOK || strings.Contains(pout, `"hardlink"`) || !strings.Contains(pout, `"name":"c","type":"file"`) {
			t.Errorf("%s --json from a pipe: exit %d %s\n%s", cmd, pc, perr, pout)
		}
		// The entries agree; from a pipe, t does not decode a copy again
		// (its source's bytes were checked), so the summary's byte count
		// is the file's less the copies'.
		entries := func(s string) string { return s[:strings.Index(s, `{"summary"`)] }
		if fc != pc || entries(strings.ReplaceAll(fout, p, "-")) != entries(pout) {
			t.Errorf("%s --json: file exit %d\n%s\npipe exit %d\n%s", cmd, fc, fout, pc, pout)
		}
	}
}

// TestRARCopySpoolLimit: the spool that keeps a pipe for -c is bounded by
// --max-size like any other temporary copy: an archive past it stops with
// exit 5 naming it, though the output selected stays far below.
func TestRARCopySpoolLimit(t *testing.T) {
	arch := writeRAR5([]wentry{
		{name: "small", body: "s"},
		{name: "big", body: strings.Repeat("y", 300<<10)},
		{name: "copy", kind: 'c', link: "small"},
	})
	code, out, stderr := runPiped(t, arch, "x", "-c", "--max-size", "200KiB", "--include", "small", "--include", "copy", "-")
	if code != ExitUnsupported || !strings.Contains(stderr, "spooling") || !strings.Contains(stderr, "--max-size") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	code, out, stderr = runPiped(t, arch, "x", "-c", "--max-size", "400KiB", "--include", "small", "--include", "copy", "-")
	if code != ExitOK || out != "ss" {
		t.Errorf("exit %d: %q %s", code, out, stderr)
	}
}

// TestRARCopyCorpusToStdout: rar5-dups.rar (rarfile's test suite, written
// by RAR: eight copies of a compressed file) gives the same bytes with -c
// and --to-tar from a pipe as from the file: nine times the file's data.
func TestRARCopyCorpusToStdout(t *testing.T) {
	p := filepath.Join(testutil.CorpusDir(t), "files/rarfile/test/files/rar5-dups.rar")
	arch, err := os.ReadFile(p)
	if err != nil {
		t.Skip(err)
	}
	for _, mode := range []string{"-c", "--to-tar"} {
		fc, fout, ferr := run(t, nil, "x", mode, p)
		pc, pout, perr := runPiped(t, arch, "x", mode, "-")
		if fc != ExitOK || pc != ExitOK || fout != pout {
			t.Errorf("%s: file exit %d %s (%d bytes); pipe exit %d %s (%d bytes)", mode, fc, ferr, len(fout), pc, perr, len(pout))
		}
		if mode == "-c" && len(pout) != 9*2048 {
			t.Errorf("-c from a pipe: %d bytes, want %d", len(pout), 9*2048)
		}
	}
}
