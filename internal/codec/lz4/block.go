package lz4

import (
	"encoding/binary"
	"errors"
)

// The LZ4 block format (lz4 doc/lz4_Block_format.md): a block is a run of
// sequences, each a token (literal length in the high nibble, match length
// minus 4 in the low one, 15 meaning "more length bytes follow, each added,
// until one is not 255"), the literals, a 2-byte little-endian match
// offset and the match. The last sequence has literals only.

// minMatch is the shortest match length.
const minMatch = 4

// Room the fast path needs: a sequence whose literal and match lengths fit
// in their nibbles is decoded with fixed-width copies, which read up to
// fastIn bytes of input past the token and write up to fastOut bytes of
// output past the current position.
const (
	fastIn  = 1 + 16 + 2 // token, 16 literal bytes, offset
	fastOut = 16 + 32    // 16 literal bytes, a match of up to 18 in 8-byte steps (24), slack
)

// decodeBlock decodes the LZ4 block src into dst[di:], where dst[:di] is
// the history that matches may reach back into (the previous blocks of a
// frame with linked blocks, else nothing) and len(dst) bounds the output.
// It returns the end of the output in dst. It may write scratch bytes in
// dst past the returned end.
func decodeBlock(dst []byte, di int, src []byte) (int, error) {
	// di never passes len(dst), so only the end of src stops this.
	_, di, err := decodeSteps(dst, di, src, 0, len(dst)+1)
	if err == errRoom {
		err = ErrOverflow
	}
	return di, err
}

// errRoom is decodeSteps' report of a sequence that does not fit in what is
// left of dst: si is at its token and di where it would start, so that the
// caller can make room, or copy the sequence in pieces (see parseSeq), and
// go on. When dst ends where the block must end, it means ErrOverflow.
var errRoom = errors.New("lz4: sequence does not fit")

// decodeSteps decodes the block src from si on into dst[di:], as
// decodeBlock does, but returns after the sequence that reaches stop:
// it returns the positions to go on from, and the block is done when
// si == len(src) with a nil error. A sequence longer than the room left
// in dst stops it with errRoom, before the sequence.
func decodeSteps(dst []byte, di int, src []byte, si, stop int) (int, int, error) {
	return decodeStepsGeneric(dst, di, src, si, stop)
}

// decodeStepsGeneric is decodeSteps in plain Go: a fast path for sequences
// far from both ends, whose copies go 8 or 16 bytes at a time, and a
// careful path for the rest.
func decodeStepsGeneric(dst []byte, di int, src []byte, si, stop int) (int, int, error) {
	for {
		if di >= stop && si < len(src) {
			return si, di, nil
		}
		// Fast path: short literals and a short match, with room on both
		// sides for the fixed-width copies, so that each slice below is
		// bounds-checked once.
		if len(src)-si >= fastIn && len(dst)-di >= fastOut {
			s := (*[fastIn]byte)(src[si : si+fastIn])
			token := s[0]
			if token < 0xF0 && token&15 != 15 {
				d := (*[fastOut]byte)(dst[di : di+fastOut])
				binary.LittleEndian.PutUint64(d[0:8], binary.LittleEndian.Uint64(s[1:9]))
				binary.LittleEndian.PutUint64(d[8:16], binary.LittleEndian.Uint64(s[9:17]))
				ll := int(token >> 4)
				off := int(s[ll+1]) | int(s[ll+2])<<8
				si += ll + 3
				di += ll
				ml := int(token&15) + minMatch
				m := di - off
				if off < 8 {
					if off == 0 || m < 0 {
						return si, di, ErrOffset
					}
					di = copyShortOffset(dst, di, m, off, ml)
					continue
				}
				if m < 0 {
					return si, di, ErrOffset
				}
				ms := (*[24]byte)(dst[m : m+24])
				dm := (*[24]byte)(d[ll : ll+24])
				if off >= 24 {
					// The source ends before the destination starts: load
					// everything first, so no load waits on a store.
					a := binary.LittleEndian.Uint64(ms[0:8])
					b := binary.LittleEndian.Uint64(ms[8:16])
					c := binary.LittleEndian.Uint64(ms[16:24])
					binary.LittleEndian.PutUint64(dm[0:8], a)
					binary.LittleEndian.PutUint64(dm[8:16], b)
					binary.LittleEndian.PutUint64(dm[16:24], c)
				} else {
					binary.LittleEndian.PutUint64(dm[0:8], binary.LittleEndian.Uint64(ms[0:8]))
					binary.LittleEndian.PutUint64(dm[8:16], binary.LittleEndian.Uint64(ms[8:16]))
					binary.LittleEndian.PutUint64(dm[16:24], binary.LittleEndian.Uint64(ms[16:24]))
				}
				di += ml
				continue
			}
		}

		if si >= len(src) {
			// An empty block, or one ending right after a match.
			return si, di, ErrShortBlock
		}
		seq, di0 := si, di
		token := src[si]
		si++
		ll := int(token >> 4)
		if ll == 15 {
			var ok bool
			if ll, si, ok = extendLen(src, si, ll); !ok {
				return si, di, ErrShortBlock
			}
		}
		if ll > len(src)-si {
			return si, di, ErrShortBlock
		}
		if ll > len(dst)-di {
			return seq, di0, errRoom
		}
		copy(dst[di:di+ll], src[si:si+ll])
		si += ll
		di += ll
		if si == len(src) {
			return si, di, nil // the last sequence: literals only
		}

		if len(src)-si < 2 {
			return si, di, ErrShortBlock
		}
		off := int(src[si]) | int(src[si+1])<<8
		si += 2
		m := di - off
		if off == 0 || m < 0 {
			return si, di, ErrOffset
		}
		ml := int(token & 15)
		if ml == 15 {
			var ok bool
			if ml, si, ok = extendLen(src, si, ml); !ok {
				return si, di, ErrShortBlock
			}
		}
		ml += minMatch
		if ml > len(dst)-di {
			return seq, di0, errRoom
		}
		di = copyMatch(dst, di, m, off, ml)
	}
}

// copyShortOffset copies a match of length ml <= 18 whose offset off is
// below 8 from dst[m:] to dst[di:], with room for 32 bytes at di. The
// first 8 bytes go one at a time; from there the pattern repeats with a
// period of a multiple of off that is at least 8, so the rest goes 8 bytes
// at a time.
func copyShortOffset(dst []byte, di, m, off, ml int) int {
	d := dst[di : di+32]
	if off == 1 {
		v := uint64(dst[m]) * 0x0101010101010101
		binary.LittleEndian.PutUint64(d[0:], v)
		binary.LittleEndian.PutUint64(d[8:], v)
		binary.LittleEndian.PutUint64(d[16:], v)
		return di + ml
	}
	copy8Overlapping(dst, di, m)
	p := periods[off]
	binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(dst[di+8-p:]))
	binary.LittleEndian.PutUint64(d[16:], binary.LittleEndian.Uint64(dst[di+16-p:]))
	return di + ml
}

// copy8Overlapping copies dst[m:m+8] to dst[di:di+8] one byte after the
// other, m < di, so that bytes written early are read again when the two
// ranges overlap.
func copy8Overlapping(dst []byte, di, m int) {
	d := dst[di : di+8]
	s := dst[m : m+8]
	d[0] = s[0]
	d[1] = s[1]
	d[2] = s[2]
	d[3] = s[3]
	d[4] = s[4]
	d[5] = s[5]
	d[6] = s[6]
	d[7] = s[7]
}

// periods[off] is the least multiple of off that is at least 8.
var periods = [8]int{0, 8, 8, 9, 8, 10, 12, 14}

// copyMatch copies the match of length ml at offset off (m = di - off >= 0)
// to dst[di:] and returns the new end; the caller checked that ml bytes fit
// at di. The copy goes 8 or 16 bytes at a time and may overshoot the end
// of the match (never of dst); only the last bytes before the end of dst go
// one at a time.
func copyMatch(dst []byte, di, m, off, ml int) int {
	end := di + ml
	if off >= ml && ml > 32 {
		copy(dst[di:end], dst[m:m+ml]) // no overlap
		return end
	}
	if off < 8 {
		if len(dst)-di < 8 {
			for ; di < end; di++ {
				dst[di] = dst[di-off]
			}
			return end
		}
		if off == 1 {
			v := uint64(dst[m]) * 0x0101010101010101
			for ; di < end && len(dst)-di >= 8; di += 8 {
				binary.LittleEndian.PutUint64(dst[di:], v)
			}
			for ; di < end; di++ {
				dst[di] = byte(v)
			}
			return end
		}
		// From 8 bytes on the pattern repeats with a period of at least 8.
		copy8Overlapping(dst, di, m)
		off = periods[off]
		di += 8
		m = di - off
	}
	if off >= 16 {
		for ; end-di > 8 && len(dst)-di >= 16; di, m = di+16, m+16 {
			a := binary.LittleEndian.Uint64(dst[m:])
			b := binary.LittleEndian.Uint64(dst[m+8:])
			binary.LittleEndian.PutUint64(dst[di:], a)
			binary.LittleEndian.PutUint64(dst[di+8:], b)
		}
	}
	// Each 8-byte load reads bytes already written: off >= 8.
	for ; di < end && len(dst)-di >= 8; di, m = di+8, m+8 {
		binary.LittleEndian.PutUint64(dst[di:], binary.LittleEndian.Uint64(dst[m:]))
	}
	for ; di < end; di++ {
		dst[di] = dst[di-off]
	}
	return end
}

// parseSeq reads the sequence whose token is at src[si], checking it as
// decodeSteps does: its literals are src[lit:lit+ll], then a match of ml
// bytes at offset off (ml is 0 for the block's last sequence, literals
// only), and the next sequence starts at next. It serves the sequences
// decodeSteps stops at with errRoom.
func parseSeq(src []byte, si int) (lit, ll, off, ml, next int, err error) {
	if si >= len(src) {
		return 0, 0, 0, 0, si, ErrShortBlock
	}
	token := src[si]
	si++
	ll = int(token >> 4)
	if ll == 15 {
		var ok bool
		if ll, si, ok = extendLen(src, si, ll); !ok {
			return 0, 0, 0, 0, si, ErrShortBlock
		}
	}
	if ll > len(src)-si {
		return 0, 0, 0, 0, si, ErrShortBlock
	}
	lit = si
	si += ll
	if si == len(src) {
		return lit, ll, 0, 0, si, nil // the last sequence: literals only
	}
	if len(src)-si < 2 {
		return 0, 0, 0, 0, si, ErrShortBlock
	}
	off = int(src[si]) | int(src[si+1])<<8
	si += 2
	if off == 0 {
		return 0, 0, 0, 0, si, ErrOffset
	}
	ml = int(token & 15)
	if ml == 15 {
		var ok bool
		if ml, si, ok = extendLen(src, si, ml); !ok {
			return 0, 0, 0, 0, si, ErrShortBlock
		}
	}
	return lit, ll, off, ml + minMatch, si, nil
}

// extendLen adds to n, a literal or match length whose 4-bit field was 15,
// the extension bytes from src[si]: each adds its value, and one below 255
// ends them. It returns the length, where the sequence goes on, and false
// when src ends first.
func extendLen(src []byte, si, n int) (int, int, bool) {
	for si < len(src) {
		b := src[si]
		si++
		n += int(b)
		if b != 255 {
			return n, si, true
		}
	}
	return n, si, false
}

// DecodeBlock decodes one independent LZ4 block (no history, as squashfs
// stores them) from src into dst, whose length bounds the output, and
// returns the output's length; bytes of dst past it may be overwritten.
func DecodeBlock(dst, src []byte) (int, error) {
	return decodeBlock(dst, 0, src)
}
