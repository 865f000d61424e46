package bzip2

import "encoding/binary"

// bitReader reads big-endian bit fields from a byte slice. bits holds the
// next n unread bits at its top; reads past the end of buf yield zero bits
// and are detected by comparing pos() with the window's length, so the
// hot loop needs no end checks.
type bitReader struct {
	buf  []byte
	next int    // next byte of buf to load
	bits uint64 // unread bits, MSB first; bits below the top n may hold look-ahead
	n    uint   // number of valid bits at the top of bits
}

func (br *bitReader) init(buf []byte, skip uint) {
	br.buf, br.next, br.bits, br.n = buf, 0, 0, 0
	br.refill()
	br.bits <<= skip
	br.n -= skip
}

// pos returns the number of bits consumed since the start of buf.
func (br *bitReader) pos() int64 { return int64(br.next)*8 - int64(br.n) }

// refill tops the buffer up to at least 56 valid bits.
func (br *bitReader) refill() {
	if br.next+8 <= len(br.buf) {
		// Loads 8 bytes; the bytes beyond the n it claims are loaded again
		// (ORed onto identical bits) by the next refill.
		br.bits |= binary.BigEndian.Uint64(br.buf[br.next:]) >> br.n
		br.next += int(63-br.n) >> 3
		br.n |= 56
		return
	}
	for br.n <= 56 {
		var b byte
		if br.next < len(br.buf) {
			b = br.buf[br.next]
		}
		br.next++
		br.bits |= uint64(b) << (56 - br.n)
		br.n += 8
	}
}

// read returns the next k bits (k <= 32).
func (br *bitReader) read(k uint) uint32 {
	if br.n < k {
		br.refill()
	}
	v := uint32(br.bits >> (64 - k))
	br.bits <<= k
	br.n -= k
	return v
}

// bit returns the next bit.
func (br *bitReader) bit() bool {
	if br.n == 0 {
		br.refill()
	}
	v := br.bits>>63 != 0
	br.bits <<= 1
	br.n--
	return v
}
