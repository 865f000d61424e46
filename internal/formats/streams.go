package formats

import (
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/brotli"
	"github.com/unpack-dev/unpack/internal/codec/bzip2"
	"github.com/unpack-dev/unpack/internal/codec/gzip"
	"github.com/unpack-dev/unpack/internal/codec/lz4"
	"github.com/unpack-dev/unpack/internal/codec/lzip"
	"github.com/unpack-dev/unpack/internal/codec/lzma"
	"github.com/unpack-dev/unpack/internal/codec/xz"
	"github.com/unpack-dev/unpack/internal/codec/zstdframe"
)

// StreamOpener returns a reader of the decompressed bytes of a single-stream
// format, verifying everything the format carries. Close, when the result
// is an io.Closer, releases decoder resources.
type StreamOpener func(r io.Reader, opt *archive.Options) (io.Reader, error)

// streams maps each single-stream format to its decoder.
var streams = map[archive.Format]StreamOpener{
	archive.Gzip:   openGzip,
	archive.Zstd:   openZstd,
	archive.Bzip2:  openBzip2,
	archive.Brotli: openBrotli,
	archive.LZ4:    openLZ4,
	archive.XZ:     openXZ,
	archive.LZMA:   openLZMA,
	archive.Lzip:   openLzip,
}

// streamInput is, for a decoder that reads its input a whole block at a
// time into buffers of its own, the smaller input buffer it gets instead of
// Open's 1 MiB one, when that one holds nothing yet: reads of large blocks
// go straight to the file, and headers and small blocks are still
// buffered, with a quarter of the memory touched.
var streamInput = map[archive.Format]int{
	archive.LZ4:  64 << 10,
	archive.Zstd: 64 << 10,
}

// steadyStreams are the formats whose decoders allocate nothing per block
// once open, as TestStreamSteadyStateAllocs and TestStreamWriteToAllocs
// check: all their memory is allocated as they open and stays live.
var steadyStreams = map[archive.Format]bool{
	archive.Gzip:   true,
	archive.Zstd:   true,
	archive.LZ4:    true,
	archive.Brotli: true,
}

func openGzip(r io.Reader, _ *archive.Options) (io.Reader, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	return z, nil
}

func openZstd(r io.Reader, opt *archive.Options) (io.Reader, error) {
	// zstdframe verifies each frame's XXH64 with internal/verify.
	z, err := zstdframe.NewReader(r, zstdframe.Config{
		MaxWindow: uint64(opt.Limit()),
		Threads:   zstdThreads(opt),
	})
	if err != nil {
		return nil, err
	}
	return z, nil
}

// zstdThreads is how many goroutines klauspost's zstd decoder uses: one,
// on the reader's goroutine, unless Options.Threads asks for more (at most
// 4; beyond that the writer is the bottleneck and memory grows per block).
// The concurrent decoder is a pipeline (literals, sequences, execution on
// three goroutines, each block copied out of the window), not independent
// work, and only the one-goroutine decoder's window can be put on huge
// pages (zstdframe's WriteTo: ~2900 page faults per decode become ~1100).
// Measured on the make bench inputs (x -c, task-clock, medians of 21
// interleaved runs, load average 7-8; one goroutine / pipeline / zstd -dc):
// 32 MiB text 135 / 138 / 165 ms, binary 91 / 132 / 110, mixed 231 / 206 /
// 222; 100 MiB text 544 / 394 / 629, binary 487 / 433 / 540. The one
// goroutine has the best worst case against zstd -dc (mixed 0.96 in this
// run, 1.17-1.23 in two others; the pipeline's binary 0.83); under this
// load the pipeline gains on long inputs, its separate execution loop
// keeping more cache misses in flight than the fused decode-and-execute
// loop (at load ~1 the two were even on text and mixed in-process).
func zstdThreads(opt *archive.Options) int {
	if opt.Threads > 1 {
		return min(opt.Threads, 4)
	}
	return 1
}

func openBzip2(r io.Reader, opt *archive.Options) (io.Reader, error) {
	return bzip2.NewReader(r, bzip2.Config{Threads: opt.Threads, MemLimit: opt.Limit()})
}

func openBrotli(r io.Reader, opt *archive.Options) (io.Reader, error) {
	z, err := brotli.NewReader(r, brotli.Config{MemLimit: opt.Limit()})
	if err != nil {
		return nil, err
	}
	return z, nil
}

func openLZ4(r io.Reader, opt *archive.Options) (io.Reader, error) {
	return lz4.NewReader(r, lz4.Config{MemLimit: opt.Limit()})
}

func openXZ(r io.Reader, opt *archive.Options) (io.Reader, error) {
	// The xz reader's one warning is a check type it cannot verify.
	return xz.NewReader(r, xz.Config{MemLimit: opt.Limit(), Threads: opt.Threads, Warn: opt.Unverifiedf})
}

func openLZMA(r io.Reader, opt *archive.Options) (io.Reader, error) {
	return lzma.NewAloneReader(r, opt.Limit())
}

func openLzip(r io.Reader, opt *archive.Options) (io.Reader, error) {
	return lzip.NewReader(r, opt.Limit())
}
