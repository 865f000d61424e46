package brotli

import (
	"github.com/unpack-dev/unpack/internal/archive"
)

// Sentinel errors. Each errors.Is archive.ErrCorrupt, except
// ErrLargeWindow (archive.ErrUnsupported) and ErrLimit (archive.ErrLimit).
var (
	// ErrLargeWindow: a stream in the large-window variant (window bits
	// above 24), which is not RFC 7932 brotli.
	ErrLargeWindow = archive.Unsupportedf("brotli: large-window stream")
	// ErrLimit: the stream's window buffer would exceed Config.MemLimit.
	ErrLimit = archive.Limitf("brotli: window exceeds the memory limit")
	// ErrMetaBlockHeader: a meta-block header with a reserved bit set or
	// a length with a needless zero last nibble or byte.
	ErrMetaBlockHeader = archive.Corruptf("brotli: invalid meta-block header")
	// ErrPadding: fill bits up to a byte boundary that are not zero.
	ErrPadding = archive.Corruptf("brotli: non-zero padding bits")
	// ErrPrefixCode: a prefix code that is not complete, names a symbol
	// twice or a symbol outside its alphabet.
	ErrPrefixCode = archive.Corruptf("brotli: invalid prefix code")
	// ErrContextMap: a context map whose run of zeros passes its end.
	ErrContextMap = archive.Corruptf("brotli: invalid context map")
	// ErrBlockLength: an insert or copy that passes the end of its
	// meta-block.
	ErrBlockLength = archive.Corruptf("brotli: command exceeds the meta-block length")
	// ErrDistance: a distance of zero or less from the last-distance
	// ring.
	ErrDistance = archive.Corruptf("brotli: invalid distance")
	// ErrDictionary: a static dictionary reference with a copy length
	// outside 4..24 or a transform beyond the 121 defined.
	ErrDictionary = archive.Corruptf("brotli: invalid static dictionary reference")
	// ErrTrailing: bytes after the end of the stream.
	ErrTrailing = archive.Corruptf("brotli: trailing data after the end of the stream")
	// ErrTruncated: the input ends inside the stream. It is also
	// io.ErrUnexpectedEOF.
	ErrTruncated = archive.Truncated("brotli")
)
