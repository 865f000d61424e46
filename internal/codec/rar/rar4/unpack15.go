package rar4

// Decoding tables of the RAR 1.5 algorithm: each is a list of left-aligned
// 16-bit code limits and the first symbol of each code length, used by
// decodeNum15 from a start length.
var (
	decL1  = []uint32{0x8000, 0xa000, 0xc000, 0xd000, 0xe000, 0xea00, 0xee00, 0xf000, 0xf200, 0xf200, 0xffff}
	posL1  = []uint32{0, 0, 0, 2, 3, 5, 7, 11, 16, 20, 24, 32, 32}
	decL2  = []uint32{0xa000, 0xc000, 0xd000, 0xe000, 0xea00, 0xee00, 0xf000, 0xf200, 0xf240, 0xffff}
	posL2  = []uint32{0, 0, 0, 0, 5, 7, 9, 13, 18, 22, 26, 34, 36}
	decHf0 = []uint32{0x8000, 0xc000, 0xe000, 0xf200, 0xf200, 0xf200, 0xf200, 0xf200, 0xffff}
	posHf0 = []uint32{0, 0, 0, 0, 0, 8, 16, 24, 33, 33, 33, 33, 33}
	decHf1 = []uint32{0x2000, 0xc000, 0xe000, 0xf000, 0xf200, 0xf200, 0xf7e0, 0xffff}
	posHf1 = []uint32{0, 0, 0, 0, 0, 0, 4, 44, 60, 76, 80, 80, 127}
	decHf2 = []uint32{0x1000, 0x2400, 0x8000, 0xc000, 0xfa00, 0xffff, 0xffff, 0xffff}
	posHf2 = []uint32{0, 0, 0, 0, 0, 0, 2, 7, 53, 117, 233, 0, 0}
	decHf3 = []uint32{0x800, 0x2400, 0xee00, 0xfe80, 0xffff, 0xffff, 0xffff}
	posHf3 = []uint32{0, 0, 0, 0, 0, 0, 0, 2, 16, 218, 251, 0, 0}
	decHf  = []uint32{0xff00, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff}
	posHf  = []uint32{0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0}

	shortLen1 = [16]uint32{1, 3, 4, 4, 5, 6, 7, 8, 8, 4, 4, 5, 6, 6, 4, 0}
	shortXor1 = [15]uint32{0, 0xa0, 0xd0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff, 0xc0, 0x80, 0x90, 0x98, 0x9c, 0xb0}
	shortLen2 = [16]uint32{2, 3, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6, 4, 0}
	shortXor2 = [15]uint32{0, 0x40, 0x60, 0xa0, 0xd0, 0xe0, 0xf0, 0xf8, 0xfc, 0xc0, 0x80, 0x90, 0x98, 0x9c, 0xb0}
)

const (
	startL1  = 2
	startL2  = 3
	startHf0 = 4
	startHf1 = 5
	startHf2 = 5
	startHf3 = 6
	startHf  = 8
)

// unpack15 is the RAR 1.5 algorithm: adaptive Huffman-like byte and
// distance coding with move-to-front character sets. Files carry no end
// marker; decoding stops at the file's size.
type unpack15 struct {
	chSet, chSetA, chSetB, chSetC [256]uint16
	nToPl, nToPlB, nToPlC         [256]byte

	avrPlc, avrPlcB, avrLn1, avrLn2, avrLn3 uint32
	numHuf, buf60, maxDist3, nhfb, nlzb     uint32
	flagBuf                                 uint32
	flagsCnt                                int
	stMode                                  bool
	lCount                                  int
	oldDist                                 [4]uint32
	oldDistPtr                              int
	lastDist, lastLength                    uint32
	start                                   bool
}

func (d *unpack15) reset(solid bool) {
	if !solid {
		d.avrPlcB, d.avrLn1, d.avrLn2, d.avrLn3, d.numHuf, d.buf60 = 0, 0, 0, 0, 0, 0
		d.avrPlc = 0x3500
		d.maxDist3 = 0x2001
		d.nhfb, d.nlzb = 0x80, 0x80
		d.oldDist = [4]uint32{}
		d.oldDistPtr = 0
		d.lastDist, d.lastLength = 0, 0
		for i := range d.chSet {
			d.chSet[i] = uint16(i) << 8
			d.chSetB[i] = uint16(i) << 8
			d.chSetA[i] = uint16(i)
			d.chSetC[i] = uint16((^i+1)&0xff) << 8
		}
		d.nToPl = [256]byte{}
		d.nToPlB = [256]byte{}
		d.nToPlC = [256]byte{}
		corrHuff15(&d.chSetB, &d.nToPlB)
	}
	d.flagsCnt, d.flagBuf, d.stMode, d.lCount = 0, 0, false, 0
	d.start = true
}

func corrHuff15(set *[256]uint16, nToPl *[256]byte) {
	k := 0
	for i := 7; i >= 0; i-- {
		for j := 0; j < 32; j++ {
			set[k] = set[k]&^0xff | uint16(i)
			k++
		}
	}
	*nToPl = [256]byte{}
	for i := 6; i >= 0; i-- {
		nToPl[i] = byte((7 - i) * 32)
	}
}

// decodeNum15 decodes a number with one of the static tables.
func decodeNum15(br *bitReader, start uint32, dec, pos []uint32) uint32 {
	num := br.peek(16) & 0xfff0
	i := 0
	for dec[i] <= num {
		start++
		i++
	}
	br.skip(uint(start))
	var base uint32
	if i > 0 {
		base = dec[i-1]
	}
	return (num-base)>>(16-start) + pos[start]
}

func (d *unpack15) copyString(u *unpacker, dist, length uint32) {
	u.copyMatch(int(length), int64(dist))
}

func (d *unpack15) getFlags(br *bitReader) {
	place := decodeNum15(br, startHf2, decHf2, posHf2)
	if place >= 256 {
		return
	}
	for {
		flags := uint32(d.chSetC[place])
		d.flagBuf = flags >> 8
		np := d.nToPlC[flags&0xff]
		d.nToPlC[flags&0xff]++
		flags++
		if flags&0xff != 0 {
			d.chSetC[place] = d.chSetC[np]
			d.chSetC[np] = uint16(flags)
			return
		}
		corrHuff15(&d.chSetC, &d.nToPlC)
	}
}

func (d *unpack15) decode(u *unpacker) error {
	br := &u.br
	if d.start {
		d.start = false
		if u.size != 0 {
			d.getFlags(br)
			d.flagsCnt = 8
		}
	}
	for u.room() {
		if u.size >= 0 && u.unp-u.fileStart >= u.size {
			u.done = true
			return nil
		}
		if br.overrun() {
			if u.size < 0 {
				u.done = true
				return nil
			}
			return errTruncated
		}
		if d.stMode {
			d.huffDecode(u)
			continue
		}
		if d.flagsCnt--; d.flagsCnt < 0 {
			d.getFlags(br)
			d.flagsCnt = 7
		}
		if d.flagBuf&0x80 != 0 {
			d.flagBuf <<= 1
			if d.nlzb > d.nhfb {
				d.longLZ(u)
			} else {
				d.huffDecode(u)
			}
			continue
		}
		d.flagBuf <<= 1
		if d.flagsCnt--; d.flagsCnt < 0 {
			d.getFlags(br)
			d.flagsCnt = 7
		}
		if d.flagBuf&0x80 != 0 {
			d.flagBuf <<= 1
			if d.nlzb > d.nhfb {
				d.huffDecode(u)
			} else {
				d.longLZ(u)
			}
		} else {
			d.flagBuf <<= 1
			if err := d.shortLZ(u); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *unpack15) shortLZ(u *unpacker) error {
	br := &u.br
	d.numHuf = 0
	bf := br.peek(16)
	if d.lCount == 2 {
		br.skip(1)
		if bf >= 0x8000 {
			d.copyString(u, d.lastDist, d.lastLength)
			return nil
		}
		bf <<= 1
		d.lCount = 0
	}
	bf >>= 8
	var length uint32
	for {
		if length >= 15 {
			return errBadTable
		}
		var l, x uint32
		if d.avrLn1 < 37 {
			l, x = shortLen1[length], shortXor1[length]
			if length == 1 {
				l = d.buf60 + 3
			}
		} else {
			l, x = shortLen2[length], shortXor2[length]
			if length == 3 {
				l = d.buf60 + 3
			}
		}
		if (bf^x)&^(0xff>>l) == 0 {
			br.skip(uint(l))
			break
		}
		length++
	}
	if length >= 9 {
		if length == 9 {
			d.lCount++
			d.copyString(u, d.lastDist, d.lastLength)
			return nil
		}
		if length == 14 {
			d.lCount = 0
			length = decodeNum15(br, startL2, decL2, posL2) + 5
			dist := br.peek(16)>>1 | 0x8000
			br.skip(15)
			d.lastLength, d.lastDist = length, dist
			d.copyString(u, dist, length)
			return nil
		}
		d.lCount = 0
		save := length
		dist := d.oldDist[(d.oldDistPtr-int(length-9))&3]
		length = decodeNum15(br, startL1, decL1, posL1) + 2
		if length == 0x101 && save == 10 {
			d.buf60 ^= 1
			return nil
		}
		if dist > 256 {
			length++
		}
		if dist >= d.maxDist3 {
			length++
		}
		d.oldDist[d.oldDistPtr] = dist
		d.oldDistPtr = (d.oldDistPtr + 1) & 3
		d.lastLength, d.lastDist = length, dist
		d.copyString(u, dist, length)
		return nil
	}
	d.lCount = 0
	d.avrLn1 += length
	d.avrLn1 -= d.avrLn1 >> 4
	place := int(decodeNum15(br, startHf2, decHf2, posHf2) & 0xff)
	dist := uint32(d.chSetA[place])
	if place--; place != -1 {
		last := d.chSetA[place]
		d.chSetA[place+1] = last
		d.chSetA[place] = uint16(dist)
	}
	length += 2
	dist++
	d.oldDist[d.oldDistPtr] = dist
	d.oldDistPtr = (d.oldDistPtr + 1) & 3
	d.lastLength, d.lastDist = length, dist
	d.copyString(u, dist, length)
	return nil
}

func (d *unpack15) longLZ(u *unpacker) {
	br := &u.br
	d.numHuf = 0
	d.nlzb += 16
	if d.nlzb > 0xff {
		d.nlzb = 0x90
		d.nhfb >>= 1
	}
	oldAvr2 := d.avrLn2
	var length uint32
	bf := br.peek(16)
	switch {
	case d.avrLn2 >= 122:
		length = decodeNum15(br, startL2, decL2, posL2)
	case d.avrLn2 >= 64:
		length = decodeNum15(br, startL1, decL1, posL1)
	case bf < 0x100:
		length = bf
		br.skip(16)
	default:
		for length = 0; (bf<<length)&0x8000 == 0; length++ {
		}
		br.skip(uint(length + 1))
	}
	d.avrLn2 += length
	d.avrLn2 -= d.avrLn2 >> 5
	var place uint32
	switch {
	case d.avrPlcB > 0x28ff:
		place = decodeNum15(br, startHf2, decHf2, posHf2)
	case d.avrPlcB > 0x6ff:
		place = decodeNum15(br, startHf1, decHf1, posHf1)
	default:
		place = decodeNum15(br, startHf0, decHf0, posHf0)
	}
	d.avrPlcB += place
	d.avrPlcB -= d.avrPlcB >> 8
	var dist uint32
	var np byte
	for {
		dist = uint32(d.chSetB[place&0xff])
		np = d.nToPlB[dist&0xff]
		d.nToPlB[dist&0xff]++
		dist++
		if dist&0xff != 0 {
			break
		}
		corrHuff15(&d.chSetB, &d.nToPlB)
	}
	d.chSetB[place&0xff] = d.chSetB[np]
	d.chSetB[np] = uint16(dist)
	dist = ((dist & 0xff00) | br.peek(16)>>8) >> 1
	br.skip(7)
	oldAvr3 := d.avrLn3
	if length != 1 && length != 4 {
		if length == 0 && dist <= d.maxDist3 {
			d.avrLn3++
			d.avrLn3 -= d.avrLn3 >> 8
		} else if d.avrLn3 > 0 {
			d.avrLn3--
		}
	}
	length += 3
	if dist >= d.maxDist3 {
		length++
	}
	if dist <= 256 {
		length += 8
	}
	if oldAvr3 > 0xb0 || d.avrPlc >= 0x2a00 && oldAvr2 < 0x40 {
		d.maxDist3 = 0x7f00
	} else {
		d.maxDist3 = 0x2001
	}
	d.oldDist[d.oldDistPtr] = dist
	d.oldDistPtr = (d.oldDistPtr + 1) & 3
	d.lastLength, d.lastDist = length, dist
	d.copyString(u, dist, length)
}

func (d *unpack15) huffDecode(u *unpacker) {
	br := &u.br
	bf := br.peek(16)
	var place int
	switch {
	case d.avrPlc > 0x75ff:
		place = int(decodeNum15(br, startHf, decHf, posHf))
	case d.avrPlc > 0x5dff:
		place = int(decodeNum15(br, startHf3, decHf3, posHf3))
	case d.avrPlc > 0x35ff:
		place = int(decodeNum15(br, startHf2, decHf2, posHf2))
	case d.avrPlc > 0x0dff:
		place = int(decodeNum15(br, startHf1, decHf1, posHf1))
	default:
		place = int(decodeNum15(br, startHf0, decHf0, posHf0))
	}
	place &= 0xff
	if d.stMode {
		if place == 0 && bf > 0xfff {
			place = 0x100
		}
		if place--; place == -1 {
			bf = br.peek(16)
			br.skip(1)
			if bf&0x8000 != 0 {
				d.numHuf = 0
				d.stMode = false
				return
			}
			length := uint32(3)
			if bf&0x4000 != 0 {
				length = 4
			}
			br.skip(1)
			dist := decodeNum15(br, startHf2, decHf2, posHf2)
			dist = dist<<5 | br.peek(16)>>11
			br.skip(5)
			d.copyString(u, dist, length)
			return
		}
	} else {
		if d.numHuf >= 16 && d.flagsCnt == 0 {
			d.stMode = true
		}
		d.numHuf++
	}
	d.avrPlc += uint32(place)
	d.avrPlc -= d.avrPlc >> 8
	d.nhfb += 16
	if d.nhfb > 0xff {
		d.nhfb = 0x90
		d.nlzb >>= 1
	}
	u.putByte(byte(d.chSet[place] >> 8))
	var cur uint32
	var np byte
	for {
		cur = uint32(d.chSet[place])
		np = d.nToPl[cur&0xff]
		d.nToPl[cur&0xff]++
		cur++
		if cur&0xff <= 0xa1 {
			break
		}
		corrHuff15(&d.chSet, &d.nToPl)
	}
	d.chSet[place] = d.chSet[np]
	d.chSet[np] = uint16(cur)
}
