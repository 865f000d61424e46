package iso9660

import (
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// StoredSpans returns where the data of the files stored as they are (all
// but zisofs files and El Torito boot images) lie in the image: one span
// per non-empty extent, Entry its index in Entries, sorted by offset, no
// two overlapping (NewReader refuses that). Files are laid out back to
// back, so a caller that only reads the data (verification) can read the
// image in a few long runs instead of file by file; Open remains the
// reader that names a file's failure.
func (r *Reader) StoredSpans() []archive.Span { return r.stored }

// OpenSpan returns a reader of the n bytes of the image at off, read as a
// file's extent is (an image ending first is an error, a range goes to an
// archive.RangeWriter through the kernel). Close gives it back.
func (r *Reader) OpenSpan(off, n int64) io.ReadCloser {
	x := extentReaders.Get().(*extentReader)
	*x = extentReader{ra: r.ra, cur: extent{off, max(n, 0)}}
	return x
}
