package extract

import (
	"os"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/kcopy"
)

// WriteRange has the kernel copy a stored range of the image into the file
// (copy_file_range: nothing through the process, shared blocks where the
// file system can); the rest, all of it where the kernel refuses (another
// file system before Linux 5.19, one without the call), through a buffer.
func (f *wfile) WriteRange(src *os.File, off, n int64) (int64, error) {
	k, err := kcopy.File(f.fd, src, off, n)
	f.pos += k
	f.size = max(f.size, f.pos)
	if err == nil {
		return k, nil
	}
	m, err := archive.CopyRange(f, src, off+k, n-k)
	return k + m, err
}
