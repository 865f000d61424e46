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
	table []uint32 // 1<<tableBits direct entries, then subtables
}

// table entries: bit 31 set for a symbol (sym<<4 | length), bit 30 set
// for a subtable (index of its first entry); zero for no code word.
const (
	entrySym = 1 << 31
	entrySub = 1 << 30
)

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
	if cap(d.table) < 1<<tableBits {
		d.table = make([]uint32, 1<<tableBits, 1<<tableBits+numSyms<<subBits)
	}
	d.table = d.table[:1<<tableBits]
	clear(d.table)
	for sym, l := range d.lens {
		if l == 0 {
			continue
		}
		code := next[l]
		next[l]++
		e := entrySym | uint32(sym)<<4 | uint32(l)
		if l <= tableBits {
			start := code << (tableBits - l)
			fill(d.table[start:start+1<<(tableBits-l)], e)
			continue
		}
		prefix := code >> (l - tableBits)
		p := d.table[prefix]
		if p&entrySub == 0 {
			p = entrySub | uint32(len(d.table))
			d.table[prefix] = p
			d.table = append(d.table, make([]uint32, 1<<subBits)...)
		}
		base := p&^entrySub + (code&(1<<(l-tableBits)-1))<<(maxLen-l)
		fill(d.table[base:base+1<<(maxLen-l)], e)
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
	// The reader of [MS-XCA] 2.2.4: a 32-bit register holding the next
	// bits at its top, with extra valid bits below the first 16; the
	// bytes of long lengths are taken at pos, after the words loaded.
	// Words past the end of src read as zeros.
	pos := numSyms / 2
	var bits uint32
	for range 2 {
		bits <<= 16
		if pos+2 <= len(src) {
			bits |= uint32(src[pos]) | uint32(src[pos+1])<<8
		}
		pos += 2
	}
	extra := 16
	table := d.table
	out := 0
	for out < len(dst) {
		e := table[bits>>(32-tableBits)]
		if e&entrySub != 0 {
			e = table[e&^entrySub+bits>>(32-maxLen)&(1<<subBits-1)]
		}
		if e&entrySym == 0 {
			return ErrCode
		}
		n := int(e & 15)
		bits <<= n
		extra -= n
		if extra < 0 {
			if pos+2 <= len(src) {
				bits |= (uint32(src[pos]) | uint32(src[pos+1])<<8) << -extra
			}
			pos += 2
			extra += 16
		}
		sym := int(e>>4) & (numSyms - 1)
		if sym < 256 {
			dst[out] = byte(sym)
			out++
			continue
		}
		sym -= 256
		length := sym & 15
		obits := sym >> 4
		if length == 15 {
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
		offset := 1<<obits | int(uint64(bits)>>(32-obits)) // obits 0 reads none
		if obits > 0 {
			bits <<= obits
			extra -= obits
			if extra < 0 {
				if pos+2 <= len(src) {
					bits |= (uint32(src[pos]) | uint32(src[pos+1])<<8) << -extra
				}
				pos += 2
				extra += 16
			}
		}
		if offset > out {
			return ErrOffset
		}
		if length > len(dst)-out {
			return ErrLength
		}
		if length <= 16 {
			m := dst[out-offset : out-offset+length]
			w := dst[out : out+length]
			for i := range w {
				w[i] = m[i]
			}
		} else {
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
