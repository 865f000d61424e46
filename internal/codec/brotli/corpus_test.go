package brotli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestCorpus decodes the corpus's .br and .tar.br rows (UNPACK_CORPUS),
// the google/brotli test vectors among them: "ok" rows must give the
// expected stream or tar members, "must-fail" rows a corrupt error.
func TestCorpus(t *testing.T) {
	z := new(Reader)
	n := 0
	for _, row := range testutil.Manifest(t) {
		if row.Format != "br" && row.Format != "tar.br" {
			continue
		}
		n++
		t.Run(row.Local, func(t *testing.T) {
			data, err := os.ReadFile(row.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err = z.Reset(bytes.NewReader(data)); err == nil {
				if row.Expect == "ok" || row.Expect == "ok?" {
					err = testutil.CheckStream(t, z, row.Expected)
				} else {
					_, err = io.Copy(io.Discard, z)
				}
			}
			switch row.Expect {
			case "ok", "ok?":
				if err != nil {
					t.Fatal(err)
				}
			case "must-fail":
				if !errors.Is(err, archive.ErrCorrupt) {
					t.Fatalf("got %v, want a corrupt error", err)
				}
			default:
				if err != nil && !archive.Categorized(err) {
					t.Fatalf("error of no category: %v", err)
				}
			}
		})
	}
	if n == 0 {
		t.Skip("no brotli rows in the corpus")
	}
}
