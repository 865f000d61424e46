package zstdframe

import (
	"encoding/binary"
	"hash"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/unpack-dev/unpack/internal/verify"
)

// Config sets up a Reader. The zero value decodes on one goroutine with
// klauspost's default window limit.
type Config struct {
	// MaxWindow is the largest window (and so decoder memory) accepted;
	// 0 keeps the decoder's default. Larger frames fail with
	// zstd.ErrDecoderSizeExceeded.
	MaxWindow uint64
	// Threads is how many goroutines decode blocks ahead of the reader;
	// 0 or 1 decodes on the reader's goroutine.
	Threads int
}

// Reader decompresses a zstd stream of one or more frames, verifying each
// frame's Content_Checksum (when it has one) with verify's XXH64.
type Reader struct {
	w   walker
	dec *zstd.Decoder
	h   hash.Hash64
	err error // sticky
}

// NewReader returns a Reader of r's frames. It reads the first frame
// header, so a stream that is no zstd fails here.
func NewReader(r io.Reader, cfg Config) (*Reader, error) {
	opts := []zstd.DOption{
		zstd.IgnoreChecksum(true), // verified here, with verify.XXH64
		zstd.WithDecoderConcurrency(max(cfg.Threads, 1)),
		zstd.WithDecoderLowmem(false),
		zstd.WithDecoderMaxMemory(1 << 62), // the window limit is what bounds a stream
	}
	if cfg.MaxWindow > 0 {
		opts = append(opts, zstd.WithDecoderMaxWindow(cfg.MaxWindow))
	}
	dec, err := zstd.NewReader(nil, opts...)
	if err != nil {
		return nil, err
	}
	z := &Reader{dec: dec, h: verify.New(verify.XXH64).(hash.Hash64)}
	if err := z.Reset(r); err != nil {
		dec.Close()
		return nil, err
	}
	return z, nil
}

// Reset makes z read a new stream, reusing its decoder and buffers. It
// reads the first frame header.
func (z *Reader) Reset(r io.Reader) error {
	z.dec.Reset(nil) // see startFrame
	z.w.reset(r)
	z.err = nil
	return z.startFrame()
}

// startFrame moves to the next frame and points the decoder at it. At the
// clean end of the input it sets z.err to io.EOF.
func (z *Reader) startFrame() error {
	// Detach the decoder first: Reset(nil) waits for its stream goroutine,
	// which may still hold the walker, to finish.
	z.dec.Reset(nil)
	if err := z.w.next(); err != nil {
		z.err = err
		if err == io.EOF {
			return nil
		}
		return err
	}
	z.h.Reset()
	if err := z.dec.Reset(&z.w); err != nil {
		z.err = err
		return err
	}
	return nil
}

// Read returns decompressed bytes. At each frame's end it compares the
// frame's checksum; a mismatch is a *verify.MismatchError of kind XXH64
// with the 32 stored and computed bits.
func (z *Reader) Read(p []byte) (int, error) {
	for z.err == nil {
		n, err := z.dec.Read(p)
		if n > 0 {
			z.h.Write(p[:n])
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
		if err := z.startFrame(); err != nil {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, z.err
}

// decodeErr prefers the walker's error (a structural or input error the
// decoder saw as a short read) to the decoder's.
func (z *Reader) decodeErr(err error) error {
	if z.w.err != nil {
		return z.w.err
	}
	return err
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

// Close releases the decoder's goroutines; z cannot be used afterwards.
func (z *Reader) Close() error {
	z.dec.Close()
	return nil
}
