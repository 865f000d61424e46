package formats

import (
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// The output path of a single stream. A decoder that is an io.WriterTo
// (lz4, zstd, xz, bzip2, brotli) hands its decoded blocks to the sink's
// writer straight from its own buffers; every wrapper between the decoder
// and the sink (archive.Decoding, singleReader, Archive) passes WriteTo on
// through archive.Copy, so that no wrapper hides it and no copy buffer sits
// in between.

// WriteTo writes the current entry's data to w, as io.Copy would from
// Read, verifying it the same way; a single stream's decoder writes
// straight from its own buffers when it can.
func (a *Archive) WriteTo(w io.Writer) (int64, error) { return archive.Copy(w, a.Reader) }

// WriteTo writes the stream's decompressed bytes to w.
func (s *singleReader) WriteTo(w io.Writer) (int64, error) { return archive.Copy(w, s.r) }
