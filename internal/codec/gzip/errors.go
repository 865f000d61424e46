package gzip

import (
	"github.com/unpack-dev/unpack/internal/archive"
)

// Errors. Each is an archive.ErrCorrupt unless said otherwise.
var (
	// ErrHeader: a member header that is not gzip (bad magic, reserved
	// flags set, a header CRC16 that does not match).
	ErrHeader = archive.Corruptf("gzip: invalid header")
	// ErrMethod: a compression method other than deflate (8). It is an
	// archive.ErrUnsupported.
	ErrMethod = archive.Unsupportedf("gzip: unsupported compression method")
	// ErrSize: the trailer's ISIZE differs from the decompressed length.
	ErrSize = archive.Corruptf("gzip: ISIZE does not match the data")
	// ErrFieldTooLong: a stored name or comment longer than MaxField. It
	// is an archive.ErrLimit.
	ErrFieldTooLong = archive.Limitf("gzip: header name or comment too long")
	// ErrTruncated: the input ends inside a member. It is also
	// io.ErrUnexpectedEOF.
	ErrTruncated = archive.Truncated("gzip")
)
