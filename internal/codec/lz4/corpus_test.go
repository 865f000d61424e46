package lz4

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestCorpus decodes the corpus's .lz4 and .tar.lz4 rows (UNPACK_CORPUS):
// "ok" .lz4 rows must give the expected stream and "ok" .tar.lz4 rows
// decode without error (their members are checked through the CLI's
// tar reader by the formats tests: testutil.CheckStream does not match
// tar names with a leading "/", as one row has), "must-fail" rows fail
// with a corrupt error, none panics.
func TestCorpus(t *testing.T) {
	z := new(Reader)
	n := 0
	for _, row := range testutil.Manifest(t) {
		if row.Format != "lz4" && row.Format != "tar.lz4" {
			continue
		}
		n++
		t.Run(row.Local, func(t *testing.T) {
			data, err := os.ReadFile(row.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err = z.Reset(bytes.NewReader(data)); err == nil {
				if (row.Expect == "ok" || row.Expect == "ok?") && row.Format == "lz4" {
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
				if !isCorrupt(err) {
					t.Fatalf("got %v, want a corrupt error", err)
				}
			default:
				if err != nil && !isCorrupt(err) {
					t.Fatalf("error of the wrong category: %v", err)
				}
			}
		})
	}
	if n == 0 {
		t.Skip("no lz4 rows in the corpus")
	}
}
