package zip

import (
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// StreamReader reads a zip archive from its local headers, for input that
// cannot seek.
type StreamReader struct{ archive.Reader }

// NewStreamReader returns a reader of the zip archive read from r.
func NewStreamReader(r io.Reader, opt *archive.Options) *StreamReader {
	return nil
}
