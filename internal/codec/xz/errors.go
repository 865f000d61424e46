package xz

import (
	"fmt"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Sentinels for the ways an xz file can be malformed. Each errors.Is
// archive.ErrCorrupt (or archive.ErrUnsupported for the unsupported ones).
var (
	// ErrHeaderMagic: the input does not start with the xz magic bytes.
	ErrHeaderMagic = archive.Corruptf("xz: not an xz stream (bad header magic)")
	// ErrFooterMagic: the stream footer does not end in "YZ".
	ErrFooterMagic = archive.Corruptf("xz: bad stream footer magic")
	// ErrHeaderCRC: a stream header, stream footer or block header CRC32
	// does not match.
	ErrHeaderCRC = archive.Corruptf("xz: header CRC32 mismatch")
	// ErrFlagsMismatch: the stream footer's flags differ from the header's.
	ErrFlagsMismatch = archive.Corruptf("xz: stream footer flags differ from the header's")
	// ErrBackwardSize: the footer's index size is not the index's size.
	ErrBackwardSize = archive.Corruptf("xz: stream footer backward size does not match the index")
	// ErrVLI: a variable-length integer is too long or not minimally encoded.
	ErrVLI = archive.Corruptf("xz: bad variable-length integer")
	// ErrBlockHeader: a block header is malformed.
	ErrBlockHeader = archive.Corruptf("xz: malformed block header")
	// ErrBlockSize: a block's compressed or uncompressed size is invalid
	// or differs from what its header declares.
	ErrBlockSize = archive.Corruptf("xz: block size does not match its header")
	// ErrPadding: block padding, index padding or stream padding is not
	// null bytes, or stream padding is not a multiple of four bytes.
	ErrPadding = archive.Corruptf("xz: bad padding")
	// ErrIndex: the index is malformed or does not list the blocks read.
	ErrIndex = archive.Corruptf("xz: index does not match the blocks")
	// ErrTrailing: data after a stream is neither padding nor a stream.
	ErrTrailing = archive.Corruptf("xz: garbage after the end of a stream")
	// ErrUnsupportedFlags: reserved bits are set in stream or block flags.
	ErrUnsupportedFlags = archive.Unsupportedf("xz: unsupported stream or block flags")
	// ErrUnsupportedFilter: a filter ID or filter chain xz does not define.
	ErrUnsupportedFilter = archive.Unsupportedf("xz: unsupported filter or filter chain")
	// ErrUnsupportedHeader: a block header has non-null header padding
	// (a field this decoder does not know).
	ErrUnsupportedHeader = archive.Unsupportedf("xz: unsupported block header field")
)

// errTruncated is returned when the input ends inside a stream.
var errTruncated = archive.Truncated("xz")

// LimitError reports a block whose LZMA2 dictionary would exceed the memory
// limit; nothing was allocated for it. It errors.Is archive.ErrLimit.
type LimitError struct {
	Need  int64 // bytes the dictionary needs
	Limit int64 // the limit in force
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("xz: LZMA2 dictionary needs %d bytes, over the memory limit of %d bytes", e.Need, e.Limit)
}

// Is makes errors.Is(err, archive.ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == archive.ErrLimit }

// corruptError gives a decoder error that carries no category the
// ErrCorrupt category, naming the block.
type corruptError struct {
	block int64
	err   error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("xz: block %d: %v", e.block, e.err)
}

func (e *corruptError) Unwrap() []error { return []error{archive.ErrCorrupt, e.err} }
