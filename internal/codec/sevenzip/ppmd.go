package sevenzip

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/ppmd"
)

// PPMd variant H as 7-Zip stores it: properties are the model order (one
// byte) and memory size (four bytes, little-endian); the range coder is
// 7-Zip's; the stream has the folder's size and may end with a marker.

var ppmdPool = sync.Pool{New: func() any { return new(ppmd.ModelH) }}

type ppmdReader struct {
	m    *ppmd.ModelH
	rc   ppmd.RangeDecoder
	left uint64
	err  error
}

func newPPMd(props []byte, in byteReadReader, size uint64, env *decodeEnv) (io.Reader, error) {
	if len(props) != 5 {
		return nil, archive.Corruptf("7z: bad PPMd properties")
	}
	order, mem := int(props[0]), int64(binary.LittleEndian.Uint32(props[1:]))
	// On a 32-bit system the model must also fit an int (up to 4 GiB is valid).
	if limit := min(env.limit, math.MaxInt-64); ppmd.Footprint(mem) > limit {
		return nil, archive.Limitf("7z: PPMd model of %d bytes (%d allocated) exceeds the memory limit of %d", mem, ppmd.Footprint(mem), limit)
	}
	m := ppmdPool.Get().(*ppmd.ModelH)
	if err := m.Reset(order, int(mem)); err != nil {
		ppmdPool.Put(m)
		return nil, err
	}
	env.pooled = append(env.pooled, func() { ppmdPool.Put(m) })
	p := &ppmdReader{m: m, left: size}
	if size > 0 {
		if err := p.rc.Init7z(in); err != nil {
			return nil, corrupt(err)
		}
	}
	return p, nil
}

func (p *ppmdReader) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if p.left == 0 {
		return 0, io.EOF
	}
	if uint64(len(b)) > p.left {
		b = b[:p.left]
	}
	n, err := p.m.Decode(&p.rc, b)
	p.left -= uint64(n)
	if err != nil {
		if errors.Is(err, ppmd.ErrEndMark) && p.left > 0 {
			err = ErrTruncated
		}
		p.err = corrupt(err)
		return n, p.err
	}
	return n, nil
}
