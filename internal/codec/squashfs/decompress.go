package squashfs

import (
	"bytes"
	"encoding/binary"
	"hash"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/inflate"
	"github.com/unpack-dev/unpack/internal/codec/lz4"
	"github.com/unpack-dev/unpack/internal/codec/lzma"
	"github.com/unpack-dev/unpack/internal/codec/lzo"
	"github.com/unpack-dev/unpack/internal/codec/xz"
	"github.com/unpack-dev/unpack/internal/codec/zstdframe"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Compressors (squashfs superblock compression IDs).
const (
	compGzip = 1
	compLZMA = 2
	compLZO  = 3
	compXZ   = 4
	compLZ4  = 5
	compZstd = 6
)

var compNames = map[uint16]string{compGzip: "gzip", compLZMA: "lzma", compLZO: "lzo", compXZ: "xz", compLZ4: "lz4", compZstd: "zstd"}

// decompressor decodes one block into dst (whose length bounds the
// output) and returns the output's length. Each goroutine has its own.
type decompressor interface {
	decompress(dst, src []byte) (int, error)
}

func newDecompressor(id uint16, limit int64) (decompressor, error) {
	switch id {
	case compGzip:
		return &zlibDec{}, nil
	case compXZ:
		return &streamDec{open: func(r io.Reader) (io.Reader, error) {
			return xz.NewReader(r, xz.Config{MemLimit: limit, Threads: 1})
		}}, nil
	case compLZMA:
		return &streamDec{open: func(r io.Reader) (io.Reader, error) { return lzma.NewAloneReader(r, limit) }}, nil
	case compZstd:
		return &streamDec{open: func(r io.Reader) (io.Reader, error) {
			return zstdframe.NewReader(r, zstdframe.Config{MaxWindow: uint64(limit), Threads: 1})
		}}, nil
	case compLZ4:
		return lz4Dec{}, nil
	case compLZO:
		return lzoDec{}, nil
	}
	if name, ok := compNames[id]; ok {
		return nil, archive.Unsupportedf("squashfs: %s compression", name)
	}
	return nil, archive.Corruptf("squashfs: compression %d", id)
}

// zlibDec decodes zlib streams, checking their Adler-32.
type zlibDec struct {
	inf   *inflate.Inflater
	adler hash.Hash32
}

func (z *zlibDec) decompress(dst, src []byte) (int, error) {
	if len(src) < 6 || src[0]&0x0F != 8 || src[0]>>4 > 7 || src[1]&0x20 != 0 || (uint16(src[0])<<8|uint16(src[1]))%31 != 0 {
		return 0, archive.Corruptf("squashfs: block without a zlib header")
	}
	if z.inf == nil {
		z.inf = inflate.NewInflater(bytes.NewReader(src[2:]), false)
		z.adler = verify.New(verify.Adler32).(hash.Hash32)
	} else {
		z.inf.Reset(bytes.NewReader(src[2:]))
	}
	n, err := readFull(z.inf, dst)
	if err != nil {
		return n, err
	}
	rest := z.inf.Rest()
	if len(rest) < 4 {
		return n, archive.Corruptf("squashfs: zlib block without its Adler-32")
	}
	z.adler.Reset()
	z.adler.Write(dst[:n])
	if want, got := binary.BigEndian.Uint32(rest), z.adler.Sum32(); want != got {
		return n, &verify.MismatchError{Kind: verify.Adler32,
			Want: binary.BigEndian.AppendUint32(nil, want), Got: binary.BigEndian.AppendUint32(nil, got)}
	}
	return n, nil
}

// readFull reads r to its end into dst; more than dst holds is corrupt.
func readFull(r io.Reader, dst []byte) (int, error) {
	n, err := io.ReadFull(r, dst)
	switch err {
	case io.EOF, io.ErrUnexpectedEOF:
		return n, nil
	case nil:
		var one [1]byte
		if m, err := r.Read(one[:]); m > 0 || err != io.EOF {
			if err != nil && err != io.EOF {
				return n, err
			}
			return n, archive.Corruptf("squashfs: a block decodes to more than %d bytes", len(dst))
		}
		return n, nil
	}
	return n, err
}

// streamDec decodes blocks that are whole streams of a format with its
// own reader (xz, LZMA-alone, zstd).
type streamDec struct {
	open func(io.Reader) (io.Reader, error)
}

func (s *streamDec) decompress(dst, src []byte) (int, error) {
	r, err := s.open(bytes.NewReader(src))
	if err != nil {
		return 0, err
	}
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}
	return readFull(r, dst)
}

type lz4Dec struct{}

func (lz4Dec) decompress(dst, src []byte) (int, error) { return lz4.DecodeBlock(dst, src) }

// lzoDec decodes LZO1X blocks (lzo1x_1 and lzo1x_999 write the same
// format), which carry no check of their own.
type lzoDec struct{}

func (lzoDec) decompress(dst, src []byte) (int, error) {
	n, ok := lzo.Decompress1X(dst, src)
	if !ok {
		return 0, archive.Corruptf("squashfs: an LZO block does not decode into %d bytes", len(dst))
	}
	return n, nil
}
