package testutil

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixture returns the contents of testdata/name in the test's package.
func Fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// HashAll reads r to the end and returns the SHA-256 (hex) and length of
// what it produced, and the error that ended it (nil for io.EOF).
func HashAll(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// ReadInChunks reads r with reads of chunk bytes until one fails, and
// returns every byte those reads handed out (with the failing one too)
// and that read's error (io.EOF at the end).
func ReadInChunks(r io.Reader, chunk int) ([]byte, error) {
	var got []byte
	buf := make([]byte, chunk)
	for {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return got, err
		}
	}
}

// SHA256Sums reads a sha256sum-style file ("HEX  NAME" lines) into a map
// from name to hex digest.
func SHA256Sums(t testing.TB, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if len(line) < 66 {
			t.Fatalf("%s: malformed line %q", path, line)
		}
		m[line[66:]] = line[:64]
	}
	return m
}

// CheckStream compares a decompressed stream with a corpus .sha256s file:
// its "<stream>" entry, or the regular files of the tar the stream holds
// (named as extracted: without a leading "/").
// Errors of the comparison are reported on t; the returned error is the
// one that ended reading r (nil at its end), for tests of failing rows.
func CheckStream(t *testing.T, r io.Reader, expected string) error {
	t.Helper()
	want, err := ExpectedFiles(expected)
	if err != nil || want == nil {
		t.Fatalf("expected sums %s: %v", expected, err)
	}
	if sha, ok := want["<stream>"]; ok {
		got, _, err := HashAll(r)
		if err != nil {
			return err
		}
		if got != sha {
			t.Errorf("stream sha256 %s, want %s", got, sha)
		}
		return nil
	}
	tr := tar.NewReader(r)
	seen := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		got, _, err := HashAll(tr)
		if err != nil {
			return err
		}
		// Names as an extractor writes them: a leading "/" is dropped.
		if w, ok := want[strings.TrimLeft(h.Name, "/")]; ok {
			seen++
			if got != w {
				t.Errorf("%s: sha256 %s, want %s", h.Name, got, w)
			}
		}
	}
	// The tar reader may stop before the compressed stream's end: drain
	// it so its end is verified too.
	if _, err := io.Copy(io.Discard, r); err != nil {
		return err
	}
	if seen != len(want) {
		t.Errorf("%d files checked, want %d", seen, len(want))
	}
	return nil
}

// Names reports whether err's message names want: the volume, method,
// check or input the user must be told about, where naming it is the
// behaviour under test. The error's category is checked by type apart.
func Names(err error, want string) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, want)
}
