package brotli

import "encoding/binary"

// The fast loop holds commands back: it decodes up to seqCap commands,
// with their literals put aside in litBuf, before it writes them into the
// window buffer. Most copies read from far back in a window of up to
// 16 MiB, and nearly every such load misses the caches. Performed as each
// command is decoded, few of those misses overlap; performed together, in
// a short loop, many do.
//
// Where the assembly is built, the fast loop also asks the CPU to
// prefetch each copy's source as soon as it has decoded the distance: the
// miss is then served while the rest of the batch is decoded, and
// runSeqs' early loads (which stall until their lines arrive) find most
// sources in the cache.
//
// Literals are put aside only where their decoding needs no byte of the
// output: where their block type's context map names one prefix code.
// Elsewhere the commands held back are written first, and the literals
// decoded straight into the window buffer, after the bytes they depend on.
const (
	seqCap     = 32
	litBufSize = 4096
)

// A seq is a command held back by the fast loop: lits literals, the next
// ones in litBuf, then a copy of n bytes from d bytes back (none if n is
// 0).
type seq struct {
	lits, n, d int32
}

// fastCommands decodes whole commands from pos on with the bit reader
// held in locals, for as long as each command fits in the window buffer.
// It returns the new position when the meta-block ends (z.remaining == 0,
// z.cmd == cmdNext), on an error, or after it set up a command the
// general loop of commands must finish, one that does not fit (z.cmd is
// then cmdInsert, cmdCopy or cmdWord). All the commands it held back are
// written when it returns.
func (z *Reader) fastCommands(pos int) (int, error) {
	br := &z.br
	buf := &br.buf
	ring, rsize := z.ring, z.rsize
	tabs := z.tabs
	cmdTable := cmdTable()
	val, nb, ip, end := br.val, br.nbits, br.ip, br.end
	save := func() { br.val, br.nbits, br.ip = val, nb, ip }
	load := func() { val, nb, ip, end = br.val, br.nbits, br.ip, br.end }
	rem := z.remaining
	cmdOff := int(z.cmdTrees[z.btype[catI]])
	dmap := (*[4]uint8)(z.cmapD[z.btype[catD]*4:])
	litOff := int(z.litTrivial[z.btype[catL]])
	if br.err != nil {
		return pos, br.err
	}
	window, wrapped := z.window, z.wrapped

	// The commands held back: seqs[:ns], then pend literals of the
	// command being decoded; lits[:lp] holds their literals. They are
	// written from start on; pos is where the output will be after them.
	seqs, lits := &z.seqs, &z.litBuf
	ns, pend, lp := 0, 0, 0
	start := pos
	flush := func() {
		if pend > 0 {
			seqs[ns] = seq{lits: int32(pend)}
			ns++
			pend = 0
		}
		if ns > 0 {
			z.runSeqs(start, seqs[:ns])
			ns, lp = 0, 0
		}
		start = pos
	}

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
					flush()
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
					flush()
					z.remaining = rem
					return pos, br.err
				}
			}
		}
		copyLen := int(c.copyBase) + int(val&(1<<c.copyBits-1))
		val >>= c.copyBits
		nb -= uint(c.copyBits)
		if insert > rem {
			flush()
			save()
			z.remaining = rem
			return pos, ErrBlockLength
		}
		rem -= insert
		if pos+insert > rsize {
			flush()
			save()
			z.remaining = rem
			z.insert, z.copyLen, z.distZero = insert, copyLen, c.distZero
			z.cmd = cmdInsert
			return pos, nil
		}

		// The literals: put aside while their block types need no
		// context, else decoded into the window buffer.
		if insert > 0 {
			k := 0
			if lp+insert <= litBufSize {
				for k < insert {
					if z.bcount[catL] == 0 {
						save()
						z.switchBlock(catL)
						load()
						litOff = int(z.litTrivial[z.btype[catL]])
					}
					if litOff < 0 {
						break
					}
					m := min(insert-k, z.bcount[catL])
					z.bcount[catL] -= m
					k += m
					for stop := lp + m; lp < stop; lp++ {
						if nb < maxCodeLen {
							if ip+8 <= end {
								val |= binary.LittleEndian.Uint64(buf[ip:]) << nb
								ip += int(63-nb) >> 3
								nb |= 56
							} else {
								save()
								br.refillSlow()
								load()
								if br.err != nil {
									pend += k - m + lp - (stop - m)
									pos += pend
									flush()
									z.remaining = rem
									return pos, br.err
								}
							}
						}
						e := tabs[litOff+int(val&(1<<rootBits-1))]
						if n := e & 0xffff; n > rootBits {
							val >>= rootBits
							nb -= rootBits
							e = tabs[litOff+int(e>>16)+int(val&(1<<(n-rootBits)-1))]
						}
						val >>= e & 0xffff
						nb -= uint(e & 0xffff)
						lits[lp] = byte(e >> 16)
					}
				}
			}
			pend = k
			pos += k
			if k < insert {
				flush()
				save()
				z.insert = insert - k
				pos = z.literals(pos)
				load()
				start = pos
				litOff = int(z.litTrivial[z.btype[catL]])
			}
		}
		if rem == 0 {
			flush()
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
						flush()
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
					flush()
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
			flush()
			save()
			z.remaining = rem
			z.copyLen = copyLen
			if err := z.dictWord(d - maxDist - 1); err != nil || pos+z.wordEnd > rsize {
				return pos, err // the general loop writes the word
			}
			pos += copy(ring[pos:], z.word[:z.wordEnd])
			start = pos
			z.cmd = cmdNext
			if rem = z.remaining; rem == 0 {
				return pos, nil
			}
			continue
		}
		if copyLen > rem {
			flush()
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
			flush()
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
		prefetch(&ring[src])
		seqs[ns] = seq{int32(pend), int32(copyLen), int32(d)}
		ns++
		pend = 0
		pos += copyLen
		if ns == seqCap || rem == 0 {
			flush()
			if rem == 0 {
				save()
				z.remaining = 0
				return pos, nil
			}
		}
	}
}

// runSeqs writes the commands held back into the window buffer from pos
// on (see seq).
func (z *Reader) runSeqs(pos int, seqs []seq) {
	ring, rsize := z.ring, z.rsize
	// First load the first and the 16th byte of each copy's source (the
	// two cache lines a 16-byte copy may read): the loads, most of them
	// cache misses, are then in flight together, and the copies below
	// find their sources in the cache. The bytes may be ones an earlier
	// copy is still to write: they are not used.
	var t byte
	p := pos
	for _, s := range seqs {
		p += int(s.lits)
		src := p - int(s.d)
		if src < 0 {
			src += rsize
		}
		t |= ring[src] | ring[src+15]
		p += int(s.n)
	}
	z.touched = t

	lits := &z.litBuf
	lp := 0
	for _, s := range seqs {
		if n := int(s.lits); n > 0 {
			// Whole 16-byte blocks: the bytes written past the literals
			// are overwritten by the copy, or lie among the 16 ahead of
			// the output that no copy reads (the window is 16 bytes
			// shorter than the buffer).
			for i := 0; i < n; i += 16 {
				*(*[16]byte)(ring[pos+i:]) = *(*[16]byte)(lits[lp+i:])
			}
			pos += n
			lp += n
		}
		n, d := int(s.n), int(s.d)
		if n == 0 {
			continue
		}
		src := pos - d
		if src < 0 {
			src += rsize
		}
		if n <= 16 && src+16 <= rsize && (d >= n || src > pos) {
			*(*[16]byte)(ring[pos:]) = *(*[16]byte)(ring[src:])
		} else {
			copyMatch(ring, rsize, pos, d, n)
		}
		pos += n
	}
}
