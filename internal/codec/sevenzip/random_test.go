package sevenzip

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"github.com/unpack-dev/unpack/internal/testutil"
	"io"
	"sync"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

var _ archive.RandomAccess = (*Reader)(nil)

func readEntry(ra archive.RandomAccess, i int) (string, error) {
	rc, err := ra.Open(i)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// TestRandomAccess opens every entry concurrently, in reverse order.
func TestRandomAccess(t *testing.T) {
	want := testutil.SHA256Sums(t, "testdata/src.sha256s")
	for _, name := range []string{"lzma2.7z", "nonsolid.7z", "bcj2.7z", "vol.7z.001"} {
		r, err := openFile(t, "testdata/"+name)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := r.Entries()
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := len(entries) - 1; i >= 0; i-- {
			e := entries[i]
			if e.Type == archive.TypeSymlink {
				got, err := readEntry(r, i)
				if err != nil || e.Linkname != "../text.txt" || got != sha256hex("../text.txt") {
					t.Errorf("%s: %s -> %q: %v", name, e.Name, e.Linkname, err)
				}
			}
			if e.Type != archive.TypeFile {
				continue
			}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				got, err := readEntry(r, i)
				if err != nil || got != want[entries[i].Name] {
					t.Errorf("%s: %s: %v, sum differs: %v", name, entries[i].Name, err, got != want[entries[i].Name])
				}
			}(i)
		}
		wg.Wait()
		r.Close()
	}
}

// TestFoldersContinue reads a solid folder entry by entry through Open:
// each entry continues the parked decoding pass.
func TestFoldersContinue(t *testing.T) {
	want := testutil.SHA256Sums(t, "testdata/src.sha256s")
	r, err := openFile(t, "testdata/lzma2.7z")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	entries, _ := r.Entries()
	folders := r.Folders()
	if len(folders) != 1 || len(folders[0]) != 3 {
		t.Fatalf("folders %v", folders)
	}
	var prev *folderStream
	for _, i := range folders[0] {
		rc, err := r.Open(i)
		if err != nil {
			t.Fatal(err)
		}
		fs := rc.(*raEntry).er.fs
		if prev != nil && fs != prev {
			t.Errorf("entry %d: the folder was decoded again", i)
		}
		h := sha256.New()
		if _, err := io.Copy(h, rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		prev = fs
		if e := entries[i]; e.Type == archive.TypeFile && hex.EncodeToString(h.Sum(nil)) != want[e.Name] {
			t.Errorf("%s differs", e.Name)
		}
	}
}

func sha256hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestLinksCaptured: decoding a folder's files through Open captures the
// targets of the symlinks it passes.
func TestLinksCaptured(t *testing.T) {
	r, err := openFile(t, "testdata/lzma2.7z")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	entries, _ := r.Entries()
	for _, g := range r.Folders() {
		for _, i := range g {
			if _, err := readEntry(r, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, e := range entries {
		if e.Type == archive.TypeSymlink && e.Linkname != "../text.txt" {
			t.Errorf("%s -> %q before Open", e.Name, e.Linkname)
		}
	}
}

// TestRandomAccessCorrupt: a damaged entry reports a checksum error.
func TestRandomAccessCorrupt(t *testing.T) {
	data := testutil.Fixture(t, "copy.7z")
	r0, err := openBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Flip a byte inside text.txt's data.
	var idx int
	for i, e := range r0.entries {
		if e.Name == "text.txt" {
			idx = i
		}
	}
	fl := &r0.db.files[r0.fileOf[idx]]
	off := r0.src.base + r0.db.si.folders[fl.folder].packStart + int64(fl.offset) + 100
	data[off] ^= 0x55
	r, err := openBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readEntry(r, idx)
	if !errors.Is(err, verify.ErrChecksum) {
		t.Fatalf("got %v, want a checksum mismatch", err)
	}
}
