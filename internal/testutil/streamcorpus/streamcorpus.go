// Package streamcorpus runs a stream decoder over the shared corpus's rows
// of its format, for the decoders' TestCorpus. It is apart from testutil
// because it judges errors by their archive category, and packages that
// testutil's own users depend on (verify) may not import archive.
package streamcorpus

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// Rows runs fn as a subtest, with the file's contents, for every manifest
// row of format or "tar."+format, and skips the test when the corpus has
// none (or is absent).
func Rows(t *testing.T, format string, fn func(t *testing.T, row testutil.Row, data []byte)) {
	n := 0
	for _, row := range testutil.Manifest(t) {
		if row.Format != format && row.Format != "tar."+format {
			continue
		}
		n++
		t.Run(row.Local, func(t *testing.T) {
			data, err := os.ReadFile(row.Path)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, row, data)
		})
	}
	if n == 0 {
		t.Skipf("no %s rows in the corpus", format)
	}
}

// Check reads r, the decoder of row's file whose opening returned err,
// and judges the outcome by the row's expectation: "ok" rows must give
// the expected stream or tar members; "must-fail" rows an error that is
// corrupt data or a checksum mismatch; "unsupported" rows an unsupported
// error; any other row (no-crash) no error outside the archive categories.
func Check(t *testing.T, row testutil.Row, r io.Reader, err error) {
	t.Helper()
	if err == nil {
		if row.Expect == "ok" || row.Expect == "ok?" {
			err = testutil.CheckStream(t, r, row.Expected)
		} else {
			_, err = io.Copy(io.Discard, r)
		}
	}
	switch row.Expect {
	case "ok", "ok?":
		if err != nil {
			t.Fatal(err)
		}
	case "must-fail":
		if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrChecksum) {
			t.Fatalf("got %v, want a corrupt-data error", err)
		}
	case "unsupported":
		if !errors.Is(err, archive.ErrUnsupported) {
			t.Fatalf("got %v, want an unsupported error", err)
		}
	default:
		if err != nil && !archive.Categorized(err) {
			t.Fatalf("error of no category: %v", err)
		}
	}
}
