package zstdframe

import (
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"

	"github.com/unpack-dev/unpack/internal/archive"
	ownzstd "github.com/unpack-dev/unpack/internal/codec/zstd"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Config sets up a Reader. The zero value decodes on one goroutine with
// klauspost's default window limit.
type Config struct {
	// MaxWindow is the largest window (and so decoder memory) accepted;
	// 0 keeps the decoder's default. Larger frames fail with
	// zstd.ErrDecoderSizeExceeded.
	MaxWindow uint64
	// Threads is how many goroutines decode blocks of a large frame ahead
	// of Read; 0 or 1 decodes on the reader's goroutine, as WriteTo
	// always does.
	Threads int
	// LowMem makes the decoder keep smaller buffers, for the many small
	// streams of an archive's entries.
	LowMem bool
}

// smallFrame is the largest declared frame content for which decoding on
// the reader's goroutine is preferred to the concurrent decoder: starting
// and stopping its goroutines costs more than a small frame gains from them
// (files of many small frames, as pzstd or seekable zstd write them).
const smallFrame = 1 << 20

// ownMinWindow is the smallest window for which a frame goes to our own
// decoder (internal/codec/zstd) rather than klauspost's: from a huge page
// on, its window ring is on huge pages, and its far-match blocks load
// their sources ahead; none where ours runs without its assembly. Tests
// lower it to run every frame through ours.
var ownMinWindow int64 = ownWindow()

func ownWindow() int64 {
	if ownzstd.Fast() {
		return 2 << 20
	}
	return math.MaxInt64
}

// frameDecoder decodes one frame from the walker: klauspost's Decoder or
// our own.
type frameDecoder interface {
	Reset(io.Reader) error
	Read([]byte) (int, error)
	WriteTo(io.Writer) (int64, error)
}

// Reader decompresses a zstd stream of one or more frames, verifying each
// frame's Content_Checksum (when it has one) with verify's XXH64.
type Reader struct {
	w     walker
	cfg   Config
	sync  *zstd.Decoder    // decodes on the reader's goroutine
	async *zstd.Decoder    // decodes blocks ahead on cfg.Threads goroutines; nil for 1
	own   *ownzstd.Decoder // ours, made for the first frame that takes it
	cur   frameDecoder     // the one decoding the current frame
	h     hash.Hash64
	hw    hashWriter // the writer of WriteTo
	err   error      // sticky

	out, verified int64 // bytes given out; of those, covered by frame checksums passed
}

// Verified is how many decompressed bytes, from the start of the stream,
// are covered by frame checksums that passed: a reader of the data may
// trust those before the stream ends. (A frame without a checksum counts
// as checked at its end.)
func (z *Reader) Verified() int64 { return z.verified }

// NewReader returns a Reader of r's frames. It reads the first frame
// header, so a stream that is no zstd fails here.
func NewReader(r io.Reader, cfg Config) (*Reader, error) {
	z := &Reader{cfg: cfg, h: verify.New(verify.XXH64).(hash.Hash64)}
	var err error
	if z.sync, err = z.newDecoder(1); err == nil && cfg.Threads > 1 {
		z.async, err = z.newDecoder(cfg.Threads)
	}
	if err == nil {
		err = z.Reset(r)
	}
	if err != nil {
		z.Close()
		return nil, err
	}
	return z, nil
}

// newDecoder returns a klauspost decoder of cfg with its checksum off.
func (z *Reader) newDecoder(threads int) (*zstd.Decoder, error) {
	opts := []zstd.DOption{
		zstd.IgnoreChecksum(true), // verified here, with verify.XXH64
		zstd.WithDecoderConcurrency(threads),
		zstd.WithDecoderLowmem(z.cfg.LowMem),
		zstd.WithDecoderMaxMemory(1 << 62), // the window limit is what bounds a stream
	}
	if z.cfg.MaxWindow > 0 {
		opts = append(opts, zstd.WithDecoderMaxWindow(z.cfg.MaxWindow))
	}
	return zstd.NewReader(nil, opts...)
}

// Reset makes z read a new stream, reusing its decoders. It reads the
// first frame header.
func (z *Reader) Reset(r io.Reader) error {
	z.detach()
	z.w.reset(r)
	z.err = nil
	z.out, z.verified = 0, 0
	return z.startFrame()
}

// detach stops the decoder of the last frame: Reset(nil) waits for its
// stream goroutine, which may still hold the walker, to finish.
func (z *Reader) detach() {
	if z.cur != nil {
		z.cur.Reset(nil)
		z.cur = nil
	}
}

// startFrame moves to the next frame and reads its header; the frame's
// first Read or WriteTo points a decoder at it (begin). At the clean end of
// the input it sets z.err to io.EOF.
func (z *Reader) startFrame() error {
	z.detach()
	if err := z.w.next(); err != nil {
		z.err = err
		if err == io.EOF {
			return nil
		}
		return err
	}
	z.h.Reset()
	return nil
}

// begin points a decoder at the current frame, which no decoder has
// started. Read (pipeline true) takes the concurrent decoder for a frame
// over smallFrame or of unknown size; WriteTo takes the one on the
// reader's goroutine, which returns its blocks straight from its window
// (the pipeline copies each one out).
func (z *Reader) begin(pipeline bool) error {
	switch {
	case z.w.window >= ownMinWindow && !z.cfg.LowMem:
		if z.own == nil {
			z.own = ownzstd.NewDecoder(ownzstd.Options{MaxWindow: z.cfg.MaxWindow, IgnoreChecksum: true})
		}
		z.cur = z.own
	case pipeline && z.async != nil && (z.w.contentSize < 0 || z.w.contentSize > smallFrame):
		z.cur = z.async
	default:
		z.cur = z.sync
	}
	if err := z.cur.Reset(&z.w); err != nil {
		z.err = z.decodeErr(err)
		return z.err
	}
	return nil
}

// Read returns decompressed bytes. At each frame's end it compares the
// frame's checksum; a mismatch is a *verify.MismatchError of kind XXH64
// with the 32 stored and computed bits.
func (z *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 && z.err == nil {
		return 0, nil
	}
	for z.err == nil {
		if z.cur == nil && z.begin(true) != nil {
			break
		}
		n, err := z.cur.Read(p)
		if n > 0 {
			if z.w.hasSum {
				z.h.Write(p[:n])
			}
			z.out += int64(n)
		}
		if err == nil {
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != io.EOF {
			z.err = z.decodeErr(err)
			return n, z.err
		}
		if err := z.endFrame(); err != nil {
			z.err = err
			return n, err
		}
		z.verified = z.out
		if err := z.startFrame(); err != nil {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, z.err
}

// WriteTo writes the decompressed bytes to w straight from the decoder's
// window (klauspost's Decoder.WriteTo), hashing each block as it is
// written, and checks every frame's checksum as Read does. Frames it
// starts decode on the caller's goroutine whatever Config.Threads says
// (see begin). An error of w is returned as it is and ends the stream.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	z.hw.w, z.hw.err = w, nil
	defer func() { z.hw.w = nil }()
	var total int64
	for z.err == nil {
		if z.cur == nil && z.begin(false) != nil {
			break
		}
		z.hw.h = nil
		if z.w.hasSum {
			z.hw.h = z.h
		}
		n, err := z.cur.WriteTo(&z.hw)
		total += n
		z.out += n
		if err != nil {
			if z.hw.err != nil {
				z.err = z.hw.err
			} else {
				z.err = z.decodeErr(err)
			}
			return total, z.err
		}
		if err := z.endFrame(); err != nil {
			z.err = err
			return total, err
		}
		z.verified = z.out
		if err := z.startFrame(); err != nil {
			return total, err
		}
	}
	if z.err == io.EOF {
		return total, nil
	}
	return total, z.err
}

// hashWriter hashes what it writes (when h is not nil: the frame has a
// checksum), and remembers its writer's error.
type hashWriter struct {
	w   io.Writer
	h   hash.Hash64
	err error
}

func (hw *hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	if hw.h != nil {
		hw.h.Write(p[:n])
	}
	if err != nil {
		hw.err = err
	}
	return n, err
}

// Trailing reports the bytes that followed the last frame and were no
// frame: where they start in the input and how many there were (0 when
// none). The Reader ends with io.EOF after the last frame's checks.
func (z *Reader) Trailing() (offset, size int64) { return z.w.trailOff, z.w.trailLen }

// decodeErr prefers the walker's error (a structural or input error the
// decoder saw as a short read) to the decoder's, and gives the decoder's
// its category: a window or size over the limit is archive.ErrLimit, the
// rest corrupt data.
func (z *Reader) decodeErr(err error) error {
	switch {
	case z.w.err != nil:
		return z.w.err
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return archive.Errorf(archive.ErrLimit, "zstd: %w", err)
	}
	return archive.Decoded("zstd", err)
}

// endFrame checks, after the decoder's io.EOF, that the walker passed the
// whole frame and that its checksum matches.
func (z *Reader) endFrame() error {
	if z.w.err != nil {
		return z.w.err
	}
	if !z.w.atEnd() {
		return ErrFrameEnd
	}
	if !z.w.hasSum {
		return nil
	}
	got := uint32(z.h.Sum64())
	if got == z.w.sum {
		return nil
	}
	return &verify.MismatchError{Kind: verify.XXH64,
		Want: binary.BigEndian.AppendUint32(nil, z.w.sum),
		Got:  binary.BigEndian.AppendUint32(nil, got)}
}

// Close releases the decoders' goroutines; z cannot be used afterwards.
func (z *Reader) Close() error {
	for _, d := range []*zstd.Decoder{z.sync, z.async} {
		if d != nil {
			d.Close()
		}
	}
	return nil
}
