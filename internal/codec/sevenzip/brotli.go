package sevenzip

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/brotli"
)

// Brotli as the 7-Zip-zstd fork writes it: either one plain brotli stream,
// or (from its multithreaded encoder) frames each made of a 16-byte
// skippable-frame header — magic 0x184D2A50, content size 8, compressed
// size, "BR", an uncompressed size hint — followed by a brotli stream.

const (
	skippableMagic = 0x184D2A50
	brotliMagic    = 0x5242 // "BR" little-endian
)

type brotliReader struct {
	in     byteReadReader
	limit  int64 // the window buffer's memory limit
	dec    *brotli.Reader
	frame  io.LimitedReader
	framed bool
	err    error
}

func newBrotli(in byteReadReader, limit int64) io.Reader {
	return &brotliReader{in: in, limit: limit}
}

// next starts the next frame, or the single plain stream.
func (b *brotliReader) next() error {
	var hdr [16]byte
	n, err := io.ReadFull(b.in, hdr[:4])
	if n == 0 && err == io.EOF && b.framed {
		return io.EOF
	}
	if err != nil {
		return ErrTruncated
	}
	if binary.LittleEndian.Uint32(hdr[:]) != skippableMagic {
		if b.framed {
			return archive.Corruptf("7z: bad brotli frame header")
		}
		// A plain stream: hand back the 4 bytes.
		b.dec, err = brotli.NewReader(&prefixReader{hdr: append([]byte(nil), hdr[:4]...), r: b.in}, brotli.Config{MemLimit: b.limit})
		return err
	}
	if _, err := io.ReadFull(b.in, hdr[4:]); err != nil {
		return ErrTruncated
	}
	if binary.LittleEndian.Uint32(hdr[4:]) != 8 || binary.LittleEndian.Uint16(hdr[12:]) != brotliMagic {
		return archive.Corruptf("7z: bad brotli frame header")
	}
	b.framed = true
	b.frame = io.LimitedReader{R: b.in, N: int64(binary.LittleEndian.Uint32(hdr[8:]))}
	if b.dec == nil {
		b.dec, err = brotli.NewReader(&b.frame, brotli.Config{MemLimit: b.limit})
		return err
	}
	return b.dec.Reset(&b.frame)
}

func (b *brotliReader) Read(p []byte) (int, error) {
	for b.err == nil {
		if b.dec == nil {
			if b.err = b.next(); b.err != nil {
				break
			}
		}
		n, err := b.dec.Read(p)
		if err == io.EOF {
			if !b.framed {
				b.err = io.EOF
			} else if b.frame.N != 0 {
				b.err = archive.Corruptf("7z: brotli frame longer than its stream")
			} else {
				b.err = b.next() // io.EOF after the last frame
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			b.err = corrupt(err)
			return n, b.err
		}
		return n, nil
	}
	return 0, b.err
}

// prefixReader serves hdr, then r.
type prefixReader struct {
	hdr []byte
	r   io.Reader
}

func (p *prefixReader) Read(b []byte) (int, error) {
	if len(p.hdr) > 0 {
		n := copy(b, p.hdr)
		p.hdr = p.hdr[n:]
		return n, nil
	}
	return p.r.Read(b)
}
