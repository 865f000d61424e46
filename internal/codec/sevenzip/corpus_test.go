package sevenzip

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// openFile opens path as the CLI would.
func openFile(t testing.TB, path string, passwords ...string) (*Reader, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	in := &archive.Input{R: bufio.NewReader(f), RA: f, Size: st.Size(), Path: path, Name: filepath.Base(path)}
	return open(in, &archive.Options{Passwords: passwords})
}

// extractAll reads every entry, returning name → SHA-256 of regular files
// and name → target of symlinks, and the first error.
func extractAll(r archive.Reader) (map[string]string, map[string]string, error) {
	files, links := map[string]string{}, map[string]string{}
	var first error
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return files, links, err
		}
		// Compare names as a sink would place them (the reader keeps
		// them as stored: "/a/b" stays absolute).
		name := strings.TrimPrefix(path.Clean(strings.TrimPrefix(e.Name, "./")), "/")
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			if _, err := io.Copy(h, r); err != nil {
				if first == nil {
					first = err
				}
				continue
			}
			files[name] = hex.EncodeToString(h.Sum(nil))
		case archive.TypeSymlink:
			if _, err := io.Copy(io.Discard, r); err != nil && first == nil {
				first = err
			}
			links[name] = e.Linkname
		}
	}
	return files, links, first
}

func TestCorpus(t *testing.T) {
	rows := testutil.Manifest(t)
	passed, failed, skipped := 0, 0, 0
	for _, row := range rows {
		if row.Format != "7z" || !row.IsFirstOfUnit() {
			continue
		}
		var pws []string
		if row.Password != "" {
			pws = []string{row.Password}
		}
		err := corpusRow(t, row, pws)
		switch {
		case err == errSkip:
			skipped++
		case err != nil:
			failed++
			t.Logf("FAIL %s (%s): %v", row.Local, row.Expect, err)
		default:
			passed++
		}
	}
	t.Logf("corpus 7z: %d passed, %d failed, %d skipped", passed, failed, skipped)
}

var errSkip = errors.New("skip")

func corpusRow(t *testing.T, row testutil.Row, pws []string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("panic: " + toString(p))
		}
	}()
	r, err := openFile(t, row.Path, pws...)
	var files, links map[string]string
	if err == nil {
		defer r.Close()
		files, links, err = extractAll(r)
	}
	switch row.Expect {
	case "no-crash":
		return nil
	case "must-fail":
		if err == nil {
			return errors.New("expected failure, got success")
		}
		return nil
	case "needs-password":
		if errors.Is(err, archive.ErrNeedPassword) || errors.Is(err, archive.ErrPassword) {
			return nil
		}
		return errors.New("expected a password error, got " + toString(err))
	case "unsupported":
		if errors.Is(err, archive.ErrUnsupported) {
			return nil
		}
		return errors.New("expected unsupported, got " + toString(err))
	}
	if err != nil && row.Expect == "ok?" && row.HasFeature("bad") && errors.Is(err, verify.ErrChecksum) {
		// Only a tool that skips CRCs "succeeded": failing is right.
		t.Logf("note %s: %v (the archive is damaged; the CRC check is right to fail)", row.Local, err)
		return nil
	}
	want, werr := testutil.ExpectedFiles(row.Expected)
	if werr != nil {
		return werr
	}
	if err != nil && row.Expect == "ok?" && len(want) == 0 && errors.Is(err, archive.ErrCorrupt) {
		// The one tool that "succeeded" extracted nothing; the others
		// failed as this reader does.
		t.Logf("note %s: %v (the only success produced no files)", row.Local, err)
		return nil
	}
	if err != nil {
		return err
	}
	if want == nil {
		return errSkip
	}
	for name, sum := range want {
		if files[name] != sum {
			return errors.New("content of " + name + " differs or is missing")
		}
	}
	for name := range files {
		if _, ok := want[name]; !ok {
			return errors.New("unexpected file " + name)
		}
	}
	for name, target := range testutil.ExpectedLinks(row.Expected) {
		if links[name] != target {
			return errors.New("symlink " + name + " -> " + links[name] + ", want " + target)
		}
	}
	return nil
}

func toString(v any) string {
	switch x := v.(type) {
	case error:
		return x.Error()
	case string:
		return x
	case nil:
		return "<nil>"
	}
	return "?"
}
