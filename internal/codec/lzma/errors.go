package lzma

import (
	"errors"
	"strconv"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Sentinel errors. Every one of them errors.Is archive.ErrCorrupt (or
// archive.ErrUnsupported / archive.ErrLimit where said), so the CLI can map
// it to an exit code without knowing this package.
var (
	// ErrProps reports invalid lc/lp/pb properties or a bad properties byte.
	ErrProps = archive.Corruptf("lzma: invalid properties")
	// ErrDistance reports a match reaching back before the start of the
	// dictionary (or of the data decoded since the last dictionary reset).
	ErrDistance = archive.Corruptf("lzma: match distance beyond dictionary")
	// ErrRangeInit reports a range coder whose first byte is not zero.
	ErrRangeInit = archive.Corruptf("lzma: bad range coder start byte")
	// ErrMarker reports an end-of-payload marker where none may be: in an
	// LZMA2 chunk or before the declared uncompressed size was reached.
	ErrMarker = archive.Corruptf("lzma: unexpected end marker")
	// ErrSize reports data that does not end where its declared size says:
	// a symbol running past the size, or a missing end marker.
	ErrSize = archive.Corruptf("lzma: data does not match declared size")
	// ErrUnfinished reports a range coder not cleanly finished at the end of
	// the data (bytes left over or a non-zero code).
	ErrUnfinished = archive.Corruptf("lzma: compressed data not finished at end")
	// ErrChunk reports an invalid LZMA2 chunk header or chunk sequence.
	ErrChunk = archive.Corruptf("lzma2: invalid chunk")
	// ErrHeader reports an invalid .lzma (LZMA-alone) header.
	ErrHeader = archive.Corruptf("lzma: invalid header")
	// ErrOutputFull reports an LZMA2 stream producing more than the buffer
	// Reader2.DecodeAll was given (which the caller sized by a declared
	// size, so the data contradicts it).
	ErrOutputFull = archive.Corruptf("lzma2: more data than the declared size")
	// ErrNotFlat reports an LZMA2 stream that resets its dictionary after
	// its start, which Reader2.DecodeAll does not decode; Reader2.Read
	// does. It is not a corruption: valid streams may do it.
	ErrNotFlat = errors.New("lzma2: dictionary reset inside the stream (decode it with Read)")
	// ErrTruncated reports input that ends in the middle of the stream. It
	// errors.Is both archive.ErrCorrupt and io.ErrUnexpectedEOF.
	ErrTruncated = archive.Truncated("lzma")
)

// DictLimit returns nil when a dictionary of dictSize bytes fits within
// memLimit (memLimit <= 0 means no limit), and otherwise a *LimitError.
// Callers check it before constructing a reader for a dictionary size read
// from a header.
func DictLimit(dictSize, memLimit int64) error {
	if memLimit <= 0 || dictSize <= memLimit {
		return nil
	}
	return &LimitError{Need: dictSize, Limit: memLimit}
}

// LimitError reports a dictionary over the memory limit, before anything
// was allocated for it. It errors.Is archive.ErrLimit.
type LimitError struct {
	Need  int64 // bytes the dictionary needs
	Limit int64 // the limit in force
}

func (e *LimitError) Error() string {
	return "lzma: dictionary of " + sizeString(e.Need) + " needed, memory limit is " + sizeString(e.Limit)
}

// Is makes errors.Is(err, archive.ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == archive.ErrLimit }

// sizeString formats n bytes as MiB when it is a whole number of MiB,
// else KiB, else bytes.
func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
