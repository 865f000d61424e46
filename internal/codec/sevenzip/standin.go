package sevenzip

import (
	"encoding/binary"
	"io"

	"github.com/ulikunitz/xz/lzma"

	"github.com/unpack-dev/unpack/internal/archive"
)

// The LZMA and LZMA2 decoders here are ulikunitz/xz, a stand-in until
// internal/codec/lzma lands on main.

// newLZMA decodes raw LZMA with 7z's 5-byte properties (lc/lp/pb, dictionary).
func newLZMA(props []byte, r byteReadReader, size uint64, limit int64) (io.Reader, error) {
	if len(props) != 5 || props[0] >= 9*5*5 {
		return nil, archive.Corruptf("7z: bad LZMA properties")
	}
	dict := int64(binary.LittleEndian.Uint32(props[1:]))
	if dict > limit {
		return nil, archive.Limitf("7z: LZMA dictionary of %d bytes exceeds the memory limit of %d", dict, limit)
	}
	dict = min(dict, int64(size))
	dict = max(dict, lzma.MinDictCap)
	var hdr [13]byte
	hdr[0] = props[0]
	binary.LittleEndian.PutUint32(hdr[1:], uint32(dict))
	binary.LittleEndian.PutUint64(hdr[5:], size)
	d, err := lzma.ReaderConfig{DictCap: int(dict)}.NewReader(&prefixReader{hdr: hdr[:], r: r})
	if err != nil {
		return nil, corrupt(err)
	}
	return d, nil
}

// newLZMA2 decodes LZMA2 with 7z's 1-byte property (dictionary size).
func newLZMA2(props []byte, r io.Reader, size uint64, limit int64) (io.Reader, error) {
	if len(props) != 1 || props[0] > 40 {
		return nil, archive.Corruptf("7z: bad LZMA2 properties")
	}
	dict := lzma2Dict(props[0])
	if dict > limit {
		return nil, archive.Limitf("7z: LZMA2 dictionary of %d bytes exceeds the memory limit of %d", dict, limit)
	}
	dict = min(dict, int64(size))
	dict = max(dict, lzma.MinDictCap)
	d, err := lzma.Reader2Config{DictCap: int(dict)}.NewReader2(r)
	if err != nil {
		return nil, corrupt(err)
	}
	return d, nil
}

// byteReadReader is an io.Reader that is also an io.ByteReader.
type byteReadReader interface {
	io.Reader
	io.ByteReader
}

// prefixReader serves hdr, then r, as a byte reader.
type prefixReader struct {
	hdr []byte
	r   byteReadReader
}

func (p *prefixReader) Read(b []byte) (int, error) {
	if len(p.hdr) > 0 {
		n := copy(b, p.hdr)
		p.hdr = p.hdr[n:]
		return n, nil
	}
	return p.r.Read(b)
}

func (p *prefixReader) ReadByte() (byte, error) {
	if len(p.hdr) > 0 {
		c := p.hdr[0]
		p.hdr = p.hdr[1:]
		return c, nil
	}
	return p.r.ReadByte()
}
