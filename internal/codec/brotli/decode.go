package brotli

import "sync"

// This file decodes the commands of a compressed meta-block (RFC 7932
// sections 4, 5, 7 and 9.3) into the window buffer.

// An insert-and-copy symbol's lengths: base and extra bits of the insert
// and copy lengths, and whether the command uses the last distance
// without coding one (section 5).
type cmdLengths struct {
	insBase  uint32
	copyBase uint32
	insBits  uint8
	copyBits uint8
	distZero bool
}

var insBase = [24]uint32{0, 1, 2, 3, 4, 5, 6, 8, 10, 14, 18, 26, 34, 50, 66, 98, 130, 194, 322, 578, 1090, 2114, 6210, 22594}
var insBits = [24]uint8{0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 12, 14, 24}
var copyBase = [24]uint32{2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 18, 22, 30, 38, 54, 70, 102, 134, 198, 326, 582, 1094, 2118}
var copyBits = [24]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 24}

// cmdTable maps the 704 insert-and-copy symbols to their lengths: symbol
// >> 6 picks a cell, whose insert and copy length codes start at these
// values, and the low six bits add 0..7 to each. Built on first use, not
// at process start.
var cmdTable = sync.OnceValue(func() *[704]cmdLengths {
	t := new([704]cmdLengths)
	cellIns := [11]uint32{0, 0, 0, 0, 8, 8, 0, 16, 8, 16, 16}
	cellCopy := [11]uint32{0, 8, 0, 8, 0, 8, 16, 0, 16, 8, 16}
	for s := range t {
		c := s >> 6
		i := cellIns[c] + uint32(s>>3&7)
		k := cellCopy[c] + uint32(s&7)
		t[s] = cmdLengths{insBase[i], copyBase[k], insBits[i], copyBits[k], c < 2}
	}
	return t
})

// Distance codes 0..15 take the last distance (index 0) or one before it,
// plus an offset (section 4).
var shortDistIdx = [16]int{0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}
var shortDistOff = [16]int{0, 0, 0, 0, -1, 1, -2, 2, -3, 3, -1, 1, -2, 2, -3, 3}

// ctxLut gives, per context mode, a literal's context ID as
// ctxLut[mode][p1] | ctxLut[mode][256+p2] for the last two bytes p1, p2
// (section 7.1). Built on first use, not at process start.
var ctxLut = sync.OnceValue(func() *[4][512]uint8 {
	t := new([4][512]uint8)
	for i := range 256 {
		t[0][i] = uint8(i) & 63
		t[1][i] = uint8(i) >> 2
		t[2][i], t[2][256+i] = lut0[i], lut1[i]
		t[3][i], t[3][256+i] = lut2[i]<<3, lut2[i]
	}
	return t
})

// sym decodes one symbol with the table at z.tabs[off:].
func (z *Reader) sym(off int) int {
	br := &z.br
	if br.nbits < maxCodeLen {
		br.refill()
	}
	e := z.tabs[off+int(br.val&(1<<rootBits-1))]
	if n := e & 0xffff; n > rootBits {
		br.skip(rootBits)
		e = z.tabs[off+int(e>>16)+int(br.val&(1<<(n-rootBits)-1))]
	}
	br.skip(uint(e & 0xffff))
	return int(e >> 16)
}

// switchBlock reads a block switch command of category c: the new block
// type and its count (section 6).
func (z *Reader) switchBlock(c int) {
	s := z.sym(z.btTab[c])
	var t int
	switch s {
	case 0:
		t = z.btPrev[c]
	case 1:
		t = z.btype[c] + 1
	default:
		t = s - 2
	}
	if t >= z.nbl[c] {
		t -= z.nbl[c]
	}
	z.btPrev[c], z.btype[c] = z.btype[c], t
	z.bcount[c] = z.readBlockCount(c)
}

// commands decodes the meta-block's commands until it ends (false) or the
// window buffer is full (true).
func (z *Reader) commands() (bool, error) {
	ring := z.ring
	rsize := z.rsize
	pos := z.pos
	for {
		switch z.cmd {
		case cmdNext:
			var err error
			if pos, err = z.fastCommands(pos); err != nil {
				z.pos = pos
				return false, err
			}
			if z.cmd == cmdNext {
				z.pos = pos
				return false, nil // the meta-block ended
			}
		case cmdInsert:
			if z.insert > 0 {
				if pos = z.literals(pos); z.insert > 0 {
					z.pos = pos
					return true, nil
				}
			}
			if z.remaining == 0 {
				z.cmd = cmdNext
				z.pos = pos
				return false, nil
			}
			if err := z.distance(pos); err != nil {
				z.pos = pos
				return false, err
			}
		case cmdCopy:
			n := min(z.copyLen, rsize-pos)
			copyMatch(ring, rsize, pos, z.dist, n)
			pos += n
			if z.copyLen -= n; z.copyLen > 0 {
				z.pos = pos
				return true, nil
			}
			z.cmd = cmdNext
			if z.remaining == 0 {
				z.pos = pos
				return false, nil
			}
		case cmdWord:
			n := copy(ring[pos:rsize], z.word[z.wordPos:z.wordEnd])
			pos += n
			if z.wordPos += n; z.wordPos < z.wordEnd {
				z.pos = pos
				return true, nil
			}
			z.cmd = cmdNext
			if z.remaining == 0 {
				z.pos = pos
				return false, nil
			}
		}
	}
}

// literals decodes the command's literals into the window buffer from
// pos on, up to its end, and returns the new position (z.insert is left
// non-zero if the buffer filled first).
func (z *Reader) literals(pos int) int {
	ring, rsize := z.ring, z.rsize
	br := &z.br
	tabs := z.tabs
	ctxLut := ctxLut()
	for z.insert > 0 && pos < rsize {
		if z.bcount[catL] == 0 {
			z.switchBlock(catL)
		}
		// A run of literals of one block type.
		m := min(z.insert, z.bcount[catL], rsize-pos)
		z.insert -= m
		z.bcount[catL] -= m
		end := pos + m
		bt := z.btype[catL]
		val, nb := br.val, br.nbits
		if off := int(z.litTrivial[bt]); off >= 0 {
			// Every context uses the same code: no context to compute.
			for ; pos < end; pos++ {
				if nb < maxCodeLen {
					br.val, br.nbits = val, nb
					br.refill()
					val, nb = br.val, br.nbits
				}
				e := tabs[off+int(val&(1<<rootBits-1))]
				if n := e & 0xffff; n > rootBits {
					val >>= rootBits
					nb -= rootBits
					e = tabs[off+int(e>>16)+int(val&(1<<(n-rootBits)-1))]
				}
				val >>= e & 0xffff
				nb -= uint(e & 0xffff)
				ring[pos] = byte(e >> 16)
			}
		} else {
			var p1, p2 byte
			if z.wrapped || pos >= 2 {
				p1, p2 = ring[(pos-1)&(rsize-1)], ring[(pos-2)&(rsize-1)]
			} else if pos == 1 {
				p1 = ring[0]
			}
			lut := &ctxLut[z.modes[bt]]
			if z.ctxOffType != bt {
				// The code of each context of this block type.
				cmap := (*[64]uint8)(z.cmapL[bt*64:])
				for i, t := range cmap {
					z.ctxOff[i] = z.litTrees[t]
				}
				z.ctxOffType = bt
			}
			offs := &z.ctxOff
			for ; pos < end; pos++ {
				if nb < maxCodeLen {
					br.val, br.nbits = val, nb
					br.refill()
					val, nb = br.val, br.nbits
				}
				off := int(offs[(lut[p1]|lut[256+int(p2)])&63])
				e := tabs[off+int(val&(1<<rootBits-1))]
				if n := e & 0xffff; n > rootBits {
					val >>= rootBits
					nb -= rootBits
					e = tabs[off+int(e>>16)+int(val&(1<<(n-rootBits)-1))]
				}
				val >>= e & 0xffff
				nb -= uint(e & 0xffff)
				p2 = p1
				p1 = byte(e >> 16)
				ring[pos] = p1
			}
		}
		br.val, br.nbits = val, nb
	}
	return pos
}

// distance decodes the command's distance and sets up its copy from the
// window or the static dictionary (sections 4 and 8).
func (z *Reader) distance(pos int) error {
	br := &z.br
	var d int
	push := false
	if z.distZero {
		d = z.dists[z.distIdx&3]
	} else {
		if z.bcount[catD] == 0 {
			z.switchBlock(catD)
		}
		z.bcount[catD]--
		ctx := min(z.copyLen, 5) - 2
		code := z.sym(int(z.distTrees[z.cmapD[z.btype[catD]*4+ctx]]))
		switch {
		case code < 16:
			d = z.dists[(z.distIdx-shortDistIdx[code])&3] + shortDistOff[code]
			if d <= 0 {
				return ErrDistance
			}
			push = code != 0
		case code < 16+z.ndirect:
			d = code - 15
			push = true
		default:
			code -= 16 + z.ndirect
			nbits := 1 + uint(code>>(z.npostfix+1))
			hcode := code >> z.npostfix
			lcode := code & (1<<z.npostfix - 1)
			offset := (2+hcode&1)<<nbits - 4
			if br.nbits < nbits {
				br.refill()
			}
			d = (offset+int(br.bits(nbits)))<<z.npostfix + lcode + z.ndirect + 1
			push = true
		}
	}
	maxDist := z.window
	if !z.wrapped && pos < maxDist {
		maxDist = pos
	}
	if d > maxDist {
		return z.dictWord(d - maxDist - 1)
	}
	if z.copyLen > z.remaining {
		return ErrBlockLength
	}
	z.remaining -= z.copyLen
	if push {
		z.distIdx++
		z.dists[z.distIdx&3] = d
	}
	z.dist = d
	z.cmd = cmdCopy
	return nil
}

// dictWord sets up the copy of static dictionary word id with the
// command's copy length (section 8).
func (z *Reader) dictWord(id int) error {
	l := z.copyLen
	if l < 4 || l > 24 {
		return ErrDictionary
	}
	nb := ndBits[l]
	t := id >> nb
	if t >= len(transforms) {
		return ErrDictionary
	}
	off := dictOffset[l] + id&(1<<nb-1)*l
	n := transformWord(&z.word, dictionary[off:off+l], &transforms[t])
	if n > z.remaining {
		return ErrBlockLength
	}
	z.remaining -= n
	z.wordPos, z.wordEnd = 0, n
	z.cmd = cmdWord
	return nil
}

// copyMatch copies n bytes to ring[pos:] from d bytes back in the window
// of rsize bytes. pos+n must not pass rsize; it may write up to 15 bytes
// of scratch past pos+n, which never lie inside the window.
func copyMatch(ring []byte, rsize, pos, d, n int) {
	src := pos - d
	if src < 0 {
		src += rsize
	}
	if src+n > rsize {
		// The source wraps around the end of the buffer.
		for i := range n {
			ring[pos+i] = ring[(src+i)&(rsize-1)]
		}
		return
	}
	switch {
	case src > pos || d >= n:
		// Each byte copied comes from before pos, or from ahead of it
		// (the window's older end) by at least 16 bytes: 16-byte blocks
		// and memmove give the right bytes.
		if n > 32 {
			copy(ring[pos:pos+n], ring[src:src+n])
			return
		}
		*(*[16]byte)(ring[pos:]) = *(*[16]byte)(ring[src:])
		if n > 16 {
			*(*[16]byte)(ring[pos+16:]) = *(*[16]byte)(ring[src+16:])
		}
	case d >= 16:
		for i := 0; i < n; i += 16 {
			*(*[16]byte)(ring[pos+i:]) = *(*[16]byte)(ring[src+i:])
		}
	case n <= 16:
		for i := range n {
			ring[pos+i] = ring[src+i]
		}
	default:
		// A short period repeated: copy what is there, doubling it.
		for n > 0 {
			k := min(n, pos-src)
			copy(ring[pos:pos+k], ring[src:src+k])
			pos += k
			n -= k
		}
	}
}
