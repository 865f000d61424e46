package rar

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// openFile5 opens path as the CLI would: a buffered sequential reader plus
// the file for random access.
func openFile5(t testing.TB, path string, opt *archive.Options) (archive.Reader, *os.File, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	in := &archive.Input{R: bufio.NewReader(f), RA: f, Size: st.Size(), Path: path, Name: path}
	r, err := Open(in, opt)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
}

// readAll5 reads every entry of r: name → SHA-256 of regular files, and
// name → link target of links. The first error is returned.
func readAll5(r archive.Reader) (files, links map[string]string, err error) {
	files, links = map[string]string{}, map[string]string{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return files, links, nil
		}
		if err != nil {
			return files, links, err
		}
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			if _, err := io.Copy(h, r); err != nil {
				return files, links, fmt.Errorf("%s: %w", e.Name, err)
			}
			files[e.Name] = hex.EncodeToString(h.Sum(nil))
		case archive.TypeSymlink, archive.TypeHardlink:
			links[e.Name] = e.Linkname
		}
	}
}

// checkRow5 runs one corpus row and returns why it failed, "" when it
// passed, or "skip".
func checkRow5(t *testing.T, row testutil.Row) (why string) {
	defer func() {
		if p := recover(); p != nil {
			why = fmt.Sprintf("panic: %v", p)
		}
	}()
	if row.HasFeature("blake2") && verify.New(verify.BLAKE2sp) == nil {
		return "skip" // BLAKE2sp is not in internal/verify yet
	}
	opt := &archive.Options{}
	if row.Password != "" {
		opt.Passwords = []string{row.Password}
	}
	r, f, err := openFile5(t, row.Path, opt)
	var files, links map[string]string
	if err == nil {
		files, links, err = readAll5(r)
		r.Close()
		f.Close()
	}
	switch row.Expect {
	case "no-crash":
		return ""
	case "must-fail":
		if err == nil {
			return "succeeded but must fail"
		}
		return ""
	case "needs-password":
		if errors.Is(err, archive.ErrNeedPassword) || errors.Is(err, archive.ErrPassword) {
			return ""
		}
		return fmt.Sprintf("want a password error, got %v", err)
	case "unsupported":
		if errors.Is(err, archive.ErrUnsupported) {
			return ""
		}
		return fmt.Sprintf("want unsupported, got %v", err)
	}
	if err != nil {
		return err.Error()
	}
	want, err := testutil.ExpectedFiles(row.Expected)
	if err != nil {
		return err.Error()
	}
	var bad []string
	for name, sum := range want {
		if got, ok := files[name]; !ok {
			bad = append(bad, "missing "+name)
		} else if got != sum {
			bad = append(bad, "content differs: "+name)
		}
	}
	for name := range files {
		if _, ok := want[name]; !ok && want != nil {
			bad = append(bad, "unexpected "+name)
		}
	}
	for name, target := range testutil.ExpectedLinks(row.Expected) {
		if got, ok := links[name]; !ok {
			bad = append(bad, "missing link "+name)
		} else if got != target {
			bad = append(bad, fmt.Sprintf("link %s -> %s, want %s", name, got, target))
		}
	}
	return strings.Join(bad, "; ")
}

func TestCorpusRAR5(t *testing.T) {
	rows := testutil.Manifest(t)
	var pass, fail, skip int
	for _, row := range rows {
		if row.Format != "rar5" || !row.IsFirstOfUnit() {
			continue
		}
		why := checkRow5(t, row)
		switch why {
		case "":
			pass++
		case "skip":
			skip++
			t.Logf("%s: skipped (BLAKE2sp unavailable)", row.Local)
		default:
			fail++
			t.Errorf("%s: %s", row.Local, why)
		}
	}
	t.Logf("corpus rar5: %d passed, %d failed, %d skipped", pass, fail, skip)
}
