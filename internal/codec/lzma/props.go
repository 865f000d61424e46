package lzma

import "encoding/binary"

// Props are the parameters of an LZMA stream: the number of literal context
// bits LC (0..8), literal position bits LP (0..4), position bits PB (0..4)
// and the dictionary size in bytes.
type Props struct {
	LC, LP, PB int
	DictSize   uint32
}

// ParseProps decodes the 5-byte property form that .lzma headers, 7z coder
// properties and zip's LZMA header use: one byte (PB*5+LP)*9+LC followed by
// the dictionary size, little-endian.
func ParseProps(b []byte) (Props, error) {
	if len(b) < 5 {
		return Props{}, ErrProps
	}
	var p Props
	if err := p.setByte(b[0]); err != nil {
		return Props{}, err
	}
	p.DictSize = binary.LittleEndian.Uint32(b[1:])
	return p, nil
}

// setByte sets LC, LP and PB from the properties byte (PB*5+LP)*9+LC.
func (p *Props) setByte(c byte) error {
	if c >= 9*5*5 {
		return ErrProps
	}
	p.LC = int(c % 9)
	c /= 9
	p.LP = int(c % 5)
	p.PB = int(c / 5)
	return nil
}

func (p Props) valid() bool {
	return p.LC >= 0 && p.LC <= 8 && p.LP >= 0 && p.LP <= 4 && p.PB >= 0 && p.PB <= 4
}

const (
	// minDict is the smallest dictionary the decoder allocates, as the
	// reference decoders do.
	minDict = 4096
	// winSlack is how far the window extends beyond the dictionary: match
	// copies may write up to 8 bytes past their end, and those bytes must
	// lie farther back than any valid distance. A multiple of 16 keeps the
	// window a multiple of 1<<PB and 1<<LP so positions inside the circular
	// window give the same low bits as absolute positions.
	winSlack = 32
	// maxDict is the largest dictionary LZMA can describe (4 GiB - 1),
	// rounded as dictCap rounds.
	maxDict = 1<<32 - 16
)

// dictCap is the dictionary size the decoder enforces for a declared size:
// at least minDict and rounded up to a multiple of 16 (as liblzma does).
func dictCap(size int64) int64 {
	if size < minDict {
		size = minDict
	}
	if size > maxDict {
		size = maxDict
	}
	return (size + 15) &^ 15
}

// DictSize2 decodes the one-byte LZMA2 dictionary size of xz filter
// properties and 7z coder properties: 2 or 3 times a power of two from
// 4 KiB up to 3 GiB (0..39), or 4 GiB - 1 (40). Larger values are ErrProps.
func DictSize2(b byte) (int64, error) {
	switch {
	case b > 40:
		return 0, ErrProps
	case b == 40:
		return 0xFFFFFFFF, nil
	}
	return int64(2|b&1) << (b/2 + 11), nil
}
