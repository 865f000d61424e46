package formats

import (
	"io"
	"runtime"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/brotli"
	"github.com/unpack-dev/unpack/internal/codec/bzip2"
	"github.com/unpack-dev/unpack/internal/codec/gzip"
	"github.com/unpack-dev/unpack/internal/codec/lz4"
	"github.com/unpack-dev/unpack/internal/codec/lzip"
	"github.com/unpack-dev/unpack/internal/codec/lzma"
	"github.com/unpack-dev/unpack/internal/codec/lzop"
	"github.com/unpack-dev/unpack/internal/codec/lzw"
	"github.com/unpack-dev/unpack/internal/codec/xz"
	"github.com/unpack-dev/unpack/internal/codec/zstdframe"
)

// StreamOpener returns a reader of the decompressed bytes of a single-stream
// format, verifying everything the format carries. Close, when the result
// is an io.Closer, releases decoder resources.
type StreamOpener func(r io.Reader, opt *archive.Options) (io.Reader, error)

// streams maps each single-stream format to its decoder.
var streams = map[archive.Format]StreamOpener{
	archive.Gzip:     openGzip,
	archive.Zstd:     openZstd,
	archive.Bzip2:    openBzip2,
	archive.Brotli:   openBrotli,
	archive.LZ4:      openLZ4,
	archive.XZ:       openXZ,
	archive.LZMA:     openLZMA,
	archive.Lzip:     openLzip,
	archive.Compress: openCompress,
	archive.Lzop:     openLzop,
}

// streamInput is, for a decoder that reads its input a whole block at a
// time into buffers of its own, the smaller input buffer a file gets
// instead of the usual 1 MiB one: reads of large blocks go straight to the
// file, and headers and small blocks are still buffered, with a quarter of
// the memory touched (and the 1 MiB never allocated: with the decoder's
// own buffers it would take the heap past the collector's first goal).
var streamInput = map[archive.Format]int{
	archive.LZ4:  64 << 10,
	archive.Zstd: 64 << 10,
	archive.Lzop: 64 << 10,
	// Images are read through in.RA only: the buffer is never filled.
	archive.ISO:      4 << 10,
	archive.Squashfs: 4 << 10,
}

// inputSize is the input buffer of a file of format f read from its start.
func inputSize(f archive.Format) int {
	if n := streamInput[f]; n > 0 {
		return n
	}
	return 1 << 20
}

func openGzip(r io.Reader, opt *archive.Options) (io.Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	cfg := gzip.Config{Threads: opt.Threads, MemLimit: opt.Limit()}
	if opt.Threads <= 0 {
		// By default a member goes parallel (gzip's parallel.go) past
		// 4 MiB of input, on up to 4 threads: the parallel decode costs
		// about 10 ms of CPU to start (its memory's first touch) and
		// 1.3x one thread's CPU per byte, which two cores pay back on
		// members longer than that (docs/BENCHMARKS.md). --threads N
		// asks for N from 256 KiB on; --threads 1 decodes on one.
		cfg.Threads, cfg.After = min(runtime.GOMAXPROCS(0), 4), 4<<20
	}
	z, err := gzip.NewReaderConfig(r, cfg)
	if err != nil {
		return nil, err
	}
	return z, nil
}

func openZstd(r io.Reader, opt *archive.Options) (io.Reader, error) {
	// zstdframe verifies each frame's XXH64 with internal/verify. Read (a
	// tar.zst's entries) decodes large frames on klauspost's pipeline, whose
	// goroutines decode blocks ahead of the one being executed (each in
	// flight holds one block); WriteTo (x -c, a single file) decodes on the
	// caller's goroutine whatever Threads says, which costs less CPU for the
	// same wall time (docs/BENCHMARKS.md).
	z, err := zstdframe.NewReader(r, zstdframe.Config{
		MaxWindow: uint64(opt.Limit()),
		Threads:   decoderThreads(opt),
	})
	if err != nil {
		return nil, err
	}
	return z, nil
}

// decoderThreads is how many goroutines a block-parallel stream decoder
// may use: Options.Threads, else GOMAXPROCS, at most 4 (beyond that the
// writer, not decoding, is the bottleneck and memory grows per block).
func decoderThreads(opt *archive.Options) int {
	n := opt.Threads
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return min(n, 4)
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

func openCompress(r io.Reader, _ *archive.Options) (io.Reader, error) {
	z, err := lzw.NewReader(r)
	if err != nil {
		return nil, err
	}
	return z, nil
}

func openLzop(r io.Reader, opt *archive.Options) (io.Reader, error) {
	z, err := lzop.NewReader(r, opt.Limit())
	if err != nil {
		return nil, err
	}
	z.SetThreads(decoderThreads(opt))
	return z, nil
}
