package formats

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
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
