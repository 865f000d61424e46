package rar5

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/extract"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// TestWindowsTarget checks how Windows symlink and junction targets are
// given: relative ones with slashes; absolute ones that name an entry read
// before as the relative path to it; other absolute ones as stored, which
// the directory sink refuses.
func TestWindowsTarget(t *testing.T) {
	r := &reader{seen: map[string]verify.Kind{
		"content":          verify.None,
		"content/dir2":     verify.None,
		"content/file.txt": verify.CRC32,
	}}
	tests := []struct {
		name, target, want string
		refused            bool // by extract.CleanLinkTarget
	}{
		{"links/rel", `..\content\file.txt`, "../content/file.txt", false},
		{"links/junction", `\??\C:\Users\User\stuff\content\dir2`, "../content/dir2", false},
		{"links/drive", `C:\stuff\content\file.txt`, "../content/file.txt", false},
		{"links/rooted", `\content\file.txt`, "../content/file.txt", false},
		{"top", `D:\x\content\dir2`, "content/dir2", false},
		{"content/deep/l", `C:\a\content\file.txt`, "../file.txt", false},
		{"links/system", `\??\C:\Windows\System32`, `\??\C:\Windows\System32`, true},
		{"links/unc", `\\server\share\secret`, `\\server\share\secret`, true},
		{"links/fwd", `C:/Windows/win.ini`, "/C:/Windows/win.ini", true},
		{"links/missing", `C:\stuff\content\nothere`, `C:\stuff\content\nothere`, true},
	}
	for _, tc := range tests {
		got := r.windowsTarget(tc.name, tc.target)
		if got != tc.want {
			t.Errorf("%s -> %s: got %q, want %q", tc.name, tc.target, got, tc.want)
		}
		_, err := extract.CleanLinkTarget(tc.name, got)
		if refused := err != nil; refused != tc.refused {
			t.Errorf("%s -> %q: sink refuses: %v (%v)", tc.name, got, refused, err)
		}
	}
}

// TestFileCopyOnDisk extracts rarfile-rar5-dups.rar (eight file-copy
// records of stest1.txt) into a directory: each copy is its own file with
// the source's content, not a hard link (unrar makes copies too); writing
// to one leaves the others unchanged.
func TestFileCopyOnDisk(t *testing.T) {
	path := filepath.Join("testdata", "rarfile-rar5-dups.rar")
	r, f, err := openFile(t, path, &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer r.Close()
	dest := t.TempDir()
	d, err := extract.NewDir(dest, extract.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Put(e, r); err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dest, "stest1.txt"))
	if err != nil || len(want) == 0 {
		t.Fatalf("stest1.txt: %v", err)
	}
	fi1, _ := os.Stat(filepath.Join(dest, "stest1.txt"))
	for _, n := range []string{"stest2.txt", "stest5.txt", "stest9.txt"} {
		p := filepath.Join(dest, n)
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v, content equal %v", n, err, bytes.Equal(got, want))
		}
		fi, _ := os.Stat(p)
		if os.SameFile(fi1, fi) {
			t.Errorf("%s is a hard link to stest1.txt", n)
		}
	}
	if err := os.WriteFile(filepath.Join(dest, "stest2.txt"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "stest1.txt")); !bytes.Equal(got, want) {
		t.Error("writing a copy changed its source")
	}
}

// TestFileCopyCorruptSource damages the source's data: every copy, read
// again from it, fails as the source does (corrupt data).
func TestFileCopyCorruptSource(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "rarfile-rar5-dups.rar"))
	if err != nil {
		t.Fatal(err)
	}
	// Find stest1.txt's data: the bytes the first entry reads.
	r, err := Open(&archive.Input{R: bytes.NewReader(data), RA: bytes.NewReader(data), Size: int64(len(data))}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	off := r.(*random).vol.pos
	r.Close()
	bad := bytes.Clone(data)
	bad[off] ^= 1
	r, err = Open(&archive.Input{R: bytes.NewReader(bad), RA: bytes.NewReader(bad), Size: int64(len(bad))}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fails := 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); errors.Is(err, archive.ErrChecksum) || errors.Is(err, archive.ErrCorrupt) {
			fails++
		} else {
			t.Errorf("%s: %v, want corrupt data", e.Name, err)
		}
	}
	if fails != 9 {
		t.Errorf("%d entries failed, want 9", fails)
	}
}

// TestFileCopyMissingSource reads a file-copy record whose source is not
// in the archive: a corrupt-data error for that entry, nothing else.
func TestFileCopyMissingSource(t *testing.T) {
	rec := vint(nil, fhexRedir)
	rec = vint(rec, redirFileCopy)
	rec = vint(rec, 0)
	rec = vint(rec, uint64(len("nothere")))
	rec = append(rec, "nothere"...)
	extra := append(vint(nil, uint64(len(rec))), rec...)
	arc := []byte(signature)
	arc = append(arc, rawHeader([]byte{headMain, 0, 0})...)
	arc = append(arc, rawHeader(fileBody(0, 0, 0, "copy", extra))...)
	arc = append(arc, rawHeader([]byte{headEnd, 0, 0})...)
	r, err := Open(&archive.Input{R: bytes.NewReader(arc), RA: bytes.NewReader(arc), Size: int64(len(arc))}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != archive.TypeFile || e.Size != 3 {
		t.Fatalf("entry %+v", e)
	}
	if _, err := io.Copy(io.Discard, r); !errors.Is(err, archive.ErrCorrupt) {
		t.Fatalf("read: %v, want corrupt", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after: %v", err)
	}
	// From a stream the same record is a hard link marked Copy, with its
	// record's size: the sink copies the file it extracted of that name,
	// and refuses when there is none.
	r2, err := Open(&archive.Input{R: bytes.NewReader(arc), Size: -1}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if e, err = r2.Next(); err != nil || e.Type != archive.TypeHardlink || e.Linkname != "nothere" || !e.Copy || e.Size != 3 {
		t.Fatalf("stream: %+v, %v", e, err)
	}
}

// TestFileCopySizeExceeded reads file-copy records whose declared size
// differs from their source's 3 stored bytes: a copy declared smaller
// hands out no byte past its size, only the error (in one read or byte by
// byte); one declared larger gives the source's bytes, then the error.
func TestFileCopySizeExceeded(t *testing.T) {
	for _, tc := range []struct {
		size int
		want string
	}{{2, "ab"}, {4, "abc"}, {3, "abc"}} {
		rec := vint(nil, fhexRedir)
		rec = vint(rec, redirFileCopy)
		rec = vint(rec, 0)
		rec = vint(rec, uint64(len("src")))
		rec = append(rec, "src"...)
		extra := append(vint(nil, uint64(len(rec))), rec...)
		copyBody := fileBody(0, 0, 0, "copy", extra)
		// fileBody declares 3 bytes: the vint after the file flags.
		i := bytes.Index(copyBody, []byte{0, 3, 0xa4, 0x03})
		if i < 0 {
			t.Fatalf("no size in % x", copyBody)
		}
		copyBody[i+1] = byte(tc.size)
		arc := []byte(signature)
		arc = append(arc, rawHeader([]byte{headMain, 0, 0})...)
		arc = append(arc, rawHeader(fileBody(0, 3, 0, "src", nil))...)
		arc = append(arc, "abc"...)
		arc = append(arc, rawHeader(copyBody)...)
		arc = append(arc, rawHeader([]byte{headEnd, 0, 0})...)
		for _, chunk := range []int{1 << 20, 1} {
			r, err := Open(&archive.Input{R: bytes.NewReader(arc), RA: bytes.NewReader(arc), Size: int64(len(arc))}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			var e *archive.Entry
			for e == nil || e.Name != "copy" {
				if e, err = r.Next(); err != nil {
					t.Fatal(err)
				}
			}
			if e.Type != archive.TypeFile || e.Size != int64(tc.size) {
				t.Fatalf("entry %+v", e)
			}
			got, err := testutil.ReadInChunks(r, chunk)
			if tc.size == 3 && err != io.EOF || tc.size != 3 && !errors.Is(err, archive.ErrCorrupt) {
				t.Errorf("size %d, chunk %d: error %v", tc.size, chunk, err)
			}
			r.Close()
			if string(got) != tc.want {
				t.Errorf("size %d, chunk %d: handed out %q, want %q", tc.size, chunk, got, tc.want)
			}
		}
	}
}
