package formats

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// TestRPM reads every rpmbuild fixture (each payload compressor) through
// Open: the cpio entries of the payload; and a byte flipped in the
// payload fails with its digest or stream check, naming no entry as good
// after it.
func TestRPM(t *testing.T) {
	names, _ := filepath.Glob("../codec/rpm/testdata/*.rpm")
	if len(names) < 6 {
		t.Fatalf("%d fixtures", len(names))
	}
	for _, name := range names {
		a, err := Open(name, &archive.Options{}, OpenOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files := map[string]int64{}
		for {
			e, err := a.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			n, err := io.Copy(io.Discard, a)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, e.Name, err)
			}
			files[e.Name] = n
		}
		a.Close()
		if files["./usr/share/fixture/hello.txt"] != 11 || files["./usr/share/fixture/lines.txt"] != 28890 {
			t.Errorf("%s: %v", name, files)
		}
	}

	b, _ := os.ReadFile("../codec/rpm/testdata/fixture-gzdio.rpm")
	b[len(b)-200] ^= 0x40
	p := filepath.Join(t.TempDir(), "damaged.rpm")
	os.WriteFile(p, b, 0o644)
	a, err := Open(p, &archive.Options{}, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var failed error
	for failed == nil {
		_, err := a.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			failed = err
			break
		}
		_, failed = io.Copy(io.Discard, a)
	}
	if !errors.Is(failed, archive.ErrCorrupt) && !errors.Is(failed, archive.ErrChecksum) {
		t.Errorf("damaged payload: %v", failed)
	}
}

// rpmVerdicts reads every entry of the rpm at p, its data too, and
// returns the entries, the verdicts of the pending ones, and the error
// that ended the archive (nil at its end).
func rpmVerdicts(t *testing.T, p string, oo OpenOptions) (entries []*archive.Entry, verdicts []archive.Verdict, failed error) {
	t.Helper()
	a, err := Open(p, &archive.Options{}, oo)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s := a.Reader.(archive.Settler)
	for {
		e, err := a.Next()
		verdicts = append(verdicts, s.Settled()...)
		if err == io.EOF {
			return entries, verdicts, nil
		}
		if err != nil {
			return entries, verdicts, err
		}
		entries = append(entries, e)
		if _, err := io.Copy(io.Discard, a); err != nil {
			return entries, verdicts, err
		}
	}
}

// TestRPMPendingOnDigest: a payload digest covers every entry and comes
// at the payload's end, so every entry is Pending until then. A byte
// flipped in a file's data of an uncompressed payload (no stream check
// to catch it) reads without error, and the digest fails every entry.
func TestRPMPendingOnDigest(t *testing.T) {
	name := "../codec/rpm/testdata/fixture-ufdio.rpm"
	entries, verdicts, err := rpmVerdicts(t, name, OpenOptions{})
	if err != nil || len(entries) == 0 || len(verdicts) != len(entries) {
		t.Fatalf("intact: %d entries, %d verdicts, %v", len(entries), len(verdicts), err)
	}
	for i, e := range entries {
		if !e.Pending || !verdicts[i].Same(e) || verdicts[i].Err != nil {
			t.Errorf("intact: %s pending %v, verdict %+v", e.Name, e.Pending, verdicts[i])
		}
	}

	b, _ := os.ReadFile(name)
	i := bytes.Index(b, []byte("line 100\n"))
	if i < 0 {
		t.Fatal("no file data found in the fixture")
	}
	b[i] ^= 0x20
	p := filepath.Join(t.TempDir(), "flipped.rpm")
	os.WriteFile(p, b, 0o644)
	entries, verdicts, err = rpmVerdicts(t, p, OpenOptions{})
	var m *verify.MismatchError
	if !errors.As(err, &m) {
		t.Fatalf("flipped data: ended with %v, want the payload digest's mismatch", err)
	}
	for _, v := range verdicts {
		if v.Err == nil {
			t.Errorf("flipped data: %s passed", verdictName(entries, v))
		}
	}
	if len(verdicts) != len(entries) {
		t.Errorf("flipped data: %d entries, %d verdicts", len(entries), len(verdicts))
	}

	entries, _, err = rpmVerdicts(t, name, OpenOptions{Listing: true})
	if err != nil || len(entries) == 0 {
		t.Fatalf("listing: %d entries, %v", len(entries), err)
	}
	for _, e := range entries {
		if e.Pending {
			t.Errorf("listing: %s is pending", e.Name)
		}
	}
}
