package gzip

import (
	"bytes"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/testutil/streamcorpus"
)

// TestCorpus decodes the corpus's .gz and .tar.gz rows (UNPACK_CORPUS),
// whole and through one-byte reads.
func TestCorpus(t *testing.T) {
	z := new(Reader)
	streamcorpus.Rows(t, "gz", func(t *testing.T, row testutil.Row, data []byte) {
		streamcorpus.Check(t, row, z, z.Reset(bytes.NewReader(data)))
		streamcorpus.Check(t, row, z, z.Reset(iotest.OneByteReader(bytes.NewReader(data))))
	})
}
