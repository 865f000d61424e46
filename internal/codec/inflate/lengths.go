package inflate

import "errors"

// The order code length code lengths are sent in.
var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// errNoInput means the bits ran out; the decoder has already recorded why.
var errNoInput = errors.New("inflate: input ended")

// bitSource is what reading block headers needs from a decoder: raw bits,
// byte alignment, and a table for the code length code that it builds and
// decodes with. Both decoders implement it with their own table kind.
type bitSource interface {
	bits(n uint) (uint32, bool)
	alignToByte()
	buildCodeLengthCode(cl []uint8) bool
	codeLengthSym() (uint32, bool)
}

// Block types.
const (
	blockStored = iota
	blockFixed
	blockDynamic
)

// readBlockHeader reads a block's 3-bit header and, for a stored block,
// its length and the length's complement. The error is ErrStoredLength,
// ErrBlockType or errNoInput.
func readBlockHeader(s bitSource) (final bool, typ uint32, storedLen int, err error) {
	v, ok := s.bits(3)
	if !ok {
		return false, 0, 0, errNoInput
	}
	final, typ = v&1 != 0, v>>1
	switch typ {
	case blockStored:
		s.alignToByte()
		v, ok := s.bits(32)
		if !ok {
			return false, 0, 0, errNoInput
		}
		if uint16(v) != ^uint16(v>>16) {
			return false, 0, 0, ErrStoredLength
		}
		storedLen = int(uint16(v))
	case blockFixed, blockDynamic:
	default:
		return false, 0, 0, ErrBlockType
	}
	return final, typ, storedLen, nil
}

// codeLengths holds a dynamic block's code lengths while its tables are
// built (in the decoder, so nothing escapes per block).
type codeLengths struct {
	all [288 + 32]uint8 // literal/length codes, then distance codes
	cl  [19]uint8       // the code length code
}

// readCodeLengths reads a dynamic block header into c and returns the
// counts of literal/length and distance codes. The error is ErrCodeLengths
// for an invalid header and errNoInput when the input ran out.
func readCodeLengths(s bitSource, c *codeLengths, d64 bool) (nlit, ndist int, err error) {
	v, ok := s.bits(14)
	if !ok {
		return 0, 0, errNoInput
	}
	nlit, ndist, nclen, err := codeCounts(v, d64)
	if err != nil {
		return 0, 0, err
	}
	cl := &c.cl
	*cl = [19]uint8{}
	for i := range nclen {
		v, ok := s.bits(3)
		if !ok {
			return 0, 0, errNoInput
		}
		cl[codeOrder[i]] = uint8(v)
	}
	if !s.buildCodeLengthCode(cl[:]) {
		return 0, 0, ErrCodeLengths
	}
	all := c.all[:nlit+ndist]
	for i := 0; i < len(all); {
		sym, ok := s.codeLengthSym()
		if !ok {
			return 0, 0, errNoInput
		}
		if sym < 16 {
			all[i] = uint8(sym)
			i++
			continue
		}
		v, ok := s.bits(repeatWidth(sym))
		if !ok {
			return 0, 0, errNoInput
		}
		if i, err = repeatLengths(all, i, sym, v); err != nil {
			return 0, 0, err
		}
	}
	if all[256] == 0 {
		return 0, 0, ErrCodeLengths
	}
	return nlit, ndist, nil
}

// The parts of reading a dynamic block's code lengths that both readers
// share (readCodeLengths, Inflater.fastCodeLengths): they differ only in
// how they take bits.

// codeCounts decodes the first 14 bits of a dynamic block header: the
// counts of literal/length, distance and code length code lengths.
func codeCounts(v uint32, d64 bool) (nlit, ndist, nclen int, err error) {
	nlit = int(v&0x1f) + 257
	ndist = int(v>>5&0x1f) + 1
	nclen = int(v>>10) + 4
	if nlit > 286 || (!d64 && ndist > 30) {
		return 0, 0, 0, ErrCodeLengths
	}
	return nlit, ndist, nclen, nil
}

// repeatWidth is how many extra bits code length symbol sym (16, 17 or
// 18) has.
func repeatWidth(sym uint32) uint {
	switch sym {
	case 16:
		return 2
	case 17:
		return 3
	}
	return 7
}

// repeatLengths writes the lengths that code length symbol sym (16, 17
// or 18) with extra bits v stands for to all from i, and returns the
// index after them: 16 repeats the previous length 3-6 times, 17 and 18
// repeat a zero 3-10 and 11-138 times.
func repeatLengths(all []uint8, i int, sym, v uint32) (int, error) {
	rep, val := 11, uint8(0)
	switch sym {
	case 16:
		if i == 0 {
			return i, ErrCodeLengths
		}
		rep, val = 3, all[i-1]
	case 17:
		rep = 3
	}
	rep += int(v)
	if i+rep > len(all) {
		return i, ErrCodeLengths
	}
	for range rep {
		all[i] = val
		i++
	}
	return i, nil
}
