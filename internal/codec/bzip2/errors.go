package bzip2

import (
	"strconv"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Sentinel errors. Each errors.Is archive.ErrCorrupt.
var (
	// ErrHeader: the stream does not start with "BZh1".."BZh9".
	ErrHeader = archive.Errorf(archive.ErrCorrupt, "bzip2: bad stream header")
	// ErrMagic: neither a block nor an end-of-stream marker where one must be.
	ErrMagic = archive.Errorf(archive.ErrCorrupt, "bzip2: bad block magic")
	// ErrBlock: a block's tables or data are malformed.
	ErrBlock = archive.Errorf(archive.ErrCorrupt, "bzip2: corrupt block")
	// ErrTruncated: the input ends inside a stream.
	ErrTruncated = archive.Errorf(archive.ErrCorrupt, "bzip2: unexpected end of input")
)

// A ChecksumError reports a block CRC or a stream's combined CRC that did
// not match. It unwraps to a *verify.MismatchError, so it errors.Is
// verify.ErrChecksum (and archive.ErrChecksum).
type ChecksumError struct {
	Stream bool  // the combined stream CRC (false: a block CRC)
	Offset int64 // byte offset in the input of the block or end-of-stream marker
	Err    *verify.MismatchError
}

func (e *ChecksumError) Error() string {
	what := "block"
	if e.Stream {
		what = "stream"
	}
	return "bzip2: " + what + " at byte " + strconv.FormatInt(e.Offset, 10) + ": " + e.Err.Error()
}

// Unwrap returns the *verify.MismatchError.
func (e *ChecksumError) Unwrap() error { return e.Err }

func crcMismatch(stream bool, offset int64, want, got uint32) error {
	return &ChecksumError{Stream: stream, Offset: offset, Err: &verify.MismatchError{
		Kind: verify.CRC32,
		Want: []byte{byte(want >> 24), byte(want >> 16), byte(want >> 8), byte(want)},
		Got:  []byte{byte(got >> 24), byte(got >> 16), byte(got >> 8), byte(got)},
	}}
}
