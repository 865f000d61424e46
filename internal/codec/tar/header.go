package tar

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// blockSize is the tar record unit: headers are one block, data is padded
// to a whole number of blocks.
const blockSize = 512

// Header block layout (POSIX ustar; GNU and star reuse the tail).
const (
	offName     = 0   // [100] name
	offMode     = 100 // [8]
	offSize     = 124 // [12]
	offMtime    = 136 // [12]
	offChksum   = 148 // [8]
	offType     = 156 // [1]
	offLinkname = 157 // [100]
	offMagic    = 257 // [6] "ustar\0" (POSIX), with version: "ustar  \0" (GNU)
	offPrefix   = 345 // [155] ustar name prefix ([131] in star)

	offGNUAtime    = 345 // [12]
	offGNUSparse   = 386 // 4 × ([12] offset, [12] numbytes)
	offGNUExtended = 482 // [1]
	offGNURealsize = 483 // [12]

	offStarAtime = 476 // [12]
	offStarCtime = 488 // [12]

	// star's sparse header ("star_in_header").
	offStarInExtended = 355 // [1]
	offStarInSparse   = 356 // 4 × 24
	offStarInRealsize = 452 // [12]
)

// The header formats, told apart as GNU tar's decode_header does.
type format uint8

const (
	formatV7 format = iota
	formatUSTAR
	formatGNU
	formatStar
)

type block [blockSize]byte

// format returns the header's format from its magic; star is a ustar header
// with octal access and change times where ustar's prefix ends.
func (b *block) format() format {
	switch {
	case string(b[offMagic:offMagic+6]) == "ustar\x00":
		if b[offPrefix+130] == 0 && isOctal(b[offStarAtime]) && b[offStarAtime+11] == ' ' &&
			isOctal(b[offStarCtime]) && b[offStarCtime+11] == ' ' {
			return formatStar
		}
		return formatUSTAR
	case string(b[offMagic:offMagic+8]) == "ustar  \x00":
		return formatGNU
	}
	return formatV7
}

// isZero reports a block of zero bytes, the end-of-archive marker.
func (b *block) isZero() bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// checksumOK checks the header checksum: the sum of the block's bytes with
// the checksum field taken as spaces, accepted as unsigned (POSIX) or as
// signed bytes (old Sun and BSD tars), as GNU tar does.
func (b *block) checksumOK() bool {
	want, ok := parseNumeric(b[offChksum:offChksum+8], true)
	if !ok {
		return false
	}
	// The checksum field counts as eight spaces.
	u := b.byteSum() + 8*' '
	for _, c := range b[offChksum : offChksum+8] {
		u -= int64(c)
	}
	if want == u {
		return true
	}
	// Signed: each byte of 0x80 or more is 256 less (counted only for a
	// header whose unsigned sum did not match: rare).
	high := b.highBytes()
	for _, c := range b[offChksum : offChksum+8] {
		if c >= 0x80 {
			high--
		}
	}
	return want == u-256*high
}

// byteSum returns the sum of the block's bytes, eight bytes at a time: per
// word the bytes are added in four 16-bit lanes, the even bytes and the odd
// ones apart (64 words of at most 255 a lane each, 2 × 64 × 255 in all, stay
// below 2^16).
func (b *block) byteSum() int64 {
	const lo = 0x00FF00FF00FF00FF
	var even, odd uint64                 // the even and odd bytes of the words, in lanes
	for i := 0; i < blockSize; i += 32 { // four words a round
		q := (*[32]byte)(b[i : i+32])
		w0, w1 := binary.LittleEndian.Uint64(q[0:]), binary.LittleEndian.Uint64(q[8:])
		w2, w3 := binary.LittleEndian.Uint64(q[16:]), binary.LittleEndian.Uint64(q[24:])
		even += w0&lo + w1&lo + w2&lo + w3&lo
		odd += w0>>8&lo + w1>>8&lo + w2>>8&lo + w3>>8&lo
	}
	lanes := even + odd
	return int64(lanes&0xFFFF + lanes>>16&0xFFFF + lanes>>32&0xFFFF + lanes>>48)
}

// highBytes returns how many of the block's bytes are 0x80 or more.
func (b *block) highBytes() int64 {
	h := 0
	for i := 0; i < blockSize; i += 8 {
		h += bits.OnesCount64(binary.LittleEndian.Uint64(b[i:i+8]) & 0x8080808080808080)
	}
	return int64(h)
}

// name returns the header's name: prefix "/" name when a ustar (or star)
// header has a prefix.
func (b *block) name() string {
	name := cstring(b[offName : offName+100])
	if string(b[offMagic:offMagic+6]) == "ustar\x00" && b[offPrefix] != 0 {
		return cstring(b[offPrefix:offPrefix+155]) + "/" + name
	}
	return name
}

// cstring returns b up to its first NUL.
func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// octalField is parseNumeric's fast path for the fields most tars write:
// 8 or 12 bytes of octal digits up to a NUL or a space in the last byte
// (or, of 8, in the one before: a checksum). ok is false for any other
// field, which takes the general way (the same value when this one has
// one).
func octalField(f []byte) (int64, bool) {
	switch len(f) {
	case 8:
		// Seven digits (a mode), or six and what follows (a checksum,
		// "%06o\0 "): the terminator and after read as digits 0, the
		// value times 8 or 64.
		w := binary.LittleEndian.Uint64(f)
		if c := byte(w >> 56); c == 0 || c == ' ' {
			if v, ok := octal8(w&^(0xFF<<56) | '0'<<56); ok {
				return int64(v >> 3), true
			}
		}
		if c := byte(w >> 48); c == 0 || c == ' ' {
			v, ok := octal8(w&^(0xFFFF<<48) | 0x3030<<48)
			return int64(v >> 6), ok
		}
		return 0, false
	case 12:
		if c := f[11]; c != 0 && c != ' ' || !isOctal(f[8]) || !isOctal(f[9]) || !isOctal(f[10]) {
			return 0, false
		}
		v, ok := octal8(binary.LittleEndian.Uint64(f))
		return int64(v<<9 | uint64(f[8]-'0')<<6 | uint64(f[9]-'0')<<3 | uint64(f[10]-'0')), ok
	}
	return 0, false
}

// octal8 returns the value of the 8 octal digits of w (little-endian: its
// first byte the most significant digit), three bits each, combined in
// lanes of 2, 4 and 8 digits; ok is false if a byte is no octal digit.
func octal8(w uint64) (uint64, bool) {
	if w&0xF8F8F8F8F8F8F8F8 != 0x3030303030303030 { // each byte 0x30-0x37
		return 0, false
	}
	d := w & 0x0707070707070707
	d = (d<<3 | d>>8) & 0x003F003F003F003F
	d = (d<<6 | d>>16) & 0x00000FFF00000FFF
	return (d<<12 | d>>32) & 0xFFFFFF, true
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

// parseNumeric parses a numeric header field as GNU tar's from_header does:
// one leading NUL (left by tars whose previous field overflowed) and then
// spaces are skipped; octal digits are read up to a NUL or a space. A field
// whose first significant byte is a NUL is 0: digits after NUL padding are
// never used. Unless octalOnly, a field whose first byte is 0x80 (positive)
// or 0xff (negative) is a big-endian two's complement base-256 number (GNU
// and star, for values octal cannot hold). ok is false for anything else:
// blanks only, a stray byte after the digits, a value beyond int64.
func parseNumeric(f []byte, octalOnly bool) (v int64, ok bool) {
	if v, ok := octalField(f); ok {
		return v, true
	}
	return parseNumericGeneric(f, octalOnly)
}

// parseNumericGeneric is parseNumeric without its fast path.
func parseNumericGeneric(f []byte, octalOnly bool) (v int64, ok bool) {
	i := 0
	if len(f) > 0 && f[0] == 0 {
		i = 1
	}
	for i < len(f) && isSpace(f[i]) {
		i++
	}
	if i == len(f) {
		return 0, false
	}
	switch {
	case isOctal(f[i]):
		for ; i < len(f) && isOctal(f[i]); i++ {
			if v > math.MaxInt64>>3 {
				return 0, false
			}
			v = v<<3 | int64(f[i]-'0')
		}
	case octalOnly:
	case f[0] == 0x80 || f[0] == 0xff:
		v = int64(f[0] & 0x3f)
		if f[0]&0x40 != 0 {
			v -= 0x40
		}
		for _, c := range f[1:] {
			if v > math.MaxInt64>>8 || v < math.MinInt64>>8 {
				return 0, false
			}
			v = v<<8 | int64(c)
		}
		return v, true
	}
	if i < len(f) && f[i] != 0 && !isSpace(f[i]) {
		return 0, false
	}
	return v, true
}
