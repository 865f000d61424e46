package ppmd

// The variant H model updates (7-Zip's Ppmd7.c, unrar's model.cpp). They
// work on the heap through fixed-size record views held in locals; the
// heap is never reallocated while a model decodes.

// createSuccessorsGeneric builds the chain of order+1 contexts for the
// found state (CreateSuccessors); 0 when memory ran out.
// createSuccessors is this, or on amd64 its walk and the common case of
// its allocations in assembly (succ_amd64.s).
func (m *ModelH) createSuccessorsGeneric(skip bool) uint32 {
	heap := m.heap
	if len(heap) < heapPad {
		return 0
	}
	hm := uint(len(heap)) - heapPad // as in decode
	c := m.minCtx
	fs := (*[6]byte)(heap[uint(m.found)&hm:])
	upBranch := uint32(fs[2]) | uint32(fs[3])<<8 | uint32(fs[4])<<16 | uint32(fs[5])<<24
	fsym := fs[0]
	num := uint(0) // unsigned: the bound below proves m.stack[num]
	if !skip {
		m.stack[0] = m.found
		num = 1
	}
	for {
		suf := le32((*[12]byte)(heap[uint(c)&hm:])[8:])
		if suf == 0 {
			break
		}
		c = suf
		cu := (*[12]byte)(heap[uint(c)&hm:])
		s := c + 2
		if ns := le16(cu[0:]); ns != 1 {
			s = uint32(cu[4]) | uint32(cu[5])<<8 | uint32(cu[6])<<16 | uint32(cu[7])<<24
			s += uint32(findSym((*[maxStatesBytes]byte)(heap[uint(s)&hm:]), byte(ns-1), fsym))
		}
		if succ := le32((*[6]byte)(heap[uint(s)&hm:])[2:]); succ != upBranch {
			c = succ
			if num == 0 {
				return c
			}
			break
		}
		if num >= uint(len(m.stack)) {
			return 0
		}
		m.stack[num] = s
		num++
	}
	upSym := heap[uint(upBranch)&hm]
	upSucc := upBranch + 1
	cu := (*[12]byte)(heap[uint(c)&hm:])
	var upFreq uint32
	if ns := le16(cu[0:]); ns == 1 {
		upFreq = uint32(cu[3])
	} else {
		s := le32(cu[4:])
		s += uint32(findSym((*[maxStatesBytes]byte)(heap[uint(s)&hm:]), byte(ns-1), upSym))
		cf := uint32((*[6]byte)(heap[uint(s)&hm:])[1]) - 1
		s0 := le16(cu[2:]) - ns - cf
		if 2*cf <= s0 {
			upFreq = 1 + b2u(5*cf > s0)
		} else {
			upFreq = 1 + (2*cf+3*s0-1)/(2*s0)
		}
	}
	// The new contexts' first word, NumStats 1 and OneState's symbol and
	// frequency, computed once (Go does not hoist it out of the loop).
	head := 1 | uint32(upSym)<<16 | upFreq<<24
	return m.newContexts(c, num, head, upSucc)
}

// newContexts is createSuccessors' second half: it makes num contexts of
// one state each (first word head, successor upSucc) from c up, each the
// suffix of the next, and links the state at m.stack[k] to the context
// made for it; it returns the last made (c when num is 0), or 0 when
// memory ran out.
func (m *ModelH) newContexts(c uint32, num uint, head, upSucc uint32) uint32 {
	heap := m.heap
	if len(heap) < heapPad {
		return 0
	}
	hm := uint(len(heap)) - heapPad // as in decode
	for num > 0 {
		// AllocContext, its common case here, so that the loop has no call.
		var c1 uint32
		if m.hiUnit != m.loUnit {
			m.hiUnit -= unitSize
			c1 = m.hiUnit
		} else if c1 = m.allocContext(); c1 == 0 {
			return 0
		}
		u := (*[12]byte)(heap[uint(c1)&hm:])
		put32(u[0:], head)
		put32(u[4:], upSucc)
		put32(u[8:], c)
		num--
		put32((*[6]byte)(heap[uint(m.stack[num])&hm:])[2:], c1)
		c = c1
	}
	return c
}

// updateModelGeneric adds the found symbol to the contexts from maxCtx
// down to minCtx (UpdateModel). updateModel is this, or on amd64 all of
// it in assembly but for the allocator's rare cases and restart
// (updateModelH, succ_amd64.s).
func (m *ModelH) updateModelGeneric() {
	heap := m.heap
	if len(heap) < heapPad {
		return
	}
	hm := uint(len(heap)) - heapPad // as in decode
	fs := (*[6]byte)(heap[uint(m.found)&hm:])
	fsym, ffreq, fSucc := fs[0], uint32(fs[1]), le32(fs[2:])
	if ffreq < maxFreq/4 {
		if suf := le32((*[12]byte)(heap[uint(m.minCtx)&hm:])[8:]); suf != 0 {
			cu := (*[12]byte)(heap[uint(suf)&hm:])
			if le16(cu[0:]) == 1 {
				if cu[3] < 32 {
					cu[3]++
				}
			} else {
				stats := uint32(cu[4]) | uint32(cu[5])<<8 | uint32(cu[6])<<16 | uint32(cu[7])<<24
				arr := (*[maxStatesBytes]byte)(heap[uint(stats)&hm:])
				i := findSym(arr, byte(le16(cu[0:])-1), fsym)
				st := (*[6]byte)(arr[i : i+6])
				if i >= 6 {
					if prev := (*[6]byte)(arr[i-6 : i]); st[1] >= prev[1] {
						*st, *prev = *prev, *st
						st = prev
					}
				}
				if st[1] < maxFreq-9 {
					st[1] += 2
					put16(cu[2:], le16(cu[2:])+2)
				}
			}
		}
	}
	if m.orderFall == 0 {
		// createSuccessors, its one call inline.
		c, num, head, upSucc := createSuccessorsH(m, true)
		if num != 0 {
			c = m.createSuccessorsRest(true, c, num, head, upSucc)
		}
		m.minCtx, m.maxCtx = c, c
		if c == 0 {
			m.restart()
			return
		}
		put32(fs[2:], c)
		return
	}
	heap[uint(m.text)&hm] = fsym
	m.text++
	succ := m.text
	if m.text >= m.unitsStart {
		m.restart()
		return
	}
	if fSucc != 0 {
		if fSucc <= succ {
			cs, num, head, upSucc := createSuccessorsH(m, false)
			if num != 0 {
				cs = m.createSuccessorsRest(false, cs, num, head, upSucc)
			}
			if cs == 0 {
				m.restart()
				return
			}
			fSucc = cs
		}
		succ = fallSucc(&m.orderFall, &m.text, m.maxCtx, m.minCtx, fSucc, succ)
	} else {
		put32(fs[2:], succ)
		fSucc = m.minCtx
	}
	m.updateContexts(m.maxCtx, fSucc, succ)
}

// updateContexts is updateModel's end: the found symbol, its successor
// fSucc and the text position succ, added to the contexts from c (maxCtx,
// or where updateModelH's loop stopped) down to minCtx.
func (m *ModelH) updateContexts(c, fSucc, succ uint32) {
	heap := m.heap
	if len(heap) < heapPad {
		return
	}
	hm := uint(len(heap)) - heapPad // as in decode
	fs := (*[6]byte)(heap[uint(m.found)&hm:])
	fsym, ffreq := fs[0], uint32(fs[1])
	minCtx := (*[12]byte)(heap[uint(m.minCtx)&hm:])
	ns := uint32(minCtx[0]) | uint32(minCtx[1])<<8
	s0 := le16(minCtx[2:]) - ns - (ffreq - 1)
	for c != m.minCtx {
		cu := (*[12]byte)(heap[uint(c)&hm:])
		ns1 := uint32(cu[0]) | uint32(cu[1])<<8
		var sf uint32
		if ns1 != 1 {
			if ns1&1 == 0 {
				// The stats fill their units: move them to one more.
				oldNU := ns1 >> 1
				i := u2i(oldNU)
				if i != u2i(oldNU+1) {
					// AllocUnits and InsertNode with their common cases
					// inline, so that the loop calls only in the rare one.
					j := i + 1
					p := m.freeList[j]
					if p != 0 {
						m.freeList[j] = le32((*[12]byte)(heap[uint(p)&hm:])[4:])
						m.stamps[j]--
					} else if n := u2b(i2u(j)); n <= m.hiUnit-m.loUnit {
						p = m.loUnit
						m.loUnit += n
					} else if p = m.allocUnitsRare(j); p == 0 {
						m.restart()
						return
					}
					old := le32(cu[4:])
					m.copyUnits(p, old, oldNU)
					fn := (*[12]byte)(heap[uint(old)&hm:])
					put32(fn[0:], emptyNode)
					put32(fn[4:], m.freeList[i])
					nu := i2u(i)
					put32(fn[8:], nu)
					m.freeList[i] = old
					m.stamps[i]++
					put32(cu[4:], p)
				}
			}
			sf = uint32(cu[2]) | uint32(cu[3])<<8
			sf += b2u(2*ns1 < ns) + 2*b2u(4*ns1 <= ns && sf <= 8*ns1)
		} else {
			// AllocUnits(0), its common cases inline.
			p := m.freeList[0]
			if p != 0 {
				m.freeList[0] = le32((*[12]byte)(heap[uint(p)&hm:])[4:])
				m.stamps[0]--
			} else if m.hiUnit-m.loUnit >= unitSize {
				p = m.loUnit
				m.loUnit += unitSize
			} else if p = m.allocUnitsRare(0); p == 0 {
				m.restart()
				return
			}
			ps := (*[6]byte)(heap[uint(p)&hm:])
			*ps = *(*[6]byte)(cu[2:8])
			put32(cu[4:], p)
			f := uint32(ps[1])
			if f < maxFreq/4-1 {
				f <<= 1
			} else {
				f = maxFreq - 4
			}
			ps[1] = byte(f)
			sf = f + m.initEsc + b2u(ns > 3)
		}
		sf &= 0xFFFF
		cf := 2 * ffreq * (sf + 6)
		sum := s0 + sf
		if cf < 6*sum {
			cf = 1 + b2u(cf > sum) + b2u(cf >= 4*sum)
			sf += 3
		} else {
			cf = 4 + b2u(cf >= 9*sum) + b2u(cf >= 12*sum) + b2u(cf >= 15*sum)
			sf += cf
		}
		// The stores written out: an inlined put16 or put32 costs a
		// NOP, its inline mark, per context updated.
		cu[2] = byte(sf)
		cu[3] = byte(sf >> 8)
		stats := uint32(cu[4]) | uint32(cu[5])<<8 | uint32(cu[6])<<16 | uint32(cu[7])<<24
		s := (*[6]byte)(heap[uint(stats+ns1*6)&hm:])
		s[0] = fsym
		s[1] = byte(cf)
		s[2] = byte(succ)
		s[3] = byte(succ >> 8)
		s[4] = byte(succ >> 16)
		s[5] = byte(succ >> 24)
		put16(cu[0:], ns1+1)
		c = uint32(cu[8]) | uint32(cu[9])<<8 | uint32(cu[10])<<16 | uint32(cu[11])<<24
	}
	m.minCtx, m.maxCtx = fSucc, fSucc
}

// rescale halves the frequencies of minCtx's states (Rescale).
func (m *ModelH) rescale() {
	heap := m.heap
	if len(heap) < heapPad {
		return
	}
	cu := unit(heap, m.minCtx)
	stats := le32(cu[4:])
	ns := le16(cu[0:])
	st := stateArr(heap, stats)[:(uint(byte(ns-1))+1)*6]
	// The found state moves to the front.
	i := m.found - stats
	tmp := *(*[6]byte)(st[i:])
	for ; i != 0; i -= 6 {
		*(*[6]byte)(st[i:]) = *(*[6]byte)(st[i-6:])
	}
	*(*[6]byte)(st) = tmp
	escFreq := le16(cu[2:]) - uint32(st[1])
	adder := b2u(m.orderFall != 0)
	f := (uint32(st[1]+4) + adder) >> 1
	st[1] = byte(f)
	sumFreq := f
	for k := 6; k+6 <= len(st); k += 6 {
		f := uint32(st[k+1])
		escFreq -= f
		f = (f + adder) >> 1
		st[k+1] = byte(f)
		sumFreq += f
		if f > uint32(st[k-5]) {
			// Insertion: the state moves up past the less frequent ones.
			tmp := *(*[6]byte)(st[k:])
			j := k
			for {
				*(*[6]byte)(st[j:]) = *(*[6]byte)(st[j-6:])
				j -= 6
				if j == 0 || f <= uint32(st[j-5]) {
					break
				}
			}
			*(*[6]byte)(st[j:]) = tmp
		}
	}
	if last := len(st) - 6; st[last+1] == 0 {
		n := uint32(0)
		for k := last; st[k+1] == 0; k -= 6 {
			n++
		}
		escFreq += n
		newNS := ns - n
		put16(cu[0:], newNS)
		if newNS == 1 {
			tmp := *(*[6]byte)(st)
			for {
				tmp[1] -= tmp[1] >> 1
				escFreq >>= 1
				if escFreq <= 1 {
					break
				}
			}
			m.insertNode(stats, u2i((ns+1)>>1))
			m.found = m.minCtx + 2
			*(*[6]byte)(cu[2:]) = tmp
			return
		}
		n0, n1 := (ns+1)>>1, (newNS+1)>>1
		if n0 != n1 {
			put32(cu[4:], m.shrinkUnits(stats, n0, n1))
		}
	}
	put16(cu[2:], sumFreq+escFreq-(escFreq>>1))
	m.found = le32(cu[4:])
}
