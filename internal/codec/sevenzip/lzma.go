package sevenzip

import (
	"io"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzma"
)

// Decoders are pooled: their windows and probability tables are reused by
// the next folder (Reset keeps a window that is large enough).
var (
	lzma1Pool = sync.Pool{New: func() any { return new(lzma.Reader1) }}
	lzma2Pool = sync.Pool{New: func() any { return new(lzma.Reader2) }}
)

// byteReadReader is an io.Reader that is also an io.ByteReader.
type byteReadReader interface {
	io.Reader
	io.ByteReader
}

// newLZMA decodes raw LZMA with 7z's 5-byte properties (lc/lp/pb, dictionary).
func newLZMA(props []byte, r byteReadReader, size uint64, env *decodeEnv) (io.Reader, error) {
	if len(props) != 5 {
		return nil, archive.Corruptf("7z: bad LZMA properties")
	}
	p, err := lzma.ParseProps(props)
	if err != nil {
		return nil, err
	}
	if err := lzma.DictLimit(int64(min(uint64(p.DictSize), size)), env.limit); err != nil {
		return nil, err
	}
	d := lzma1Pool.Get().(*lzma.Reader1)
	if err := d.Reset(r, p, int64(size)); err != nil {
		lzma1Pool.Put(d)
		return nil, err
	}
	env.pooled = append(env.pooled, func() { lzma1Pool.Put(d) })
	return d, nil
}

// newLZMA2 decodes LZMA2 with 7z's 1-byte property (dictionary size).
func newLZMA2(props []byte, r byteReadReader, size uint64, env *decodeEnv) (io.Reader, error) {
	if len(props) != 1 || props[0] > 40 {
		return nil, archive.Corruptf("7z: bad LZMA2 properties")
	}
	dict := min(lzma2Dict(props[0]), int64(size))
	if err := lzma.DictLimit(dict, env.limit); err != nil {
		return nil, err
	}
	d := lzma2Pool.Get().(*lzma.Reader2)
	if err := d.Reset(r, dict); err != nil {
		lzma2Pool.Put(d)
		return nil, err
	}
	env.pooled = append(env.pooled, func() { lzma2Pool.Put(d) })
	return d, nil
}
