package rar4

import (
	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/ppmd"
)

// Table sizes of the RAR 2.9 (RAR 3.x/4.x) LZ algorithm.
const (
	mainSize29    = 299
	distSize29    = 60
	lowDistSize29 = 17
	lenSize29     = 28
	tableSize29   = mainSize29 + distSize29 + lowDistSize29 + lenSize29
	bitLenSize29  = 20
)

var (
	lenBase29 = [28]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20,
		24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224}
	lenBits29 = [28]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2,
		2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5}
	shortBase29 = [8]int{0, 4, 8, 16, 32, 64, 128, 192}
	shortBits29 = [8]uint8{2, 2, 3, 4, 5, 6, 6, 6}

	distBase29 [distSize29]int
	distBits29 [distSize29]uint8
)

func init() {
	// Distance slots: two per bit count up to 16 bits, then 16 bits ×14
	// more, then 18 bits ×12 (unrar's DBitLengthCounts for RAR 3).
	counts := [...]int{4, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 14, 0, 12}
	slot, base := 0, 0
	for bits, c := range counts {
		for ; c > 0; c-- {
			distBase29[slot] = base
			distBits29[slot] = uint8(bits)
			base += 1 << bits
			slot++
		}
	}
}

// unpack29 is the RAR 2.9 algorithm (RAR 3.x and 4.x): LZ blocks with four
// Huffman tables, PPMd variant H blocks, and RAR VM filters.
type unpack29 struct {
	lens                      [tableSize29]byte
	main, dist, lowDist, leng huffman
	bitLen                    huffman

	oldDist     [4]int64
	lastLength  int
	lowDistRep  int
	prevLowDist int
	tablesRead  bool
	needHeader  bool // read a block header before the next symbol
	ppmBlock    bool

	ppm    *ppmd.ModelH
	ppmRC  ppmd.RangeDecoder
	ppmEsc int
	// ppmBroken: a block of the model failed (it may be halfway through
	// an update) or its reset did: only a reset may use it again.
	ppmBroken bool

	filt filterState29
}

func (d *unpack29) reset(solid bool) {
	if !solid {
		d.lens = [tableSize29]byte{}
		d.oldDist = [4]int64{}
		d.lastLength = 0
		d.tablesRead = false
		d.ppmBlock = false
		d.ppmEsc = 2
		d.filt.reset()
	}
	d.needHeader = !solid || !d.tablesRead
}

// readTables reads a block header: a PPMd block start or new LZ tables.
func (d *unpack29) readTables(u *unpacker) error {
	br := &u.br
	br.alignByte()
	if br.peek(1) == 1 {
		return d.initPPM(u)
	}
	d.ppmBlock = false
	d.prevLowDist, d.lowDistRep = 0, 0
	if br.bits(2)&1 == 0 {
		d.lens = [tableSize29]byte{}
	}
	var bl [bitLenSize29]byte
	for i := 0; i < bitLenSize29; i++ {
		l := byte(br.bits(4))
		if l == 15 {
			zeros := int(br.bits(4))
			if zeros != 0 {
				for zeros += 2; zeros > 0 && i < bitLenSize29; zeros-- {
					bl[i] = 0
					i++
				}
				i--
				continue
			}
		}
		bl[i] = l
	}
	d.bitLen.init(bl[:])
	var table [tableSize29]byte
	for i := 0; i < tableSize29; {
		if br.overrun() {
			return errTruncated
		}
		n := d.bitLen.decode(br)
		switch {
		case n < 16:
			table[i] = (byte(n) + d.lens[i]) & 15
			i++
		case n < 18:
			var c int
			if n == 16 {
				c = int(br.bits(3)) + 3
			} else {
				c = int(br.bits(7)) + 11
			}
			if i == 0 {
				return errBadTable
			}
			for ; c > 0 && i < tableSize29; c-- {
				table[i] = table[i-1]
				i++
			}
		default:
			var c int
			if n == 18 {
				c = int(br.bits(3)) + 3
			} else {
				c = int(br.bits(7)) + 11
			}
			for ; c > 0 && i < tableSize29; c-- {
				table[i] = 0
				i++
			}
		}
	}
	if br.overrun() {
		return errTruncated
	}
	d.tablesRead = true
	d.lens = table
	d.main.init(table[:mainSize29])
	d.dist.init(table[mainSize29 : mainSize29+distSize29])
	d.lowDist.init(table[mainSize29+distSize29 : mainSize29+distSize29+lowDistSize29])
	d.leng.init(table[mainSize29+distSize29+lowDistSize29:])
	return nil
}

// initPPM starts a PPMd block (unrar's ModelPPM::DecodeInit).
func (d *unpack29) initPPM(u *unpacker) error {
	br := &u.br
	flags, _ := br.ReadByte()
	reset := flags&0x20 != 0
	maxMB := 0
	if reset {
		c, _ := br.ReadByte()
		maxMB = int(c)
	} else if d.ppm == nil || d.ppmBroken {
		return errBadPPM
	}
	if flags&0x40 != 0 {
		c, _ := br.ReadByte()
		d.ppmEsc = int(c)
	}
	if br.overrun() {
		return errTruncated
	}
	if reset {
		order := int(flags&0x1f) + 1
		if order > 16 {
			order = 16 + (order-16)*3
		}
		if order == 1 {
			return errBadPPM
		}
		mem := (maxMB + 1) << 20
		d.ppmBroken = true // until the model is made anew
		if ppmd.Footprint(int64(mem)) > u.memLimit() {
			return archive.Limitf("rar: PPMd model needs %d MiB, above the memory limit", maxMB+1)
		}
		if d.ppm == nil {
			m, err := ppmd.NewH(order, mem)
			if err != nil {
				return err
			}
			d.ppm = m
		} else if err := d.ppm.Reset(order, mem); err != nil {
			return err
		}
		d.ppmBroken = false
	}
	if err := d.ppmRC.InitRAR(br); err != nil {
		return errTruncated
	}
	d.ppmBlock = true
	return nil
}

func (d *unpack29) decode(u *unpacker) error {
	br := &u.br
	if d.needHeader {
		d.needHeader = false
		if err := d.readTables(u); err != nil {
			return err
		}
	}
	for u.room() {
		if d.ppmBlock {
			if err := d.decodePPM(u); err != nil {
				d.ppmBroken = true
				return err
			}
			if u.done {
				return nil
			}
			continue
		}
		if br.overrun() {
			return errTruncated
		}
		sym := d.main.decode(br)
		switch {
		case sym < 256:
			u.putByte(byte(sym))
			continue
		case sym >= 271:
			sym -= 271
			length := lenBase29[sym] + 3
			if b := lenBits29[sym]; b > 0 {
				length += int(br.bits(uint(b)))
			}
			ds := d.dist.decode(br)
			dist := int64(distBase29[ds]) + 1
			if b := uint(distBits29[ds]); b > 0 {
				if ds > 9 {
					if b > 4 {
						dist += int64(br.bits(b-4)) << 4
					}
					if d.lowDistRep > 0 {
						d.lowDistRep--
						dist += int64(d.prevLowDist)
					} else {
						low := d.lowDist.decode(br)
						if low == 16 {
							d.lowDistRep = 15
							dist += int64(d.prevLowDist)
						} else {
							dist += int64(low)
							d.prevLowDist = low
						}
					}
				} else {
					dist += int64(br.bits(b))
				}
			}
			if dist >= 0x2000 {
				length++
				if dist >= 0x40000 {
					length++
				}
			}
			d.oldDist[3], d.oldDist[2], d.oldDist[1], d.oldDist[0] = d.oldDist[2], d.oldDist[1], d.oldDist[0], dist
			d.lastLength = length
			u.copyMatch(length, dist)
		case sym == 256:
			if br.bits(1) == 1 {
				d.tablesRead = false
				if err := d.readTables(u); err != nil {
					return err
				}
				continue
			}
			d.tablesRead = br.bits(1) == 0
			u.done = true
			return nil
		case sym == 257:
			if err := d.readFilterLZ(u); err != nil {
				return err
			}
		case sym == 258:
			if d.lastLength != 0 {
				u.copyMatch(d.lastLength, d.oldDist[0])
			}
		case sym < 263:
			i := sym - 259
			dist := d.oldDist[i]
			for ; i > 0; i-- {
				d.oldDist[i] = d.oldDist[i-1]
			}
			d.oldDist[0] = dist
			ls := d.leng.decode(br)
			length := lenBase29[ls] + 2
			if b := lenBits29[ls]; b > 0 {
				length += int(br.bits(uint(b)))
			}
			d.lastLength = length
			u.copyMatch(length, dist)
		default: // 263..270
			i := sym - 263
			dist := int64(shortBase29[i]) + 1
			if b := shortBits29[i]; b > 0 {
				dist += int64(br.bits(uint(b)))
			}
			d.oldDist[3], d.oldDist[2], d.oldDist[1], d.oldDist[0] = d.oldDist[2], d.oldDist[1], d.oldDist[0], dist
			d.lastLength = 2
			u.copyMatch(2, dist)
		}
	}
	return nil
}

// decodePPM decodes a run of PPMd literals straight into the window, up
// to the room left, its end or the escape character; after an escape
// character, the sequence it begins.
func (d *unpack29) decodePPM(u *unpacker) error {
	ch := d.ppmEsc
	pos := u.unp & u.mask
	run := u.win[pos : pos+min(int64(len(u.win))-pos, u.ahead-(u.unp-u.wr))]
	k, err := d.ppm.DecodeUntil(&d.ppmRC, run, byte(ch))
	if err != nil {
		return errBadPPM
	}
	if k == 0 || int(run[k-1]) != ch {
		u.unp += int64(k)
		return nil
	}
	u.unp += int64(k - 1) // the escape character is no literal
	next, err := d.ppm.DecodeSymbol(&d.ppmRC)
	if err != nil {
		return errBadPPM
	}
	switch next {
	case 0:
		return d.readTables(u)
	case 2:
		u.done = true
		return nil
	case 3:
		return d.readFilterPPM(u)
	case 4:
		var dist int64
		length := 0
		for i := 0; i < 4; i++ {
			c, err := d.ppm.DecodeSymbol(&d.ppmRC)
			if err != nil {
				return errBadPPM
			}
			if i == 3 {
				length = c
			} else {
				dist = dist<<8 | int64(c)
			}
		}
		u.copyMatch(length+32, dist+2)
	case 5:
		c, err := d.ppm.DecodeSymbol(&d.ppmRC)
		if err != nil {
			return errBadPPM
		}
		u.copyMatch(c+4, 1)
	default:
		u.putByte(byte(ch))
	}
	return nil
}

// readFilterLZ reads a filter definition from the LZ bit stream.
func (d *unpack29) readFilterLZ(u *unpacker) error {
	br := &u.br
	first := int(br.bits(8))
	length := first&7 + 1
	switch length {
	case 7:
		length = int(br.bits(8)) + 7
	case 8:
		length = int(br.bits(16))
	}
	if length == 0 {
		return errBadFilter
	}
	code := d.filt.codeBuf(length)
	for i := range code {
		code[i] = byte(br.bits(8))
	}
	if br.overrun() {
		return errTruncated
	}
	return d.filt.add(u, byte(first), code)
}

// readFilterPPM reads a filter definition from PPMd symbols.
func (d *unpack29) readFilterPPM(u *unpacker) error {
	sym := func() (int, error) {
		c, err := d.ppm.DecodeSymbol(&d.ppmRC)
		if err != nil {
			return 0, errBadPPM
		}
		return c, nil
	}
	first, err := sym()
	if err != nil {
		return err
	}
	length := first&7 + 1
	switch length {
	case 7:
		b, err := sym()
		if err != nil {
			return err
		}
		length = b + 7
	case 8:
		b1, err := sym()
		if err != nil {
			return err
		}
		b2, err := sym()
		if err != nil {
			return err
		}
		length = b1<<8 | b2
	}
	if length == 0 {
		return errBadFilter
	}
	code := d.filt.codeBuf(length)
	for i := range code {
		c, err := sym()
		if err != nil {
			return err
		}
		code[i] = byte(c)
	}
	return d.filt.add(u, byte(first), code)
}
