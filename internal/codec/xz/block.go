package xz

import (
	"errors"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/bcj"
)

// blockReader streams one block: compressed data → LZMA2 → filters, with
// the sizes checked as it goes. Its buffers are reused from block to block.
type blockReader struct {
	hdr   blockHeader
	index int64 // block number in the file, for messages
	in    blockInput
	lz    lzma2Decoder
	filt  [maxFilters - 1]bcj.Reader
	convs [maxFilters - 1]converters
	src   nexter // the end of the chain
	out   int64  // uncompressed bytes produced
}

// start begins decoding the block described by hdr from in.
func (b *blockReader) start(in *input, hdr *blockHeader, index int64) error {
	b.hdr, b.index, b.out = *hdr, index, 0
	b.in.reset(in, hdr.compSize)
	if err := b.lz.reset(&b.in, dictFor(hdr)); err != nil {
		return b.fail(err)
	}
	b.src = &b.lz
	// Decoding runs the filters in reverse order: LZMA2 (the last) first.
	for i := hdr.nfilters - 2; i >= 0; i-- {
		b.filt[i].Reset(b.src, b.convs[i].get(hdr.filters[i]))
		b.src = &b.filt[i]
	}
	return nil
}

// dictFor is the dictionary a block needs: its declared size, or less when
// the block's uncompressed size is known and smaller.
func dictFor(h *blockHeader) int64 {
	d := h.dictSize
	if h.uncompSize >= 0 && h.uncompSize < d {
		d = max(h.uncompSize, 4096)
	}
	return d
}

// nexter is a stage of the chain: the LZMA2 decoder or a filter, which
// hands out its decoded bytes from its own buffer.
type nexter interface {
	io.Reader
	Next() ([]byte, error)
}

// read reads decoded bytes; io.EOF marks the end of the block's data.
func (b *blockReader) read(p []byte) (int, error) {
	n, err := b.src.Read(p)
	return b.account(n, err)
}

// next returns the next decoded bytes from the last stage's buffer, valid
// until the next call; io.EOF marks the end of the block's data.
func (b *blockReader) next() ([]byte, error) {
	p, err := b.src.Next()
	n, err := b.account(len(p), err)
	return p[:n], err
}

// account counts n bytes produced and checks them against the declared
// size: of bytes past it, only those up to it are counted (and given
// out), with ErrBlockSize. It categorizes err.
func (b *blockReader) account(n int, err error) (int, error) {
	b.out += int64(n)
	if b.hdr.uncompSize >= 0 && b.out > b.hdr.uncompSize {
		n -= int(b.out - b.hdr.uncompSize)
		b.out = b.hdr.uncompSize
		return n, ErrBlockSize
	}
	if err != nil && err != io.EOF {
		err = b.fail(err)
	}
	return n, err
}

// fail prefers the input's own error (truncation, I/O) over the decoder's
// report of it, and gives decoder errors without a category ErrCorrupt.
func (b *blockReader) fail(err error) error {
	if b.in.err != nil {
		return b.in.err
	}
	return categorize(err, b.index)
}

// categorize gives err (from the LZMA2 decoder) the ErrCorrupt category
// unless it has one.
func categorize(err error, index int64) error {
	for _, kind := range []error{archive.ErrCorrupt, archive.ErrLimit, archive.ErrUnsupported} {
		if errors.Is(err, kind) {
			return err
		}
	}
	return &corruptError{block: index, err: err}
}

// finish checks the sizes after the decoder's end of data and returns the
// block's Unpadded Size.
func (b *blockReader) finish() (uint64, error) {
	h := &b.hdr
	if h.compSize >= 0 && b.in.n != h.compSize {
		return 0, ErrBlockSize
	}
	if h.uncompSize >= 0 && b.out != h.uncompSize {
		return 0, ErrBlockSize
	}
	unpadded := uint64(h.size) + uint64(b.in.n)
	if unpadded > maxUnpadded {
		return 0, ErrBlockSize
	}
	return unpadded, nil
}

// close returns the filter buffers to their pool.
func (b *blockReader) close() {
	for i := range b.filt {
		b.filt[i].Close()
	}
}
