package xz

import (
	"io"

	"github.com/unpack-dev/unpack/internal/codec/lzma"
)

// lzma2Decoder decodes the LZMA2 data of one block with our LZMA2 decoder,
// reused (dictionary included) from block to block.
type lzma2Decoder struct {
	r *lzma.Reader2
}

// reset starts decoding a new LZMA2 stream from r with a dictionary of
// dictSize bytes (already checked against the memory limit).
func (d *lzma2Decoder) reset(r io.Reader, dictSize int64) error {
	if d.r == nil {
		var err error
		d.r, err = lzma.NewReader2(r, dictSize)
		return err
	}
	return d.r.Reset(r, dictSize)
}

func (d *lzma2Decoder) Read(p []byte) (int, error) { return d.r.Read(p) }

// Next returns the next decoded bytes from the decoder's window.
func (d *lzma2Decoder) Next() ([]byte, error) { return d.r.Next() }

// decodeAll decodes a whole LZMA2 stream from r into dst, which serves as
// the dictionary (see lzma.Reader2.DecodeAll); a decoder used only this way
// never allocates a window.
func (d *lzma2Decoder) decodeAll(dst []byte, r io.Reader, dictSize int64) (int, error) {
	if d.r == nil {
		d.r = new(lzma.Reader2)
	}
	return d.r.DecodeAll(dst, r, dictSize)
}
