// Package zstdframe reads Zstandard streams (RFC 8878) with the frame
// checksums verified by internal/verify rather than inside the decoder.
//
// A walker follows the compressed bytes as the decoder reads them: it
// parses each frame header and block header (RFC 8878 §3.1.1), skips
// skippable frames (§3.1.2), hands the decoder exactly one frame followed by
// io.EOF, and keeps the frame's 4-byte Content_Checksum. The Reader decodes
// frame by frame, frames with a window of 2 MiB or more with our own
// decoder (internal/codec/zstd, on the reader's goroutine; amd64 with
// BMI2), the others with
// klauspost/compress/zstd (on the reader's goroutine, or for Read of large
// frames with Config.Threads > 1 on klauspost's concurrent pipeline), both
// with their own checksum switched off. It hashes the output of each frame
// that has a Content_Checksum with XXH64 and compares the low 32 bits with
// the stored value at the frame's end; a difference is a
// *verify.MismatchError of kind verify.XXH64. WriteTo writes the decoder's
// blocks straight from its window.
//
// # Security concerns
//
// The walker bounds every part of a frame before passing it: headers are at
// most 18 bytes, blocks at most 128 KiB (the format's Block_Maximum_Size);
// skippable frames are discarded through the walker's 18-byte header array.
// The decoder's window is bounded by Config.MaxWindow (archive.Options.Limit()).
package zstdframe

import "github.com/unpack-dev/unpack/internal/archive"

// Errors of the walker. Decoder errors (klauspost's) are given their
// category by errors.Is on klauspost's sentinels.
var (
	// ErrMagic: the bytes where a frame starts are no zstd or skippable
	// frame magic number.
	ErrMagic = archive.Corruptf("zstd: unknown frame magic")
	// ErrHeader: a frame header with its reserved bit set.
	ErrHeader = archive.Corruptf("zstd: bad frame header")
	// ErrBlock: a block of the reserved type, or larger than 128 KiB.
	ErrBlock = archive.Corruptf("zstd: bad block header")
	// ErrTruncated: the input ends inside a frame, or holds no frame.
	ErrTruncated = archive.Corruptf("zstd: unexpected end of data (truncated)")
	// ErrFrameEnd: the decoder finished a frame before the walker did, or
	// stopped short of the frame's end.
	ErrFrameEnd = archive.Corruptf("zstd: frame ends where its blocks do not")
)
