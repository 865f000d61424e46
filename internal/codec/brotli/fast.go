package brotli

import "encoding/binary"

// fastCommands decodes whole commands from pos on with the bit reader
// held in locals, for as long as each command fits in the window buffer.
// It returns the new position when the meta-block ends (z.remaining == 0,
// z.cmd == cmdNext), on an error, or after it set up a command the
// general loop of commands must finish, one that does not fit (z.cmd is
// then cmdInsert, cmdCopy or cmdWord).
func (z *Reader) fastCommands(pos int) (int, error) {
	br := &z.br
	buf := &br.buf
	ring, rsize := z.ring, z.rsize
	tabs := z.tabs
	val, nb, ip, end := br.val, br.nbits, br.ip, br.end
	save := func() { br.val, br.nbits, br.ip = val, nb, ip }
	load := func() { val, nb, ip, end = br.val, br.nbits, br.ip, br.end }
	rem := z.remaining
	cmdOff := int(z.cmdTrees[z.btype[catI]])
	dmap := (*[4]uint8)(z.cmapD[z.btype[catD]*4:])
	if br.err != nil {
		return pos, br.err
	}
	window, wrapped := z.window, z.wrapped
	for {
		if z.bcount[catI] == 0 {
			save()
			z.switchBlock(catI)
			load()
			cmdOff = int(z.cmdTrees[z.btype[catI]])
		}
		z.bcount[catI]--
		// Block switches read their bits through br: refill after them.
		if nb < 56 {
			if ip+8 <= end {
				val |= binary.LittleEndian.Uint64(buf[ip:]) << nb
				ip += int(63-nb) >> 3
				nb |= 56
			} else {
				save()
				br.refillSlow()
				load()
				if br.err != nil {
					// Past the end of the input, or a read error: every
					// refill from now on comes here.
					z.remaining = rem
					return pos, br.err
				}
			}
		}

		// The insert-and-copy symbol and its extra bits.
		e := tabs[cmdOff+int(val&(1<<rootBits-1))]
		if n := e & 0xffff; n > rootBits {
			val >>= rootBits
			nb -= rootBits
			e = tabs[cmdOff+int(e>>16)+int(val&(1<<(n-rootBits)-1))]
		}
		val >>= e & 0xffff
		nb -= uint(e & 0xffff)
		c := &cmdTable[e>>16]
		insert := int(c.insBase) + int(val&(1<<c.insBits-1))
		val >>= c.insBits
		nb -= uint(c.insBits)
		if nb < 24 {
			if ip+8 <= end {
				val |= binary.LittleEndian.Uint64(buf[ip:]) << nb
				ip += int(63-nb) >> 3
				nb |= 56
			} else {
				save()
				br.refillSlow()
				load()
				if br.err != nil {
					// Past the end of the input, or a read error: every
					// refill from now on comes here.
					z.remaining = rem
					return pos, br.err
				}
			}
		}
		copyLen := int(c.copyBase) + int(val&(1<<c.copyBits-1))
		val >>= c.copyBits
		nb -= uint(c.copyBits)
		if insert > rem {
			save()
			z.remaining = rem
			return pos, ErrBlockLength
		}
		rem -= insert
		if pos+insert > rsize {
			save()
			z.remaining = rem
			z.insert, z.copyLen, z.distZero = insert, copyLen, c.distZero
			z.cmd = cmdInsert
			return pos, nil
		}
		if insert > 0 {
			save()
			z.insert = insert
			pos = z.literals(pos)
			load()
		}
		if rem == 0 {
			save()
			z.remaining = 0
			return pos, nil
		}

		// The distance.
		var d int
		push := false
		if c.distZero {
			d = z.dists[z.distIdx&3]
		} else {
			if z.bcount[catD] == 0 {
				save()
				z.switchBlock(catD)
				load()
				dmap = (*[4]uint8)(z.cmapD[z.btype[catD]*4:])
			}
			z.bcount[catD]--
			if nb < 39 {
				if ip+8 <= end {
					val |= binary.LittleEndian.Uint64(buf[ip:]) << nb
					ip += int(63-nb) >> 3
					nb |= 56
				} else {
					save()
					br.refillSlow()
					load()
					if br.err != nil {
						z.remaining = rem
						return pos, br.err
					}
				}
			}
			off := int(z.distTrees[dmap[min(copyLen, 5)-2]])
			e := tabs[off+int(val&(1<<rootBits-1))]
			if n := e & 0xffff; n > rootBits {
				val >>= rootBits
				nb -= rootBits
				e = tabs[off+int(e>>16)+int(val&(1<<(n-rootBits)-1))]
			}
			val >>= e & 0xffff
			nb -= uint(e & 0xffff)
			code := int(e >> 16)
			push = true
			switch {
			case code < 16:
				d = z.dists[(z.distIdx-shortDistIdx[code])&3] + shortDistOff[code]
				if d <= 0 {
					save()
					z.remaining = rem
					return pos, ErrDistance
				}
				push = code != 0
			case code < 16+z.ndirect:
				d = code - 15
			default:
				code -= 16 + z.ndirect
				nbits := 1 + uint(code>>(z.npostfix+1))
				offset := (2+code>>z.npostfix&1)<<nbits - 4
				d = (offset+int(val&(1<<nbits-1)))<<z.npostfix + code&(1<<z.npostfix-1) + z.ndirect + 1
				val >>= nbits
				nb -= nbits
			}
		}
		maxDist := window
		if !wrapped && pos < maxDist {
			maxDist = pos
		}
		if d > maxDist {
			save()
			z.remaining = rem
			z.copyLen = copyLen
			if err := z.dictWord(d - maxDist - 1); err != nil || pos+z.wordEnd > rsize {
				return pos, err // the general loop writes the word
			}
			pos += copy(ring[pos:], z.word[:z.wordEnd])
			z.cmd = cmdNext
			if rem = z.remaining; rem == 0 {
				return pos, nil
			}
			continue
		}
		if copyLen > rem {
			save()
			z.remaining = rem
			return pos, ErrBlockLength
		}
		rem -= copyLen
		if push {
			z.distIdx++
			z.dists[z.distIdx&3] = d
		}
		if pos+copyLen > rsize {
			save()
			z.remaining = rem
			z.dist, z.copyLen = d, copyLen
			z.cmd = cmdCopy
			return pos, nil
		}
		src := pos - d
		if src < 0 {
			src += rsize
		}
		if copyLen <= 16 && src+16 <= rsize && (d >= copyLen || src > pos) {
			*(*[16]byte)(ring[pos:]) = *(*[16]byte)(ring[src:])
		} else {
			copyMatch(ring, rsize, pos, d, copyLen)
		}
		pos += copyLen
		if rem == 0 {
			save()
			z.remaining = 0
			return pos, nil
		}
	}
}
