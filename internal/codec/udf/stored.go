package udf

import (
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// StoredSpans returns where the recorded data of the regular files lie in
// the image: one span per recorded extent (per block in a metadata
// partition), Entry its index in Entries, sorted by offset, no two
// overlapping. Unrecorded extents (zeros) have none, nor do files embedded
// in their entries or whose own extents overlap each other: those are read
// file by file. A caller that only reads the data (verification) can read
// the image in a few long runs instead; Open remains the reader that names
// a file's failure.
func (r *Reader) StoredSpans() []archive.Span { return r.stored }

// OpenSpan returns a reader of the n bytes of the image at off, read as a
// file's recorded extent is (an image ending first is an error, a range
// goes to an archive.RangeWriter through the kernel).
func (r *Reader) OpenSpan(off, n int64) io.ReadCloser {
	n = max(n, 0)
	return io.NopCloser(&spanReader{ra: r.img.ra, cur: span{off, n}, left: n})
}
