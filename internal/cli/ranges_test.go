package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runOut runs unpack with standard output w.
func runOut(t *testing.T, w io.Writer, args ...string) (ExitCode, string) {
	t.Helper()
	var errOut bytes.Buffer
	f := &Factory{In: strings.NewReader(""), Out: w, ErrOut: &errOut, Getenv: func(string) string { return "" },
		Context: context.Background()}
	return Run(f, args), errOut.String()
}

const rangeImage = "../codec/iso9660/testdata/rr-joliet.iso"

// TestStdoutRanges: `x -c` of an image gives the same bytes whatever
// standard output is: a buffer (copied), a file or a pipe (the kernel
// copies the stored ranges), a file opened O_APPEND (the kernel refuses,
// the sink copies).
func TestStdoutRanges(t *testing.T) {
	var want bytes.Buffer
	if code, stderr := runOut(t, &want, "x", "-c", rangeImage); code != ExitOK || want.Len() == 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	outputs := map[string]func() (*os.File, func() []byte){
		"file": func() (*os.File, func() []byte) {
			f, err := os.Create(filepath.Join(dir, "file"))
			if err != nil {
				t.Fatal(err)
			}
			return f, func() []byte { b, _ := os.ReadFile(f.Name()); return b }
		},
		"O_APPEND file": func() (*os.File, func() []byte) {
			f, err := os.OpenFile(filepath.Join(dir, "append"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			return f, func() []byte { b, _ := os.ReadFile(f.Name()); return b }
		},
		"pipe": func() (*os.File, func() []byte) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan []byte)
			go func() { b, _ := io.ReadAll(pr); pr.Close(); done <- b }()
			return pw, func() []byte { return <-done }
		},
	}
	for name, open := range outputs {
		w, got := open()
		code, stderr := runOut(t, w, "x", "-c", rangeImage)
		w.Close()
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		if b := got(); !bytes.Equal(b, want.Bytes()) {
			t.Errorf("%s: %d bytes, want %d", name, len(b), want.Len())
		}
	}
}

// TestRangesCutShort: an image cut inside a file fails that file, both
// verified (the kernel reads into /dev/null) and written to a file.
func TestRangesCutShort(t *testing.T) {
	b, err := os.ReadFile(rangeImage)
	if err != nil {
		t.Fatal(err)
	}
	// random.bin (the last data in the image) loses its second half.
	cut := filepath.Join(t.TempDir(), "cut.iso")
	if err := os.WriteFile(cut, b[:len(b)-40<<10], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"t", cut}, {"t", "--threads", "1", cut}, {"x", "-c", cut}} {
		out, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		code, stderr := runOut(t, out, args...)
		out.Close()
		if code != ExitCorrupt || !strings.Contains(stderr, "random.bin") || !strings.Contains(stderr, "cut short") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}
