package rar5

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// corpusData returns a corpus archive's bytes, skipping when absent.
func corpusData(t testing.TB, rel string) (string, []byte) {
	t.Helper()
	p := filepath.Join(testutil.CorpusDir(t), rel)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Skip(err)
	}
	return p, data
}

// openFile opens path as the CLI would: a buffered sequential reader plus
// the file for random access.
func openFile(t testing.TB, path string, opt *archive.Options) (archive.Reader, *os.File, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	// A self-extractor stub before the signature is skipped (as package
	// rar's Open does).
	head := make([]byte, min(st.Size(), archive.SFXScanLimit))
	n, _ := f.ReadAt(head, 0)
	off := int64(max(0, bytes.Index(head[:n], []byte(signature))))
	in := &archive.Input{R: bufio.NewReader(io.NewSectionReader(f, off, st.Size()-off)), RA: f, Size: st.Size(), Path: path, Name: path}
	r, err := Open(in, opt, off)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
}

// readAll reads every entry of r: name → SHA-256 of regular files, and
// name → link target of links. The first error is returned.
func readAll(r archive.Reader) (files, links map[string]string, err error) {
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

// checkRow runs one corpus row and returns why it failed, "" when it
// passed, or "skip".
func checkRow(t *testing.T, row testutil.Row) (why string) {
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
	r, f, err := openFile(t, row.Path, opt)
	var files, links map[string]string
	if err == nil {
		files, links, err = readAll(r)
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
	// A file copy (redirection type 5) the recording tools gave as a link
	// is read as an independent file with its source's content.
	expLinks := testutil.ExpectedLinks(row.Expected)
	for name, target := range expLinks {
		if _, ok := links[name]; !ok && want != nil && files[name] != "" && files[name] == want[target] {
			want[name] = files[name]
			delete(expLinks, name)
		}
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
	for name, target := range expLinks {
		if got, ok := links[name]; !ok {
			bad = append(bad, "missing link "+name)
		} else if got != target {
			bad = append(bad, fmt.Sprintf("link %s -> %s, want %s", name, got, target))
		}
	}
	return strings.Join(bad, "; ")
}

func TestCorpus(t *testing.T) {
	rows := testutil.Manifest(t)
	var pass, fail, skip int
	for _, row := range rows {
		if row.Format != "rar5" || !row.IsFirstOfUnit() {
			continue
		}
		why := checkRow(t, row)
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
