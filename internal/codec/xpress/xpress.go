// Package xpress decodes XPRESS Huffman ("LZ77+Huffman", [MS-XCA] section
// 2.2), the compression of WIM resources made with --compress=XPRESS: each
// block of up to 64 KiB of output starts with a 256-byte table of 4-bit
// code lengths for 512 symbols (256 literals, 256 match headers), followed
// by a bitstream read in 16-bit little-endian words, most significant bit
// first, with the long match lengths as bytes in between.
//
// A WIM chunk (32 KiB by default, at most 64 KiB) is one block; Decode
// decodes one chunk whose uncompressed size the container knows.
//
// # Security concerns
//
// Decode writes only into dst and reads only src: every match is checked
// against what was written, over-subscribed code tables are refused, and
// a code word with no symbol is an error. Bits past the end of src read as
// zeros (the reference decoder looks ahead two words); the output size
// bounds the work.
package xpress

import (
	"encoding/binary"

	"github.com/unpack-dev/unpack/internal/archive"
)

// MaxBlock is the most output one code table covers, and the largest
// chunk Decode takes.
const MaxBlock = 64 << 10

const (
	numSyms   = 512
	maxLen    = 15
	tableBits = 11
	subBits   = maxLen - tableBits
)

// Errors Decode returns; each is archive.ErrCorrupt.
var (
	ErrTable    = archive.Corruptf("xpress: bad Huffman code lengths")
	ErrCode     = archive.Corruptf("xpress: a code word with no symbol")
	ErrOffset   = archive.Corruptf("xpress: match offset before the start of the chunk")
	ErrLength   = archive.Corruptf("xpress: match runs past the end of the chunk")
	ErrShort    = archive.Corruptf("xpress: compressed chunk cut short")
	ErrTooLarge = archive.Corruptf("xpress: chunk larger than 64 KiB")
)

// Decoder holds the decoding tables; the zero value is ready and is
// reused across chunks.
type Decoder struct {
	lens  [numSyms]uint8
	table [tableSize]uint32 // 1<<tableBits direct entries, then subtables
}

// tableSize holds the direct entries and a subtable for each of the at
// most numSyms code words longer than tableBits, rounded up to a power of
// two so that a masked index needs no bounds check.
const tableSize = 1 << 14

// table entries: sym<<4 | length for a symbol (length >= 1, so a literal
// is 1..4095), entrySub | index of its first entry for a subtable; zero
// for no code word.
const entrySub = 1 << 31

// build makes the decoding table of d.lens.
func (d *Decoder) build() error {
	var count [maxLen + 1]int
	for _, l := range d.lens {
		count[l]++
	}
	left := 1
	for l := 1; l <= maxLen; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return ErrTable
		}
	}
	var next [maxLen + 2]uint32
	for l := 1; l <= maxLen; l++ {
		next[l+1] = (next[l] + uint32(count[l])) << 1
	}
	t := &d.table
	clear(t[:1<<tableBits])
	subs := uint32(1 << tableBits)
	for sym, l := range d.lens {
		if l == 0 {
			continue
		}
		code := next[l]
		next[l]++
		e := uint32(sym)<<4 | uint32(l)
		if l <= tableBits {
			start := code << (tableBits - l)
			fill(t[start:start+1<<(tableBits-l)], e)
			continue
		}
		prefix := code >> (l - tableBits)
		p := t[prefix]
		if p&entrySub == 0 {
			p = entrySub | subs
			t[prefix] = p
			clear(t[subs : subs+1<<subBits])
			subs += 1 << subBits
		}
		base := p&^entrySub + (code&(1<<(l-tableBits)-1))<<(maxLen-l)
		fill(t[base:base+1<<(maxLen-l)], e)
	}
	return nil
}

func fill(t []uint32, e uint32) {
	for i := range t {
		t[i] = e
	}
}

// Decode decompresses the XPRESS chunk src into all of dst.
func (d *Decoder) Decode(dst, src []byte) error {
	if len(dst) > MaxBlock {
		return ErrTooLarge
	}
	if len(dst) == 0 {
		return nil
	}
	if len(src) < numSyms/2 {
		return ErrShort
	}
	for i, b := range src[:numSyms/2] {
		d.lens[2*i] = b & 15
		d.lens[2*i+1] = b >> 4
	}
	if err := d.build(); err != nil {
		return err
	}
	// The bits: 16-bit little-endian words, each read from its most
	// significant bit, at the top of bb (nb of them valid), loaded ahead
	// four words at a time; words past the end of src read as zeros. Bits
	// below the nb valid ones are the next word's, or zeros.
	//
	// The bytes of long lengths sit between the words, where the reader
	// of [MS-XCA] 2.2.4 is when it needs one: it holds 16 to 31 bits
	// then (a 32-bit register topped up a word at a time when under 16).
	// To read one, the words loaded beyond that are given back.
	pos := numSyms / 2
	var bb uint64
	var nb uint
	table := &d.table
	out := 0
	for out < len(dst) {
		if nb < 32 {
			if pos+8 <= len(src) {
				// Four words at once; those that do not fit whole are
				// loaded again next time.
				u := binary.LittleEndian.Uint64(src[pos:])
				u = u<<32 | u>>32
				u = u&0xffff0000ffff0000>>16 | u&0x0000ffff0000ffff<<16
				bb |= u >> nb
				k := (64 - nb) >> 4
				pos += int(2 * k)
				nb += 16 * k
			} else {
				for nb <= 48 {
					var w uint64
					if pos+2 <= len(src) {
						w = uint64(binary.LittleEndian.Uint16(src[pos:]))
					}
					bb |= w << (48 - nb)
					pos += 2
					nb += 16
				}
			}
		}
		e := table[bb>>(64-tableBits)]
		if e-1 < 256<<4-1 {
			// A literal.
			n := uint(e & 15)
			bb <<= n
			nb -= n
			dst[out] = byte(e >> 4)
			out++
			continue
		}
		if e&entrySub != 0 {
			e = table[(e+uint32(bb>>(64-maxLen))&(1<<subBits-1))&(tableSize-1)]
		}
		if e == 0 {
			return ErrCode
		}
		n := uint(e & 15)
		bb <<= n
		nb -= n
		sym := e >> 4 & (numSyms - 1)
		if sym < 256 {
			dst[out] = byte(sym)
			out++
			continue
		}
		sym -= 256
		length := int(sym & 15)
		obits := uint(sym>>4) & 15
		if length == 15 {
			// Back to where the reference reader is (nb >= 17 here).
			j := (nb - 16) >> 4
			pos -= int(2 * j)
			nb -= 16 * j
			bb &^= ^uint64(0) >> nb
			if pos >= len(src) {
				return ErrShort
			}
			length = int(src[pos])
			pos++
			if length == 255 {
				if pos+2 > len(src) {
					return ErrShort
				}
				length = int(binary.LittleEndian.Uint16(src[pos:]))
				pos += 2
				if length < 15 {
					return ErrLength
				}
				length -= 15
			}
			length += 15
		}
		length += 3
		// obits 0 reads none: two shifts, the second below 64.
		offset := 1<<obits | int(bb>>1>>((63-obits)&63))
		bb <<= obits
		nb -= obits
		if offset > out {
			return ErrOffset
		}
		if length > len(dst)-out {
			return ErrLength
		}
		switch {
		case offset >= 8 && length <= 64 && length+16 <= len(dst)-out:
			// Eight bytes at a time: each load reads bytes written
			// before it, and what is stored past the match is written
			// over later. Sixteen first, as most matches are short.
			w, m := dst[out:out+16], dst[out-offset:out-offset+16]
			binary.LittleEndian.PutUint64(w, binary.LittleEndian.Uint64(m))
			binary.LittleEndian.PutUint64(w[8:], binary.LittleEndian.Uint64(m[8:]))
			for i := 16; i < length; i += 8 {
				binary.LittleEndian.PutUint64(dst[out+i:], binary.LittleEndian.Uint64(dst[out-offset+i:]))
			}
		case length <= 16:
			m := dst[out-offset : out-offset+length]
			w := dst[out : out+length]
			for i := range w {
				w[i] = m[i]
			}
		default:
			// What is copied repeats with period offset: copy what is
			// there, doubling.
			start, end := out-offset, out+length
			for p := out; p < end; {
				p += copy(dst[p:end], dst[start:p])
			}
		}
		out += length
	}
	return nil
}
