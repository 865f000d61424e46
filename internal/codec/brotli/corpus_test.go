package brotli

import (
	"bytes"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/testutil/streamcorpus"
)

// TestCorpus decodes the corpus's .br and .tar.br rows (UNPACK_CORPUS),
// the google/brotli test vectors among them.
func TestCorpus(t *testing.T) {
	z := new(Reader)
	streamcorpus.Rows(t, "br", func(t *testing.T, row testutil.Row, data []byte) {
		streamcorpus.Check(t, row, z, z.Reset(bytes.NewReader(data)))
	})
}
