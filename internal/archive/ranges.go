package archive

import (
	"io"
	"os"
)

// Stored data is a byte range of the archive file (an ISO 9660 file's
// extents): a sink that writes to a file can have the kernel copy such a
// range (sendfile, copy_file_range) so that its bytes never pass through
// the process. A reader of stored ranges offers them to a RangeWriter
// through its input's RangeSource; every stage between (Meter) forwards
// them, and a stage that must see the bytes (Hashed) is no RangeWriter, so
// that the reader copies them through a buffer instead.

// RangeWriter is a writer that also takes n bytes of the file f from
// offset off as one call. WriteRange returns how many bytes it wrote:
// fewer than n, with a nil error, when f ends first. Where the kernel
// refuses the copy it copies through a buffer (CopyRange), so that its
// errors are those of Write and of reading f.
type RangeWriter interface {
	io.Writer
	WriteRange(f *os.File, off, n int64) (int64, error)
}

// RangeSource is implemented by an Input's RA: SendRange writes the n
// bytes at off to w, through WriteRange when the input is one open file
// (counted as read all the same), else through a buffer. Fewer than n
// bytes with a nil error means the input ended first.
type RangeSource interface {
	SendRange(w RangeWriter, off, n int64) (int64, error)
}

// CopyRange writes the n bytes of ra at off to w through a pooled buffer:
// fewer than n with a nil error when ra ends first. A read error is an
// IOError of the source, a write error is w's unchanged.
func CopyRange(w io.Writer, ra io.ReaderAt, off, n int64) (int64, error) {
	bp := copyPool.Get().(*[]byte)
	defer copyPool.Put(bp)
	buf := *bp
	var done int64
	for done < n {
		p := buf[:min(int64(len(buf)), n-done)]
		k, err := ra.ReadAt(p, off+done)
		if k > 0 {
			if _, werr := w.Write(p[:k]); werr != nil {
				return done, werr
			}
			done += int64(k)
		}
		switch {
		case k == len(p):
		case err == nil || err == io.EOF:
			if k == 0 {
				return done, nil
			}
		case IsIO(err):
			return done, err
		default:
			return done, &IOError{Stage: "source", Err: err}
		}
	}
	return done, nil
}

// WriteRange counts the range, as Write counts its bytes, before writing it.
func (mw *meterWriter) WriteRange(f *os.File, off, n int64) (int64, error) {
	if err := mw.fn(n); err != nil {
		return 0, err
	}
	if rw, ok := mw.w.(RangeWriter); ok {
		return rw.WriteRange(f, off, n)
	}
	return CopyRange(mw.w, f, off, n)
}
