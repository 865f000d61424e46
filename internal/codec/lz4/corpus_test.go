package lz4

import (
	"bytes"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/testutil/streamcorpus"
)

// TestCorpus decodes the corpus's .lz4 and .tar.lz4 rows (UNPACK_CORPUS).
func TestCorpus(t *testing.T) {
	z := new(Reader)
	streamcorpus.Rows(t, "lz4", func(t *testing.T, row testutil.Row, data []byte) {
		streamcorpus.Check(t, row, z, z.Reset(bytes.NewReader(data)))
	})
}
