package xz

import (
	"bytes"
	"encoding/binary"

	"github.com/unpack-dev/unpack/internal/verify"
)

// The .xz file format, version 1.2.1 (https://tukaani.org/xz/xz-file-format.txt).

const (
	headerLen = 12 // stream header and stream footer
	maxVLI    = 1<<63 - 1
	// maxUnpadded is the largest Unpadded Size of a block (the whole block
	// must stay below 2^63 bytes).
	maxUnpadded = maxVLI &^ 3
	minUnpadded = 5
	maxFilters  = 4
)

var (
	headerMagic = []byte{0xFD, '7', 'z', 'X', 'Z', 0}
	footerMagic = []byte{'Y', 'Z'}
)

// Filter IDs.
const (
	idDelta    = 0x03
	idX86      = 0x04
	idPPC      = 0x05
	idIA64     = 0x06
	idARM      = 0x07
	idARMThumb = 0x08
	idSPARC    = 0x09
	idARM64    = 0x0A
	idRISCV    = 0x0B
	idLZMA2    = 0x21
)

// checkSize is the size of the check field for each of the 16 check IDs.
var checkSize = [16]int{0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64}

// checkKind maps the check IDs xz defines to verify kinds.
func checkKind(id byte) (verify.Kind, bool) {
	switch id {
	case 0x00:
		return verify.None, true
	case 0x01:
		return verify.CRC32, true
	case 0x04:
		return verify.CRC64, true
	case 0x0A:
		return verify.SHA256, true
	}
	return verify.None, false
}

// parseStreamFlags checks the two stream flag bytes and returns the check ID.
func parseStreamFlags(f []byte) (byte, error) {
	if f[0] != 0 || f[1]&0xF0 != 0 {
		return 0, ErrUnsupportedFlags
	}
	return f[1], nil
}

// parseStreamHeader checks a 12-byte stream header and returns its flags.
func parseStreamHeader(h []byte) ([2]byte, error) {
	if !bytes.Equal(h[:6], headerMagic) {
		return [2]byte{}, ErrHeaderMagic
	}
	if verify.SumCRC32(h[6:8]) != binary.LittleEndian.Uint32(h[8:]) {
		return [2]byte{}, ErrHeaderCRC
	}
	if _, err := parseStreamFlags(h[6:8]); err != nil {
		return [2]byte{}, err
	}
	return [2]byte{h[6], h[7]}, nil
}

// parseStreamFooter checks a 12-byte stream footer and returns its flags
// and the index size it records.
func parseStreamFooter(f []byte) (flags [2]byte, indexSize int64, err error) {
	if !bytes.Equal(f[10:], footerMagic) {
		return flags, 0, ErrFooterMagic
	}
	if verify.SumCRC32(f[4:10]) != binary.LittleEndian.Uint32(f) {
		return flags, 0, ErrHeaderCRC
	}
	if _, err := parseStreamFlags(f[8:10]); err != nil {
		return flags, 0, err
	}
	return [2]byte{f[8], f[9]}, (int64(binary.LittleEndian.Uint32(f[4:])) + 1) * 4, nil
}

// vli decodes a variable-length integer from b, returning it and its length.
// It fails on more than nine bytes, on a non-minimal encoding and when b
// ends inside the integer (errShort).
func vli(b []byte) (uint64, int, error) {
	var x uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0, errShort
		}
		c := b[i]
		x |= uint64(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, 0, ErrVLI
			}
			return x, i + 1, nil
		}
	}
	return 0, 0, ErrVLI
}

// errShort marks a field that runs past the end of its header.
var errShort = ErrBlockHeader

// filter is one entry of a block's filter chain.
type filter struct {
	id    uint64
	start uint32 // BCJ start offset
	dist  int    // delta distance
}

// blockHeader is a parsed block header.
type blockHeader struct {
	size       int   // header length in bytes
	compSize   int64 // -1 when not stored
	uncompSize int64 // -1 when not stored
	filters    [maxFilters]filter
	nfilters   int
	dictSize   int64 // LZMA2 dictionary size
}

// maxHeader is the longest block header.
const maxHeader = 1024

// parse parses a complete block header h (h[0] is the size byte) for a
// stream whose checks are checkLen bytes.
func (bh *blockHeader) parse(h []byte, checkLen int) error {
	n := len(h)
	if verify.SumCRC32(h[:n-4]) != binary.LittleEndian.Uint32(h[n-4:]) {
		return ErrHeaderCRC
	}
	flags := h[1]
	if flags&0x3C != 0 {
		return ErrUnsupportedFlags
	}
	*bh = blockHeader{size: n, compSize: -1, uncompSize: -1, nfilters: int(flags&3) + 1}
	p := h[2 : n-4]
	if flags&0x40 != 0 {
		v, k, err := vli(p)
		if err != nil {
			return err
		}
		// The whole block (header, data, check) must fit in maxUnpadded.
		if v == 0 || v > uint64(maxUnpadded-int64(n)-int64(checkLen)) {
			return ErrBlockSize
		}
		bh.compSize, p = int64(v), p[k:]
	}
	if flags&0x80 != 0 {
		v, k, err := vli(p)
		if err != nil {
			return err
		}
		if v > maxVLI {
			return ErrBlockSize
		}
		bh.uncompSize, p = int64(v), p[k:]
	}
	for i := 0; i < bh.nfilters; i++ {
		id, k, err := vli(p)
		if err != nil {
			return err
		}
		p = p[k:]
		psize, k, err := vli(p)
		if err != nil {
			return err
		}
		p = p[k:]
		if psize > uint64(len(p)) {
			return ErrBlockHeader
		}
		props := p[:psize]
		p = p[psize:]
		if err := bh.addFilter(i, id, props); err != nil {
			return err
		}
	}
	for _, c := range p {
		if c != 0 {
			return ErrUnsupportedHeader
		}
	}
	return nil
}

// addFilter validates filter i of the chain and records it.
func (bh *blockHeader) addFilter(i int, id uint64, props []byte) error {
	last := i == bh.nfilters-1
	f := filter{id: id}
	switch id {
	case idLZMA2:
		if !last || len(props) != 1 {
			return ErrUnsupportedFilter
		}
		d := props[0]
		if d > 40 {
			return ErrUnsupportedFilter
		}
		if d == 40 {
			bh.dictSize = 0xFFFFFFFF
		} else {
			bh.dictSize = int64(2|d&1) << (d/2 + 11)
		}
	case idDelta:
		if last || len(props) != 1 {
			return ErrUnsupportedFilter
		}
		f.dist = int(props[0]) + 1
	case idX86, idPPC, idIA64, idARM, idARMThumb, idSPARC, idARM64, idRISCV:
		if last {
			return ErrUnsupportedFilter
		}
		switch len(props) {
		case 0:
		case 4:
			f.start = binary.LittleEndian.Uint32(props)
			if f.start&(bcjAlign(id)-1) != 0 {
				return ErrUnsupportedFilter
			}
		default:
			return ErrUnsupportedFilter
		}
	default:
		return ErrUnsupportedFilter
	}
	bh.filters[i] = f
	return nil
}

// bcjAlign is the alignment a BCJ filter's start offset must have.
func bcjAlign(id uint64) uint32 {
	switch id {
	case idARMThumb, idRISCV:
		return 2
	case idPPC, idARM, idSPARC, idARM64:
		return 4
	case idIA64:
		return 16
	}
	return 1
}
