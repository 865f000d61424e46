package xz

import (
	"io"

	"github.com/ulikunitz/xz/lzma"
)

// lzma2Decoder decodes the LZMA2 data of one block. Until our own decoder
// (internal/codec/lzma) is on main it wraps ulikunitz/xz/lzma's Reader2,
// which cannot be reset, so reset builds a new one.
//
// standInLZMA2 is true while that is so: the stand-in allocates on every
// match it decodes, so tests that guard our allocation budget skip.
const standInLZMA2 = true

type lzma2Decoder struct {
	r io.Reader
}

// reset starts decoding a new LZMA2 stream from r with a dictionary of
// dictSize bytes.
func (d *lzma2Decoder) reset(r io.Reader, dictSize int64) error {
	r2, err := lzma.Reader2Config{DictCap: int(max(dictSize, lzma.MinDictCap))}.NewReader2(r)
	if err != nil {
		return err
	}
	d.r = r2
	return nil
}

func (d *lzma2Decoder) Read(p []byte) (int, error) { return d.r.Read(p) }
