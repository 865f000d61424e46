package lz4

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestCorpus decodes the corpus's .lz4 rows (UNPACK_CORPUS): "ok" rows must
// give the expected stream, "must-fail" rows a corrupt error, none a panic.
func TestCorpus(t *testing.T) {
	z := new(Reader)
	n := 0
	for _, row := range testutil.Manifest(t) {
		if row.Format != "lz4" {
			continue
		}
		n++
		t.Run(row.Local, func(t *testing.T) {
			data, err := os.ReadFile(row.Path)
			if err != nil {
				t.Fatal(err)
			}
			out, err := decodeAll(z, bytes.NewReader(data))
			if err == io.EOF {
				t.Fatal("io.EOF as an error")
			}
			switch row.Expect {
			case "ok", "ok?":
				want, _ := testutil.ExpectedFiles(row.Expected)
				if err != nil {
					t.Fatal(err)
				}
				if sum, ok := want["<stream>"]; ok && sha(out) != sum {
					t.Fatalf("sha256 %s, want %s", sha(out), sum)
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
