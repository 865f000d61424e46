package lz4

import (
	"strconv"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Sentinel errors. Each errors.Is archive.ErrCorrupt, except
// ErrUnsupported (archive.ErrUnsupported) and ErrLimit (archive.ErrLimit).
var (
	// ErrMagic: the input does not start with an LZ4 frame (or a legacy or
	// skippable frame).
	ErrMagic = archive.Errorf(archive.ErrCorrupt, "lz4: bad magic number")
	// ErrHeader: a frame descriptor with a wrong version, reserved bits set,
	// or a reserved block maximum size.
	ErrHeader = archive.Errorf(archive.ErrCorrupt, "lz4: bad frame descriptor")
	// ErrBlockSize: a block larger than the frame's block maximum size.
	ErrBlockSize = archive.Errorf(archive.ErrCorrupt, "lz4: block larger than the block maximum size")
	// ErrOffset: a match offset of 0 or reaching before the start of the
	// history.
	ErrOffset = archive.Errorf(archive.ErrCorrupt, "lz4: match offset out of range")
	// ErrOverflow: a block that decodes to more than the block maximum
	// size.
	ErrOverflow = archive.Errorf(archive.ErrCorrupt, "lz4: block decodes beyond the block maximum size")
	// ErrShortBlock: a block whose last sequence is cut short or is not
	// literals only.
	ErrShortBlock = archive.Errorf(archive.ErrCorrupt, "lz4: block data cut short")
	// ErrContentSize: a frame whose decoded size differs from the content
	// size its descriptor declares.
	ErrContentSize = archive.Errorf(archive.ErrCorrupt, "lz4: content size mismatch")
	// ErrTruncated: the input ends inside a frame.
	ErrTruncated = archive.Errorf(archive.ErrCorrupt, "lz4: unexpected end of input")
	// ErrUnsupported: a frame that needs a dictionary (a dictionary ID in
	// its descriptor), which a stand-alone .lz4 file cannot provide.
	ErrUnsupported = archive.Errorf(archive.ErrUnsupported, "lz4: frame needs a predefined dictionary")
	// ErrLimit: the frame's buffers would exceed Config.MemLimit.
	ErrLimit = archive.Errorf(archive.ErrLimit, "lz4: block buffers exceed the memory limit")
)

// What a ChecksumError is about.
const (
	HeaderChecksum  = "header"  // the frame descriptor's one-byte HC
	BlockChecksum   = "block"   // a block's XXH32
	ContentChecksum = "content" // the frame's XXH32 of its decoded content
)

// A ChecksumError reports a header, block or content checksum that did not
// match. It unwraps to a *verify.MismatchError, so it errors.Is
// verify.ErrChecksum (and archive.ErrChecksum).
type ChecksumError struct {
	What   string // HeaderChecksum, BlockChecksum or ContentChecksum
	Offset int64  // byte offset in the input of the checksum
	Err    *verify.MismatchError
}

func (e *ChecksumError) Error() string {
	return "lz4: " + e.What + " checksum at byte " + strconv.FormatInt(e.Offset, 10) + ": " + e.Err.Error()
}

// Unwrap returns the *verify.MismatchError.
func (e *ChecksumError) Unwrap() error { return e.Err }

// checksumError builds a ChecksumError for XXH32 values (one byte for the
// header checksum).
func checksumError(what string, offset int64, want, got uint32) error {
	w := []byte{byte(want >> 24), byte(want >> 16), byte(want >> 8), byte(want)}
	g := []byte{byte(got >> 24), byte(got >> 16), byte(got >> 8), byte(got)}
	if what == HeaderChecksum {
		w, g = w[3:], g[3:]
	}
	return &ChecksumError{What: what, Offset: offset, Err: &verify.MismatchError{Kind: verify.XXH32, Want: w, Got: g}}
}

// A FrameError is one of the sentinels above with the input offset of
// the frame part (header, block, end mark) where it was found.
type FrameError struct {
	Offset int64
	Err    error // one of the sentinels
}

func (e *FrameError) Error() string {
	return e.Err.Error() + " (at byte " + strconv.FormatInt(e.Offset, 10) + ")"
}

// Unwrap returns the sentinel.
func (e *FrameError) Unwrap() error { return e.Err }
