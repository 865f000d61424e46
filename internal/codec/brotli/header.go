package brotli

import (
	"bytes"
	"math/bits"
)

// This file reads the stream header, meta-block headers and the prefix
// codes and context maps of a compressed meta-block (RFC 7932 sections
// 3, 6, 7 and 9).

// readWindowBits reads WBITS from the stream header (section 9.1).
func (br *bitReader) readWindowBits() (uint, error) {
	if br.bits(1) == 0 {
		return 16, nil
	}
	if n := br.bits(3); n != 0 {
		return 17 + uint(n), nil
	}
	switch n := br.bits(3); n {
	case 0:
		return 17, nil
	case 1:
		return 0, ErrLargeWindow
	default:
		return 8 + uint(n), nil
	}
}

// readVarLen reads a value in 1..256 coded as section 9.2 codes NBLTYPESx
// and NTREESx.
func (br *bitReader) readVarLen() int {
	if br.bits(1) == 0 {
		return 1
	}
	n := uint(br.bits(3))
	if n == 0 {
		return 2
	}
	return 1<<n + int(br.bits(n)) + 1
}

// The code length code lengths come in this order (section 3.5).
var codeLenOrder = [18]uint8{1, 2, 3, 4, 0, 5, 17, 6, 16, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// codeLenCodeLen decodes the fixed code of the code length code lengths:
// for the next four bits of the stream, the length (0..5) in the low
// byte and the bits used in the next.
var codeLenCodeLen = func() (t [16]uint16) {
	for v := range t {
		switch {
		case v&3 == 0:
			t[v] = 2<<8 | 0
		case v&3 == 2:
			t[v] = 2<<8 | 3
		case v&3 == 1:
			t[v] = 2<<8 | 4
		case v&7 == 3:
			t[v] = 3<<8 | 2
		case v == 7:
			t[v] = 4<<8 | 1
		default: // 15
			t[v] = 4<<8 | 5
		}
	}
	return t
}()

// readPrefixCode reads a prefix code over an alphabet of n symbols
// (section 3.4 and 3.5) and builds its table at z.tabs[z.used:], growing
// z.tabs as needed. It returns the table's offset; z.used is advanced past
// it.
func (z *Reader) readPrefixCode(n int) (int, error) {
	if need := z.used + tableBound(n); need > len(z.tabs) {
		// Doubling: a meta-block of a thousand codes (the encoder's
		// block splitting) reallocates and copies a few times, not tens.
		t := make([]uint32, max(2*need, 1<<16))
		copy(t, z.tabs[:z.used])
		z.tabs = t
	}
	off := z.used
	tab := z.tabs[off:]
	br := &z.br
	br.refill()
	lens := z.lens[:n]
	var count [maxCodeLen + 1]uint16
	hskip := br.bits(2)
	if hskip == 1 {
		// A simple prefix code: NSYM symbols of ALPHABET_BITS bits.
		nsym := int(br.bits(2)) + 1
		abits := uint(bits.Len(uint(n - 1)))
		var syms [4]int
		for i := range nsym {
			s := int(br.bits(abits))
			if s >= n {
				return 0, ErrPrefixCode
			}
			for _, t := range syms[:i] {
				if t == s {
					return 0, ErrPrefixCode
				}
			}
			syms[i] = s
		}
		if nsym == 1 {
			z.used += singleTable(tab, syms[0])
			return off, nil
		}
		clear(lens)
		switch nsym {
		case 2:
			lens[syms[0]], lens[syms[1]] = 1, 1
			count[1] = 2
		case 3:
			lens[syms[0]], lens[syms[1]], lens[syms[2]] = 1, 2, 2
			count[1], count[2] = 1, 2
		case 4:
			if br.bits(1) == 0 {
				lens[syms[0]], lens[syms[1]], lens[syms[2]], lens[syms[3]] = 2, 2, 2, 2
				count[2] = 4
			} else {
				lens[syms[0]], lens[syms[1]], lens[syms[2]], lens[syms[3]] = 1, 2, 3, 3
				count[1], count[2], count[3] = 1, 1, 2
			}
		}
		z.used += buildTable(tab, lens, &count)
		return off, nil
	}

	// A complex prefix code: first the code length code.
	var clLens [18]uint8
	var clCount [maxCodeLen + 1]uint16
	space, num, last := 32, 0, 0
	for i := int(hskip); i < len(codeLenOrder); i++ {
		if br.nbits < 4 {
			br.refill()
		}
		e := codeLenCodeLen[br.val&15]
		br.skip(uint(e >> 8))
		l := uint8(e)
		clLens[codeLenOrder[i]] = l
		if l != 0 {
			space -= 32 >> l
			num++
			clCount[l]++
			last = int(codeLenOrder[i])
			if space <= 0 {
				break
			}
		}
	}
	if num != 1 && space != 0 {
		return 0, ErrPrefixCode
	}
	clTab := z.clTab[:]
	if num == 1 {
		singleTable(clTab, last)
	} else {
		buildTable(clTab, clLens[:], &clCount)
	}

	// Then the code lengths of the symbols.
	space = 32768
	prevLen, repeat, repeatLen := uint8(8), 0, uint8(0)
	s := 0
	for s < n && space > 0 {
		if br.nbits < 8 {
			br.refill()
		}
		e := clTab[br.val&0xff]
		br.skip(uint(e & 0xffff))
		l := uint8(e >> 16)
		if l < 16 {
			repeat = 0
			lens[s] = l
			s++
			if l != 0 {
				prevLen = l
				space -= 32768 >> l
				count[l]++
			}
			continue
		}
		extra, newLen := uint(2), prevLen
		if l == 17 {
			extra, newLen = 3, 0
		}
		if repeatLen != newLen {
			repeat, repeatLen = 0, newLen
		}
		old := repeat
		if repeat > 0 {
			repeat = (repeat - 2) << extra
		}
		repeat += int(br.bits(extra)) + 3
		d := repeat - old
		if s+d > n {
			return 0, ErrPrefixCode
		}
		for i := range d {
			lens[s+i] = newLen
		}
		s += d
		if newLen != 0 {
			space -= d * (32768 >> newLen)
			count[newLen] += uint16(d)
		}
	}
	if space != 0 {
		return 0, ErrPrefixCode
	}
	clear(lens[s:])
	z.used += buildTable(tab, lens, &count)
	return off, nil
}

// Block count codes (section 6): base and extra bits of the 26 symbols.
var blockCountBase = [26]uint32{
	1, 5, 9, 13, 17, 25, 33, 41, 49, 65, 81, 97, 113, 145, 177, 209,
	241, 305, 369, 497, 753, 1265, 2289, 4337, 8433, 16625,
}
var blockCountExtra = [26]uint8{
	2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 7, 8, 9, 10, 11, 12, 13, 24,
}

// readBlockCount reads a block count with category c's block count code.
func (z *Reader) readBlockCount(c int) int {
	s := z.sym(z.bcTab[c])
	return int(blockCountBase[s]) + int(z.br.bits(uint(blockCountExtra[s])))
}

// readContextMap reads a context map of len(m) entries over ntrees trees
// (section 7.3).
func (z *Reader) readContextMap(m []uint8, ntrees int) error {
	if ntrees < 2 {
		clear(m)
		return nil
	}
	br := &z.br
	br.refill()
	rlemax := 0
	if br.bits(1) == 1 {
		rlemax = int(br.bits(4)) + 1
	}
	// The table is needed only here: later tables overwrite it.
	used := z.used
	tab, err := z.readPrefixCode(ntrees + rlemax)
	z.used = used
	if err != nil {
		return err
	}
	for i := 0; i < len(m); {
		if br.err != nil {
			return br.err
		}
		s := z.sym(tab)
		switch {
		case s == 0:
			m[i] = 0
			i++
		case s <= rlemax:
			run := 1<<s + int(br.bits(uint(s)))
			if i+run > len(m) {
				return ErrContextMap
			}
			clear(m[i : i+run])
			i += run
		default:
			m[i] = uint8(s - rlemax)
			i++
		}
	}
	if br.bits(1) == 1 {
		// Inverse move-to-front transform.
		var mtf [256]uint8
		for i := range mtf {
			mtf[i] = uint8(i)
		}
		for i, v := range m {
			t := mtf[v]
			m[i] = t
			copy(mtf[1:int(v)+1], mtf[:v])
			mtf[0] = t
		}
	}
	return nil
}

// Meta-block kinds.
const (
	mbCompressed = iota
	mbUncompressed
	mbMetadata
	mbLastEmpty
)

// readMetaBlockHeader reads the meta-block header up to and including
// ISUNCOMPRESSED (section 9.2): it sets z.last and z.remaining and returns
// the kind of meta-block. For metadata, z.remaining is the number of bytes
// to skip.
func (z *Reader) readMetaBlockHeader() (int, error) {
	br := &z.br
	br.refill()
	z.last = br.bits(1) == 1
	if z.last && br.bits(1) == 1 {
		return mbLastEmpty, nil
	}
	nibbles := br.bits(2)
	if nibbles == 3 {
		if br.bits(1) != 0 {
			return 0, ErrMetaBlockHeader
		}
		nbytes := uint(br.bits(2))
		size := 0
		for i := range nbytes {
			b := int(br.bits(8))
			if i == nbytes-1 && nbytes > 1 && b == 0 {
				return 0, ErrMetaBlockHeader
			}
			size |= b << (8 * i)
		}
		if nbytes > 0 {
			size++
		}
		if err := br.alignZero(); err != nil {
			return 0, err
		}
		z.remaining = size
		return mbMetadata, nil
	}
	nibbles += 4
	size := 0
	for i := range uint(nibbles) {
		v := int(br.bits(4))
		if i == uint(nibbles)-1 && nibbles > 4 && v == 0 {
			return 0, ErrMetaBlockHeader
		}
		size |= v << (4 * i)
	}
	z.remaining = size + 1
	if !z.last && br.bits(1) == 1 {
		if err := br.alignZero(); err != nil {
			return 0, err
		}
		return mbUncompressed, nil
	}
	return mbCompressed, nil
}

// Block categories.
const (
	catL = iota // literals
	catI        // insert-and-copy commands
	catD        // distances
)

// readCompressedHeader reads the rest of a compressed meta-block's header:
// block types and counts, distance parameters, context modes and maps and
// the prefix codes (section 9.2).
func (z *Reader) readCompressedHeader() error {
	br := &z.br
	z.used = 0
	for c := range 3 {
		br.refill()
		z.nbl[c] = br.readVarLen()
		z.btype[c], z.btPrev[c] = 0, 1
		if z.nbl[c] < 2 {
			z.bcount[c] = 1 << 30 // more than a meta-block can use
			continue
		}
		var err error
		if z.btTab[c], err = z.readPrefixCode(z.nbl[c] + 2); err != nil {
			return err
		}
		if z.bcTab[c], err = z.readPrefixCode(26); err != nil {
			return err
		}
		z.bcount[c] = z.readBlockCount(c)
	}
	br.refill()
	z.npostfix = uint(br.bits(2))
	z.ndirect = int(br.bits(4)) << z.npostfix
	for i := range z.nbl[catL] {
		if br.nbits < 2 {
			br.refill()
		}
		z.modes[i] = uint8(br.bits(2))
	}
	br.refill()
	ntreesL := br.readVarLen()
	z.cmapL = z.cmapLBuf[:64*z.nbl[catL]]
	if err := z.readContextMap(z.cmapL, ntreesL); err != nil {
		return err
	}
	br.refill()
	ntreesD := br.readVarLen()
	z.cmapD = z.cmapDBuf[:4*z.nbl[catD]]
	if err := z.readContextMap(z.cmapD, ntreesD); err != nil {
		return err
	}
	for i := range ntreesL {
		off, err := z.readPrefixCode(256)
		if err != nil {
			return err
		}
		z.litTrees[i] = int32(off)
	}
	z.ctxOffType = -1
	for t := range z.nbl[catL] {
		z.litTrivial[t] = -1
		m := z.cmapL[t*64 : t*64+64]
		if bytes.Count(m, m[:1]) == 64 {
			z.litTrivial[t] = z.litTrees[m[0]]
		}
	}
	for i := range z.nbl[catI] {
		off, err := z.readPrefixCode(704)
		if err != nil {
			return err
		}
		z.cmdTrees[i] = int32(off)
	}
	distAlphabet := 16 + z.ndirect + 48<<z.npostfix
	for i := range ntreesD {
		off, err := z.readPrefixCode(distAlphabet)
		if err != nil {
			return err
		}
		z.distTrees[i] = int32(off)
	}
	return br.err
}
