package zip

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
)

// openFile opens path as the CLI would: seekable, or as a stream.
func openFile(t testing.TB, path string, opt *archive.Options, stream bool) (archive.Reader, func(), error) {
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return openPath(path, opt, stream)
}

func openPath(path string, opt *archive.Options, stream bool) (archive.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, _ := f.Stat()
	in := &archive.Input{R: bufio.NewReader(f), RA: f, Size: st.Size(), Path: path, Name: path}
	if stream {
		in.RA, in.Size, in.Path = nil, -1, ""
	}
	r, err := Open(in, opt)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, func() { r.Close(); f.Close() }, nil
}

// extracted is what reading a whole archive gave.
type extracted struct {
	files map[string]string // name → hex SHA-256
	links map[string]string
	errs  []error
}

// readAll reads every entry of r, collecting hashes and per-entry errors.
func readAll(r archive.Reader) (*extracted, error) {
	x := &extracted{files: map[string]string{}, links: map[string]string{}}
	h := sha256.New()
	var last error
	for n := 0; ; n++ {
		if n > 100000 {
			return x, errors.New("too many entries")
		}
		e, err := r.Next()
		if err == io.EOF {
			return x, nil
		}
		if err != nil {
			// A reader that lost its place repeats its error.
			if errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, ErrFormat) && err != last {
				last = err
				x.errs = append(x.errs, err)
				continue
			}
			return x, err
		}
		switch e.Type {
		case archive.TypeDir:
			// As on disk: a later directory replaces a file of its name.
			delete(x.files, strings.TrimSuffix(e.Name, "/"))
		case archive.TypeFile:
			h.Reset()
			if _, err := io.Copy(h, r); err != nil {
				x.errs = append(x.errs, fmt.Errorf("%s: %w", e.Name, err))
				continue
			}
			x.files[e.Name] = hex.EncodeToString(h.Sum(nil))
		case archive.TypeSymlink:
			x.links[e.Name] = e.Linkname
		}
	}
}

// knownFailures reads testdata/corpus-known-failures.txt: local_path → reason.
func knownFailures(t *testing.T) map[string]string {
	data, err := os.ReadFile("testdata/corpus-known-failures.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if p, why, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
			m[p] = why
		}
	}
	return m
}

// recorder collects a row's complaints instead of failing the test.
type recorder struct{ msgs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

// TestCorpus reads every zip row of the shared corpus. Rows listed in
// testdata/corpus-known-failures.txt are logged, not failed.
func TestCorpus(t *testing.T) {
	rows := testutil.Manifest(t)
	known := knownFailures(t)
	var pass, fail, skip, knownFail int
	for _, row := range rows {
		if row.Format != "zip" || !row.IsFirstOfUnit() {
			continue
		}
		rec := &recorder{}
		switch checkRow(rec, row) {
		case 1:
			pass++
			if why, ok := known[row.Local]; ok {
				t.Logf("%s: passes now; drop it from the known failures (%s)", row.Local, why)
			}
		case 0:
			fail++
			if why, ok := known[row.Local]; ok {
				knownFail++
				t.Logf("known failure %s: %s (%s)", row.Local, strings.Join(rec.msgs, "; "), why)
				continue
			}
			for _, m := range rec.msgs {
				t.Error(m)
			}
		default:
			skip++
		}
	}
	t.Logf("corpus zip: %d passed, %d failed, %d skipped", pass, fail, skip)
	t.Logf("corpus zip: %d of the failures are known (testdata/corpus-known-failures.txt)", knownFail)
}

// checkRow returns 1 for a pass, 0 for a failure, -1 for a skip.
func checkRow(t *recorder, row testutil.Row) (result int) {
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s: panic: %v", row.Local, p)
			result = 0
		}
	}()
	opt := &archive.Options{}
	if row.Password != "" {
		opt.Passwords = []string{row.Password}
	}
	var x *extracted
	r, done, err := openPath(row.Path, opt, false)
	if err == nil {
		x, err = readAll(r)
		done()
		if err == nil && len(x.errs) > 0 {
			err = x.errs[0]
		}
	}
	switch row.Expect {
	case "no-crash":
		return 1
	case "must-fail":
		if err == nil {
			t.Errorf("%s: must fail, but read fine", row.Local)
			return 0
		}
		return 1
	case "needs-password":
		if !errors.Is(err, archive.ErrNeedPassword) && !errors.Is(err, archive.ErrPassword) {
			t.Errorf("%s: want a password error, got %v", row.Local, err)
			return 0
		}
		return 1
	case "unsupported":
		if !errors.Is(err, archive.ErrUnsupported) {
			t.Errorf("%s: want unsupported, got %v", row.Local, err)
			return 0
		}
		return 1
	}
	if err != nil {
		t.Errorf("%s: %v", row.Local, err)
		return 0
	}
	want, err := testutil.ExpectedFiles(row.Expected)
	if err != nil {
		t.Errorf("%s: %v", row.Local, err)
		return 0
	}
	if want == nil {
		return -1
	}
	bad := false
	want = normalizeNames(want)
	for name, sum := range want {
		if got, ok := x.files[name]; !ok {
			t.Errorf("%s: %q missing", row.Local, name)
			bad = true
		} else if got != sum {
			t.Errorf("%s: %q: sha256 %s, want %s", row.Local, name, got, sum)
			bad = true
		}
	}
	for name := range x.files {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: unexpected file %q", row.Local, name)
			bad = true
		}
	}
	for name, target := range testutil.ExpectedLinks(row.Expected) {
		if x.links[name] != target {
			t.Errorf("%s: link %q -> %q, want %q", row.Local, name, x.links[name], target)
			bad = true
		}
	}
	if bad {
		return 0
	}
	return 1
}

// normalizeNames decodes expected names that are not UTF-8 as CP437. The
// reference tools wrote names without the UTF-8 flag as raw bytes; this
// reader decodes them as CP437, as APPNOTE says, so the comparison is made
// on the decoded form.
func normalizeNames(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for name, sum := range m {
		if !utf8Valid([]byte(name)) {
			name = cp437([]byte(name))
		}
		out[name] = sum
	}
	return out
}
