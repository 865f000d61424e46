package gzip

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// TestCorpus decodes the corpus's .gz and .tar.gz rows (UNPACK_CORPUS),
// whole and through one-byte reads: "ok" rows must give the expected
// stream or tar members, "must-fail" rows fail with a corrupt error or a
// checksum mismatch, none panics.
func TestCorpus(t *testing.T) {
	z := new(Reader)
	n := 0
	for _, row := range testutil.Manifest(t) {
		if row.Format != "gz" && row.Format != "tar.gz" {
			continue
		}
		n++
		t.Run(row.Local, func(t *testing.T) {
			data, err := os.ReadFile(row.Path)
			if err != nil {
				t.Fatal(err)
			}
			for _, wrap := range []func(io.Reader) io.Reader{
				func(r io.Reader) io.Reader { return r }, iotest.OneByteReader,
			} {
				if err = z.Reset(wrap(bytes.NewReader(data))); err == nil {
					if row.Expect == "ok" || row.Expect == "ok?" {
						err = testutil.CheckStream(t, z, row.Expected)
					} else {
						_, err = io.Copy(io.Discard, z)
					}
				}
				corrupt := errors.Is(err, archive.ErrCorrupt) || errors.Is(err, verify.ErrChecksum)
				switch row.Expect {
				case "ok", "ok?":
					if err != nil {
						t.Fatal(err)
					}
				case "must-fail":
					if !corrupt {
						t.Fatalf("got %v, want a corrupt error", err)
					}
				default:
					if err != nil && !corrupt {
						t.Fatalf("error of the wrong category: %v", err)
					}
				}
			}
		})
	}
	if n == 0 {
		t.Skip("no gzip rows in the corpus")
	}
}
