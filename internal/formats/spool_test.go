package formats

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/spool"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// describe opens p (or stdin when p is "-") and describes every entry:
// name, type, mode, link target and the SHA-256 of its data.
func describe(t *testing.T, p string, stdin io.Reader, opt *archive.Options) (string, error) {
	t.Helper()
	a, err := Open(p, opt, OpenOptions{Stdin: stdin})
	if err != nil {
		return "", err
	}
	defer a.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "format %s\n", a.Format)
	for {
		e, err := a.Next()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
		h := sha256.New()
		if _, err := io.Copy(h, a); err != nil {
			return b.String(), err
		}
		fmt.Fprintf(&b, "%s %v %v %q %x\n", e.Name, e.Type, e.Mode, e.Linkname, h.Sum(nil)[:8])
	}
}

// TestPipeSpooled: a format read by random access only gives from a pipe
// (here a reader that is no file, giving its first 40 KiB one byte at a
// time, so that detection must gather ISO's magic at 32 KiB from many
// reads) what it gives from the file; a zip behind a stub too.
func TestPipeSpooled(t *testing.T) {
	for _, p := range []string{
		"../codec/iso9660/testdata/rr-joliet.iso",
		"../codec/iso9660/testdata/zisofs.iso",
		"../codec/iso9660/testdata/boot.iso",
		"../codec/udf/testdata/bridge.iso",
		"../codec/squashfs/testdata/gzip.sqfs",
		"../codec/squashfs/testdata/tiny.sqfs",
		"../codec/zip/testdata/infozip-deflate.zip",
		"../codec/zip/testdata/infozip-zip64.zip",
		"../codec/zip/testdata/go-dd.zip",
		"../codec/zip/testdata/go-prefix.zip",
		"../codec/wim/testdata/lzms.wim",
		"../codec/msi/testdata/t.msi",
		"../codec/cab/testdata/mszip_lzx_qtm.cab",
		"../codec/chm/testdata/7-zip.chm",
	} {
		t.Run(p, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Skip(err)
			}
			want, err := describe(t, p, nil, &archive.Options{})
			if err != nil {
				t.Fatalf("file: %v", err)
			}
			cut := min(len(data), 40<<10)
			pipe := io.MultiReader(iotest.OneByteReader(bytes.NewReader(data[:cut])), bytes.NewReader(data[cut:]))
			got, err := describe(t, "-", pipe, &archive.Options{})
			if err != nil {
				t.Fatalf("pipe: %v", err)
			}
			if got != want {
				t.Errorf("pipe:\n%s\nfile:\n%s", got, want)
			}
		})
	}
}

// TestPipeSpoolLimit: past opt.SpoolLimit the open fails with ErrLimit
// naming the format and the limit.
func TestPipeSpoolLimit(t *testing.T) {
	data, err := os.ReadFile("../codec/squashfs/testdata/tiny.sqfs")
	if err != nil {
		t.Skip(err)
	}
	_, err = Open("-", &archive.Options{SpoolLimit: int64(len(data) - 1)}, OpenOptions{Stdin: bytes.NewReader(data)})
	if !errors.Is(err, archive.ErrLimit) || !errors.Is(err, spool.ErrMaxSize) || !testutil.Names(err, "squashfs from a pipe") {
		t.Fatalf("got %v, want a limit error naming squashfs and --max-size", err)
	}
	a, err := Open("-", &archive.Options{SpoolLimit: int64(len(data))}, OpenOptions{Stdin: bytes.NewReader(data)})
	if err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	a.Close()
}

// TestPipeReadError: a read error while spooling is reported as such (an
// I/O error, not corrupt data).
func TestPipeReadError(t *testing.T) {
	data, err := os.ReadFile("../codec/iso9660/testdata/plain.iso")
	if err != nil {
		t.Skip(err)
	}
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(boom))
	_, err = Open("-", &archive.Options{}, OpenOptions{Stdin: r})
	var ioe *archive.IOError
	if !errors.Is(err, boom) || !errors.As(err, &ioe) {
		t.Fatalf("got %v, want the read error as an IOError", err)
	}
}

// TestStdinRegularFile: standard input that is a regular file is read in
// place from its offset, with its tail (a zip's end record) in sight.
func TestStdinRegularFile(t *testing.T) {
	p := "../codec/zip/testdata/go-prefix.zip"
	want, err := describe(t, p, nil, &archive.Options{})
	if err != nil {
		t.Skip(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A spool limit of one byte proves no spool is made.
	got, err := describe(t, "-", f, &archive.Options{SpoolLimit: 1})
	if err != nil || got != want {
		t.Fatalf("stdin file: %v\n%s\nwant:\n%s", err, got, want)
	}
}

// TestMSIByRootClass: a compound file whose root class is Windows
// Installer's is read as the tree it installs without its .msi name (from
// a pipe, or renamed); --format cfb keeps the raw streams.
func TestMSIByRootClass(t *testing.T) {
	data, err := os.ReadFile("../codec/msi/testdata/t.msi")
	if err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(t.TempDir(), "setup.bin")
	os.WriteFile(renamed, data, 0o644)
	for _, c := range []struct {
		name string
		path string
		oo   OpenOptions
		want archive.Format
	}{
		{"renamed", renamed, OpenOptions{}, archive.MSI},
		{"pipe", "-", OpenOptions{Stdin: io.MultiReader(bytes.NewReader(data))}, archive.MSI},
		{"--format cfb", renamed, OpenOptions{Format: archive.CFB}, archive.CFB},
	} {
		a, err := Open(c.path, &archive.Options{}, c.oo)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if a.Format != c.want {
			t.Errorf("%s: read as %s, want %s", c.name, a.Format, c.want)
		}
		a.Close()
	}
}
