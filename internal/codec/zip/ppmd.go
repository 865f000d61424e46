package zip

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/ppmd"
)

// ppmdReader decodes a method 98 entry: PPMd variant I revision 1 (APPNOTE
// 5.8), a two-byte parameter word (order, memory size in MiB, restore
// method) and the range coder's data, which 7-Zip ends with the end
// marker. An entry of known size is decoded to that size; one streamed
// with its sizes in a data descriptor is decoded to the end marker.
type ppmdReader struct {
	m       *ppmd.ModelI
	rc      ppmd.RangeDecoder
	left    uint64
	unknown bool // size unknown: read to the end marker
	err     error
}

// newPPMd starts a PPMd entry, reusing the pipeline's model.
func (p *pipeline) newPPMd(src byteReader, h *header, limit int64) (io.Reader, error) {
	var w [2]byte
	if _, err := io.ReadFull(src, w[:]); err != nil {
		if h.usize == 0 && !h.usizeUnknown && err == io.EOF {
			return eofReader{}, nil
		}
		return nil, ErrTruncated
	}
	order, mem, restore := ppmd.ParamsI(binary.LittleEndian.Uint16(w[:]))
	if order < ppmd.MinOrder {
		return nil, archive.Corruptf("zip: ppmd: model order %d", order)
	}
	if restore > ppmd.RestoreCutOff {
		return nil, archive.Unsupportedf("zip: ppmd: restore method %d is not supported", restore)
	}
	if ppmd.Footprint(int64(mem)) > limit {
		return nil, archive.Limitf("zip: ppmd: model of %d MiB exceeds the memory limit of %d bytes", mem>>20, limit)
	}
	if p.ppmd == nil {
		p.ppmd = &ppmdReader{m: new(ppmd.ModelI)}
	}
	r := p.ppmd
	if err := r.m.Reset(order, mem, restore); err != nil {
		return nil, err
	}
	r.left, r.unknown, r.err = h.usize, h.usizeUnknown, nil
	if err := r.rc.InitI(src); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, ErrTruncated
		}
		return nil, archive.Corruptf("zip: ppmd: bad range coder start")
	}
	return r, nil
}

func (r *ppmdReader) Read(b []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if !r.unknown {
		if r.left == 0 {
			return 0, io.EOF
		}
		if uint64(len(b)) > r.left {
			b = b[:r.left]
		}
	}
	n, err := r.m.Decode(&r.rc, b)
	r.left -= uint64(n)
	switch {
	case err == nil:
	case errors.Is(err, ppmd.ErrEndMark) && r.unknown:
		r.err = io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		r.err = ErrTruncated
	case errors.Is(err, ppmd.ErrEndMark):
		r.err = ErrSize // the data ended before the size the header gives
	default:
		r.err = archive.Corruptf("zip: ppmd: %v", err)
	}
	if n > 0 && r.err == io.EOF {
		return n, nil
	}
	return n, r.err
}

// eofReader is the data of an empty entry.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
