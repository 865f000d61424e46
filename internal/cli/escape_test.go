package cli

import (
	"archive/tar"
	stdzip "archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileNames hold each class of terminal escape an archive can carry,
// with the text they must show as.
var hostileNames = []struct{ name, shown string }{
	{"clear\x1b[2J.txt", `clear\x1b[2J.txt`},
	{"osc8\x1b]8;;https:evil.example\alink\x1b]8;;\a.txt", `osc8\x1b]8;;https:evil.example\alink\x1b]8;;\a.txt`},
	{"bell\a.txt", `bell\a.txt`},
	{"c1\u009b31m.txt", `c1\u009b31m.txt`},
	{"raw\x9b31m.txt", `raw\x9b31m.txt`},
	{"invoice\u202efdp.exe", `invoice\u202efdp.exe`},
	{"forged\n2021-03-04 05:06:07  -rw-r--r--  1  -  stored  evil.txt", `forged\n2021-03-04 05:06:07  -rw-r--r--  1  -  stored  evil.txt`},
}

// assertInert fails when out holds a byte or character that acts on a
// terminal, or has other than lines lines.
func assertInert(t *testing.T, what, out string, lines int) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\a", "\x9b", "\u202e", "\r", "\x7f"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s holds %q raw:\n%s", what, bad, out)
		}
	}
	if n := strings.Count(out, "\n"); n != lines {
		t.Errorf("%s has %d lines, want %d:\n%s", what, n, lines, out)
	}
}

// hostileTar is a tar of the hostile names (files), a symlink whose name
// and target carry escapes and leave the destination, and a FIFO.
func hostileTar(t *testing.T) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, body string) {
		h.Mode, h.ModTime, h.Format, h.Size = 0o644, mtime, tar.FormatPAX, int64(len(body))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	for _, n := range hostileNames {
		add(&tar.Header{Name: n.name, Typeflag: tar.TypeReg}, "x")
	}
	add(&tar.Header{Name: "link\x1b[2J", Typeflag: tar.TypeSymlink, Linkname: "../\x1b]0;pwned\a"}, "")
	add(&tar.Header{Name: "fifo\u202e", Typeflag: tar.TypeFifo}, "")
	tw.Close()
	return buf.Bytes()
}

func TestEscapedOutput(t *testing.T) {
	dir := t.TempDir()
	// The archive's own path carries an escape too: it is in every
	// problem line.
	arch := write(t, dir, "a\x1b[31m.tar", hostileTar(t))
	archShown := `a\x1b[31m.tar`
	entries := len(hostileNames) + 2

	t.Run("l", func(t *testing.T) {
		code, out, errOut := run(t, nil, "l", arch)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		assertInert(t, "l", out, 1+entries+1)
		for _, n := range hostileNames {
			if !strings.Contains(out, " "+n.shown+"\n") {
				t.Errorf("l lacks %q:\n%s", n.shown, out)
			}
		}
		if !strings.Contains(out, `link\x1b[2J -> ../\x1b]0;pwned\a`) || !strings.Contains(out, `prw-r--r--`) {
			t.Errorf("l: link or FIFO:\n%s", out)
		}
	})

	t.Run("x -v", func(t *testing.T) {
		dest := filepath.Join(dir, "out")
		code, _, errOut := run(t, nil, "x", "-v", arch, "-o", dest)
		if code != ExitCorrupt {
			t.Errorf("exit %d, want %d (the symlink is refused)", code, ExitCorrupt)
		}
		// A line per entry, the refused link's problem and the FIFO's
		// warning.
		assertInert(t, "x -v stderr", errOut, entries+2)
		for _, want := range []string{
			archShown + `: link\x1b[2J: insecure path`,
			archShown + `: fifo\u202e: warning: skipped`,
		} {
			if !shows(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
		}
		for _, n := range hostileNames {
			if !shows(errOut, n.shown+"\n") {
				t.Errorf("x -v lacks %q", n.shown)
			}
			// The files themselves keep their exact names.
			if _, err := os.Lstat(filepath.Join(dest, n.name)); err != nil {
				t.Errorf("%q not extracted: %v", n.name, err)
			}
		}
	})

	t.Run("t -v", func(t *testing.T) {
		_, out, errOut := run(t, nil, "t", "-v", arch)
		assertInert(t, "t -v stdout", out, entries+1)
		assertInert(t, "t -v stderr", errOut, 0)
		if !strings.Contains(out, "OK     "+hostileNames[0].shown+"\n") || !strings.Contains(strings.Split(out, "\n")[entries], archShown+": ") {
			t.Errorf("t -v:\n%s", out)
		}
	})

	t.Run("manifest", func(t *testing.T) {
		_, out, _ := run(t, nil, "t", "--manifest", arch)
		assertInert(t, "t --manifest", out, len(hostileNames))
		for _, n := range hostileNames {
			if !strings.Contains(out, "\\2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  "+n.shown+"\n") {
				t.Errorf("manifest lacks %q:\n%s", n.shown, out)
			}
		}
		// What --manifest wrote, --expect reads back.
		sums := write(t, dir, "SUMS", []byte(out))
		if code, _, errOut := run(t, nil, "t", "--expect", sums, arch); code != ExitOK {
			t.Errorf("--expect: exit %d: %s", code, errOut)
		}
	})

	t.Run("json", func(t *testing.T) {
		_, out, _ := run(t, nil, "l", "--json", arch)
		assertInert(t, "l --json", out, entries+1)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e struct{ Name, Link string }
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			got = append(got, e.Name+e.Link)
		}
		for i, n := range hostileNames {
			want := strings.ReplaceAll(n.name, "raw\x9b", "raw\ufffd") // JSON strings are UTF-8
			if got[i] != want {
				t.Errorf("JSON name %q, want %q", got[i], want)
			}
		}
		if got[len(hostileNames)] != "link\x1b[2J../\x1b]0;pwned\a" {
			t.Errorf("JSON link %q", got[len(hostileNames)])
		}
	})

	t.Run("error", func(t *testing.T) {
		// A damaged archive: the problem line names the archive escaped.
		bad := write(t, dir, "bad\u009b2J.tar.gz", []byte("\x1f\x8b\x08\x00garbage\x1b[2J"))
		code, _, errOut := run(t, nil, "t", bad)
		if code == ExitOK {
			t.Fatal("damaged archive passed")
		}
		assertInert(t, "error", errOut, 1)
		if !strings.HasPrefix(errOut, "unpack: ") || !shows(errOut, `bad\u009b2J.tar.gz: `) {
			t.Errorf("stderr: %s", errOut)
		}
		// A missing file named with escapes, from the command line.
		_, _, errOut = run(t, nil, "l", filepath.Join(dir, "gone\x1b]0;x\a"))
		assertInert(t, "missing archive", errOut, 1)
	})
}

// TestEscapedComments lists a zip whose archive comment and entry comment
// carry escapes and newlines: l -v shows them escaped, each archive comment
// line marked, the entry comment on one line.
func TestEscapedComments(t *testing.T) {
	var buf bytes.Buffer
	zw := stdzip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&stdzip.FileHeader{Name: "a.txt", Method: stdzip.Store,
		Comment: "entry\x1b[2J\nsecond line\u202e"})
	w.Write([]byte("x"))
	zw.SetComment("archive\x1b]0;title\a\n2021-03-04 05:06:07  -rw-r--r--  1  -  stored  forged.txt")
	zw.Close()
	arch := write(t, t.TempDir(), "c.zip", buf.Bytes())
	code, out, errOut := run(t, nil, "l", "-v", arch)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// "ARCHIVE: comment:", two comment lines, the header, the entry, its
	// comment and the totals.
	assertInert(t, "l -v", out, 7)
	for _, want := range []string{
		"\n  | archive\\x1b]0;title\\a\n",
		"\n  | 2021-03-04 05:06:07  -rw-r--r--  1  -  stored  forged.txt\n",
		"   comment: entry\\x1b[2J second line\\u202e\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("l -v lacks %q:\n%s", want, out)
		}
	}
}

// shows reports whether the printed output has want in it: here the text
// itself is the feature (what a terminal is given, escaped), not an
// error's category.
func shows(printed, want string) bool { return strings.Contains(printed, want) }
