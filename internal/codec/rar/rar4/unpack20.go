package rar4

// Table sizes of the RAR 2.0 algorithm.
const (
	mainSize20  = 298
	distSize20  = 48
	repSize20   = 28
	bitLenSize  = 19
	audioSize20 = 257
	tableSize20 = mainSize20 + distSize20 + repSize20
)

var (
	distBase20 = [distSize20]int64{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768,
		1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304,
		131072, 196608, 262144, 327680, 393216, 458752, 524288, 589824, 655360, 720896, 786432,
		851968, 917504, 983040}
	distBits20 = [distSize20]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10,
		11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16}
)

// audioVar20 is one channel's predictor state of RAR 2.0 audio blocks.
type audioVar20 struct {
	k                  [5]int32
	d1, d2, d3, d4     int32
	lastDelta, lastChr int32
	dif                [11]uint32
	count              uint32
}

// unpack20 is the RAR 2.0 algorithm (RAR 2.x): LZ with three Huffman
// tables, or "multimedia" blocks of up to four predicted audio channels.
// Files carry no end marker; decoding stops at the file's size.
type unpack20 struct {
	old                  [audioSize20 * 4]byte
	main, dist, rep      huffman
	audio                [4]huffman
	bitLen               huffman
	oldDist              [4]int64
	oldDistPtr           int
	lastDist             int64
	lastLength           int
	tablesRead           bool
	needTables           bool
	isAudio              bool
	channels, curChannel int
	channelDelta         int32
	av                   [4]audioVar20
}

func (d *unpack20) reset(solid bool) {
	if !solid {
		d.tablesRead = false
		d.isAudio = false
		d.channelDelta = 0
		d.curChannel = 0
		d.channels = 1
		d.av = [4]audioVar20{}
		d.old = [audioSize20 * 4]byte{}
		d.oldDist = [4]int64{}
		d.oldDistPtr = 0
		d.lastDist, d.lastLength = 0, 0
	}
	d.needTables = !solid || !d.tablesRead
}

func (d *unpack20) readTables(u *unpacker) error {
	br := &u.br
	f := br.bits(2)
	d.isAudio = f&2 != 0
	if f&1 == 0 {
		d.old = [audioSize20 * 4]byte{}
	}
	size := tableSize20
	if d.isAudio {
		d.channels = int(br.bits(2)) + 1
		if d.curChannel >= d.channels {
			d.curChannel = 0
		}
		size = audioSize20 * d.channels
	}
	var bl [bitLenSize]byte
	for i := range bl {
		bl[i] = byte(br.bits(4))
	}
	d.bitLen.init(bl[:])
	var table [audioSize20 * 4]byte
	for i := 0; i < size; {
		if br.overrun() {
			return errTruncated
		}
		n := d.bitLen.decode(br)
		switch {
		case n < 16:
			table[i] = (byte(n) + d.old[i]) & 15
			i++
		case n == 16:
			c := int(br.bits(2)) + 3
			if i == 0 {
				return errBadTable
			}
			for ; c > 0 && i < size; c-- {
				table[i] = table[i-1]
				i++
			}
		default:
			var c int
			if n == 17 {
				c = int(br.bits(3)) + 3
			} else {
				c = int(br.bits(7)) + 11
			}
			for ; c > 0 && i < size; c-- {
				table[i] = 0
				i++
			}
		}
	}
	if br.overrun() {
		return errTruncated
	}
	d.tablesRead = true
	if d.isAudio {
		for i := 0; i < d.channels; i++ {
			d.audio[i].init(table[i*audioSize20 : (i+1)*audioSize20])
		}
	} else {
		d.main.init(table[:mainSize20])
		d.dist.init(table[mainSize20 : mainSize20+distSize20])
		d.rep.init(table[mainSize20+distSize20 : tableSize20])
	}
	copy(d.old[:size], table[:size])
	return nil
}

func (d *unpack20) copyString(u *unpacker, length int, dist int64) {
	d.oldDist[d.oldDistPtr&3] = dist
	d.oldDistPtr++
	d.lastDist, d.lastLength = dist, length
	u.copyMatch(length, dist)
}

func (d *unpack20) decode(u *unpacker) error {
	br := &u.br
	if d.needTables {
		d.needTables = false
		if err := d.readTables(u); err != nil {
			return err
		}
	}
	for u.room() {
		if u.size >= 0 && u.unp-u.fileStart >= u.size {
			// Tables for the next solid file may follow the last symbol.
			if br.atLeast(5) {
				if d.isAudio {
					if d.audio[d.curChannel].decode(br) == 256 {
						if err := d.readTables(u); err != nil {
							return err
						}
					}
				} else if d.main.decode(br) == 269 {
					if err := d.readTables(u); err != nil {
						return err
					}
				}
			}
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
		if d.isAudio {
			n := d.audio[d.curChannel].decode(br)
			if n == 256 {
				if err := d.readTables(u); err != nil {
					return err
				}
				continue
			}
			u.putByte(d.decodeAudio(int32(n)))
			if d.curChannel++; d.curChannel == d.channels {
				d.curChannel = 0
			}
			continue
		}
		n := d.main.decode(br)
		switch {
		case n < 256:
			u.putByte(byte(n))
		case n > 269:
			n -= 270
			length := lenBase29[n] + 3
			if b := lenBits29[n]; b > 0 {
				length += int(br.bits(uint(b)))
			}
			ds := d.dist.decode(br)
			dist := distBase20[ds] + 1
			if b := distBits20[ds]; b > 0 {
				dist += int64(br.bits(uint(b)))
			}
			if dist >= 0x2000 {
				length++
				if dist >= 0x40000 {
					length++
				}
			}
			d.copyString(u, length, dist)
		case n == 269:
			if err := d.readTables(u); err != nil {
				return err
			}
		case n == 256:
			d.copyString(u, d.lastLength, d.lastDist)
		case n < 261:
			dist := d.oldDist[(d.oldDistPtr-(n-256))&3]
			ls := d.rep.decode(br)
			length := lenBase29[ls] + 2
			if b := lenBits29[ls]; b > 0 {
				length += int(br.bits(uint(b)))
			}
			if dist >= 0x101 {
				length++
				if dist >= 0x2000 {
					length++
					if dist >= 0x40000 {
						length++
					}
				}
			}
			d.copyString(u, length, dist)
		default: // 261..268
			n -= 261
			dist := int64(shortBase29[n]) + 1
			if b := shortBits29[n]; b > 0 {
				dist += int64(br.bits(uint(b)))
			}
			d.copyString(u, 2, dist)
		}
	}
	return nil
}

func abs32(x int32) uint32 {
	if x < 0 {
		return uint32(-x)
	}
	return uint32(x)
}

// decodeAudio predicts one byte of the current channel (DecodeAudio).
func (d *unpack20) decodeAudio(delta int32) byte {
	v := &d.av[d.curChannel]
	v.count++
	v.d4 = v.d3
	v.d3 = v.d2
	v.d2 = v.lastDelta - v.d1
	v.d1 = v.lastDelta
	p := 8*v.lastChr + v.k[0]*v.d1 + v.k[1]*v.d2 + v.k[2]*v.d3 + v.k[3]*v.d4 + v.k[4]*d.channelDelta
	p = (p >> 3) & 0xff
	ch := uint32(p) - uint32(delta)
	dd := int32(int8(byte(delta))) << 3
	v.dif[0] += abs32(dd)
	v.dif[1] += abs32(dd - v.d1)
	v.dif[2] += abs32(dd + v.d1)
	v.dif[3] += abs32(dd - v.d2)
	v.dif[4] += abs32(dd + v.d2)
	v.dif[5] += abs32(dd - v.d3)
	v.dif[6] += abs32(dd + v.d3)
	v.dif[7] += abs32(dd - v.d4)
	v.dif[8] += abs32(dd + v.d4)
	v.dif[9] += abs32(dd - d.channelDelta)
	v.dif[10] += abs32(dd + d.channelDelta)
	v.lastDelta = int32(int8(byte(ch - uint32(v.lastChr))))
	d.channelDelta = v.lastDelta
	v.lastChr = int32(ch)
	if v.count&0x1f == 0 {
		minDif, num := v.dif[0], 0
		v.dif[0] = 0
		for i := 1; i < len(v.dif); i++ {
			if v.dif[i] < minDif {
				minDif, num = v.dif[i], i
			}
			v.dif[i] = 0
		}
		if num > 0 {
			k := &v.k[(num-1)/2]
			if num&1 == 1 {
				if *k >= -16 {
					*k--
				}
			} else if *k < 16 {
				*k++
			}
		}
	}
	return byte(ch)
}
