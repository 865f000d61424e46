package ppmd

// The variant I model updates (7-Zip's Ppmd8.c without FREEZE support).

// refresh halves (scale 1) or keeps the frequencies of c's states after
// its stats shrank to fit its state count (Refresh).
func (m *ModelI) refresh(c, oldNU, scale uint32) {
	i := m.numStats(c)
	s := m.shrinkUnits(m.stats(c), oldNU, (i+2)>>1)
	m.set32(c+4, s)
	flags := m.flags(c)&(0x10+0x04*scale) + 0x08*hi40(m.sym(s))
	escFreq := m.summFreq(c) - m.freq(s)
	f := (m.freq(s) + scale) >> scale
	m.setFreq(s, f)
	sumFreq := f
	for ; i > 0; i-- {
		s += 6
		escFreq -= m.freq(s)
		f := (m.freq(s) + scale) >> scale
		m.setFreq(s, f)
		sumFreq += f
		flags |= 0x08 * hi40(m.sym(s))
	}
	m.setSummFreq(c, sumFreq+(escFreq+scale)>>scale)
	m.setFlags(c, flags)
}

// cutOff drops the states of c and its successors (to the model's order)
// whose successors lie in the text area, and frees contexts left empty
// (CutOff). It returns c, or 0 when c was freed.
func (m *ModelI) cutOff(c, order uint32) uint32 {
	if m.numStats(c) == 0 {
		s := c + 2
		if m.successor(s) >= m.unitsStart {
			if order < m.maxOrder {
				m.setSucc(s, m.cutOff(m.successor(s), order+1))
			} else {
				m.setSucc(s, 0)
			}
			if m.successor(s) != 0 || order <= 9 {
				return c
			}
		}
		m.specialFreeUnit(c)
		return 0
	}
	tmp := (m.numStats(c) + 2) >> 1
	m.set32(c+4, m.moveUnitsUp(m.stats(c), tmp))
	stats := int64(m.stats(c))
	i := int64(m.numStats(c))
	for s := stats + i*6; s >= stats; s -= 6 {
		p := uint32(s)
		switch {
		case m.successor(p) < m.unitsStart:
			s2 := uint32(stats + i*6)
			i--
			m.setSucc(p, 0)
			m.swapStates(p, s2)
		case order < m.maxOrder:
			m.setSucc(p, m.cutOff(m.successor(p), order+1))
		default:
			m.setSucc(p, 0)
		}
	}
	if i != int64(m.numStats(c)) && order != 0 {
		m.setNumStats(c, uint32(i))
		s := m.stats(c)
		switch {
		case i < 0:
			m.freeUnits(s, tmp)
			m.specialFreeUnit(c)
			return 0
		case i == 0:
			m.setFlags(c, m.flags(c)&0x10+0x08*hi40(m.sym(s)))
			m.copyState(c+2, s)
			m.freeUnits(s, tmp)
			m.setFreq(c+2, (m.freq(c+2)+11)>>3)
		default:
			scale := uint32(0)
			if m.summFreq(c) > 16*uint32(i) {
				scale = 1
			}
			m.refresh(c, tmp, scale)
		}
	}
	return c
}

// restoreModel deals with a full heap (RestoreModel): it undoes the
// partial update from maxCtx down to c1, then restarts the model or cuts
// it down.
func (m *ModelI) restoreModel(c1 uint32) {
	m.text = m.alignOffset
	c := m.maxCtx
	for ; c != c1; c = m.suffix(c) {
		ns := (m.numStats(c) - 1) & 0xFF
		m.setNumStats(c, ns)
		if ns == 0 {
			s := m.stats(c)
			m.setFlags(c, m.flags(c)&0x10+0x08*hi40(m.sym(s)))
			m.copyState(c+2, s)
			m.specialFreeUnit(s)
			m.setFreq(c+2, (m.freq(c+2)+11)>>3)
		} else {
			m.refresh(c, (ns+3)>>1, 0)
		}
	}
	for ; c != m.minCtx; c = m.suffix(c) {
		if ns := m.numStats(c); ns == 0 {
			f := m.freq(c + 2)
			m.setFreq(c+2, f-f>>1)
		} else {
			sf := (m.summFreq(c) + 4) & 0xFFFF
			m.setSummFreq(c, sf)
			if sf > 128+4*ns {
				m.refresh(c, (ns+2)>>1, 1)
			}
		}
	}
	if m.restoreMethod == RestoreRestart || m.usedMemory() < m.size>>1 {
		m.restart()
		return
	}
	for m.suffix(m.maxCtx) != 0 {
		m.maxCtx = m.suffix(m.maxCtx)
	}
	// A model 7-Zip builds frees enough in one or two rounds; one that
	// frees nothing would loop: it fails, restarted so that it stays
	// consistent.
	for n := 0; ; n++ {
		m.cutOff(m.maxCtx, 0)
		if !m.expandTextArea() || n == 64 {
			m.restart()
			m.failed = true
			return
		}
		if m.usedMemory() <= 3*(m.size>>2) {
			break
		}
	}
	m.glueCount = 0
	m.orderFall = m.maxOrder
}

// createSuccessorsGeneric builds the chain of order+1 contexts for the
// found state (CreateSuccessors); s1 is the found symbol's state in c's
// suffix when the caller has it. It returns 0 when memory ran out.
// createSuccessors is this, or on amd64 its walk and the common case of
// its allocations in assembly (succ_amd64.s).
func (m *ModelI) createSuccessorsGeneric(skip bool, s1, c uint32) uint32 {
	heap := m.heap
	if len(heap) < heapPad {
		return 0
	}
	hm := uint(len(heap)) - heapPad // as in ModelH.decode
	fs := (*[6]byte)(heap[uint(m.found)&hm:])
	upBranch := uint32(fs[2]) | uint32(fs[3])<<8 | uint32(fs[4])<<16 | uint32(fs[5])<<24
	fsym := fs[0]
	ps := &m.stack
	num := uint(0) // unsigned: the bound below proves ps[num]
	if !skip {
		ps[num] = m.found
		num++
	}
	for {
		cs := (*[12]byte)(heap[uint(c)&hm:])
		suf := uint32(cs[8]) | uint32(cs[9])<<8 | uint32(cs[10])<<16 | uint32(cs[11])<<24
		if suf == 0 {
			break
		}
		c = suf
		cu := (*[12]byte)(heap[uint(c)&hm:])
		var s uint32
		switch {
		case s1 != 0:
			s, s1 = s1, 0
		case cu[0] != 0:
			s = le32(cu[4:])
			s += uint32(findSym((*[maxStatesBytes]byte)(heap[uint(s)&hm:]), cu[0], fsym))
			if st := (*[6]byte)(heap[uint(s)&hm:]); st[1] < maxFreq-9 {
				st[1]++
				put16(cu[2:], le16(cu[2:])+1)
			}
		default:
			s = c + 2
			if (*[12]byte)(heap[uint(le32(cu[8:]))&hm:])[0] == 0 && cu[3] < 24 {
				cu[3]++
			}
		}
		if succ := le32((*[6]byte)(heap[uint(s)&hm:])[2:]); succ != upBranch {
			c = succ
			if num == 0 {
				return c
			}
			break
		}
		if num >= uint(len(ps)) {
			return 0 // a suffix chain longer than the order: never in a model
		}
		ps[num] = s
		num++
	}
	if num == 0 {
		return c
	}
	upSym := heap[uint(upBranch)&hm]
	upSucc := upBranch + 1
	flags := byte(0x10*hi40(uint32(fsym)) + 0x08*hi40(uint32(upSym)))
	cu := (*[12]byte)(heap[uint(c)&hm:])
	var upFreq uint32
	if cu[0] == 0 {
		upFreq = uint32(cu[3])
	} else {
		s := le32(cu[4:])
		s += uint32(findSym((*[maxStatesBytes]byte)(heap[uint(s)&hm:]), cu[0], upSym))
		cf := uint32((*[6]byte)(heap[uint(s)&hm:])[1]) - 1
		s0 := le16(cu[2:]) - uint32(cu[0]) - cf
		if 2*cf <= s0 {
			upFreq = 1
			if 5*cf > s0 {
				upFreq = 2
			}
		} else {
			upFreq = 1 + (cf+2*s0-3)/s0
		}
	}
	// The new contexts' first word, NumStats-1 0, Flags and OneState's
	// symbol and frequency, computed once (Go does not hoist it out of
	// the loop).
	head := uint32(flags)<<8 | uint32(upSym)<<16 | upFreq<<24
	return m.newContexts(c, num, head, upSucc)
}

// newContexts is createSuccessors' second half: it makes num (1 or more)
// contexts of one state each (first word head, successor upSucc) from c
// up, each the suffix of the next, and links the state at m.stack[k]
// to the context made for it; it returns the last made, or 0 when memory
// ran out.
func (m *ModelI) newContexts(c uint32, num uint, head, upSucc uint32) uint32 {
	heap := m.heap
	if len(heap) < heapPad {
		return 0
	}
	hm := uint(len(heap)) - heapPad // as in ModelH.decode
	ps := &m.stack
	for {
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
		put32((*[6]byte)(heap[uint(ps[num])&hm:])[2:], c1)
		c = c1
		if num == 0 {
			return c
		}
	}
}

// reduceOrder handles a found state without successor (ReduceOrder).
func (m *ModelI) reduceOrder(s1, c uint32) uint32 {
	var s uint32
	c1 := c
	upBranch := m.text
	fsym := m.sym(m.found)
	m.setSucc(m.found, upBranch)
	m.orderFall++
	for {
		if s1 != 0 {
			c = m.suffix(c)
			s, s1 = s1, 0
		} else {
			if m.suffix(c) == 0 {
				return c
			}
			c = m.suffix(c)
			if ns := m.numStats(c); ns != 0 {
				s = m.stats(c)
				s += uint32(findSym(stateArr(m.heap, s), byte(ns), byte(fsym)))
				if m.freq(s) < maxFreq-9 {
					m.setFreq(s, m.freq(s)+2)
					m.setSummFreq(c, m.summFreq(c)+2)
				}
			} else {
				s = c + 2
				if m.freq(s) < 32 {
					m.setFreq(s, m.freq(s)+1)
				}
			}
		}
		if m.successor(s) != 0 {
			break
		}
		m.setSucc(s, upBranch)
		m.orderFall++
	}
	if m.successor(s) <= upBranch {
		s2 := m.found
		m.found = s
		m.setSucc(s, m.createSuccessors(false, 0, c))
		m.found = s2
	}
	if m.orderFall == 1 && c1 == m.maxCtx {
		m.setSucc(m.found, m.successor(s))
		m.text--
	}
	return m.successor(s)
}

// updateModelGeneric adds the found symbol to the contexts from maxCtx
// down to minCtx (UpdateModel). Like ModelH.updateModel it works on
// fixed-size views of the heap's records. updateModel is this, or on
// amd64 all of it in assembly but for the allocator's rare cases,
// reduceOrder and restoreModel (updateModelI, succ_amd64.s).
func (m *ModelI) updateModelGeneric() {
	heap := m.heap
	if len(heap) < heapPad {
		return
	}
	hm := uint(len(heap)) - heapPad // as in ModelH.decode
	fs := (*[6]byte)(heap[uint(m.found)&hm:])
	fSucc := uint32(fs[2]) | uint32(fs[3])<<8 | uint32(fs[4])<<16 | uint32(fs[5])<<24
	fFreq, fSym := uint32(fs[1]), fs[0]
	var s uint32
	if fFreq < maxFreq/4 {
		if suf := le32((*[12]byte)(heap[uint(m.minCtx)&hm:])[8:]); suf != 0 {
			cu := (*[12]byte)(heap[uint(suf)&hm:])
			if cu[0] == 0 {
				s = suf + 2
				if cu[3] < 32 {
					cu[3]++
				}
			} else {
				stats := uint32(cu[4]) | uint32(cu[5])<<8 | uint32(cu[6])<<16 | uint32(cu[7])<<24
				arr := (*[maxStatesBytes]byte)(heap[uint(stats)&hm:])
				i := findSym(arr, cu[0], fSym)
				st := (*[6]byte)(arr[i : i+6])
				if i >= 6 {
					if prev := (*[6]byte)(arr[i-6 : i]); st[1] >= prev[1] {
						*st, *prev = *prev, *st
						st = prev
						i -= 6
					}
				}
				s = le32(cu[4:]) + uint32(i)
				if st[1] < maxFreq-9 {
					st[1] += 2
					put16(cu[2:], le16(cu[2:])+2)
				}
			}
		}
	}
	c := m.maxCtx
	if m.orderFall == 0 && fSucc != 0 {
		// createSuccessors, its one call inline.
		cs, num, head, upSucc := createSuccessorsI(m, true, s, m.minCtx)
		if num != 0 {
			cs = m.createSuccessorsRest(true, s, m.minCtx, cs, num, head, upSucc)
		}
		put32((*[6]byte)(heap[uint(m.found)&hm:])[2:], cs)
		if cs == 0 {
			m.restoreModel(c)
		} else {
			m.maxCtx = cs
		}
		return
	}
	heap[uint(m.text)&hm] = fSym
	m.text++
	succ := m.text
	if m.text >= m.unitsStart {
		m.restoreModel(c)
		return
	}
	if fSucc == 0 {
		cs := m.reduceOrder(s, m.minCtx)
		if cs == 0 {
			m.restoreModel(c)
			return
		}
		fSucc = cs
	} else if fSucc < m.unitsStart {
		cs, num, head, upSucc := createSuccessorsI(m, false, s, m.minCtx)
		if num != 0 {
			cs = m.createSuccessorsRest(false, s, m.minCtx, cs, num, head, upSucc)
		}
		if cs == 0 {
			m.restoreModel(c)
			return
		}
		fSucc = cs
	}
	m.updateContexts(fSucc, succ)
}

// updateContexts is updateModel's end: the found symbol, its successor
// fSucc and the text position succ, added to the contexts from maxCtx
// down to minCtx.
func (m *ModelI) updateContexts(fSucc, succ uint32) {
	succ = fallSucc(&m.orderFall, &m.text, m.maxCtx, m.minCtx, fSucc, succ)
	m.updateContextsFrom(m.maxCtx, fSucc, succ)
}

// updateContextsFrom is updateContexts' loop from context c (maxCtx, or
// where updateModelI's loop stopped) on.
func (m *ModelI) updateContextsFrom(c, fSucc, succ uint32) {
	heap := m.heap
	if len(heap) < heapPad {
		return
	}
	hm := uint(len(heap)) - heapPad // as in ModelH.decode
	fs := (*[6]byte)(heap[uint(m.found)&hm:])
	fFreq, fSym := uint32(fs[1]), fs[0]
	minCtx := (*[12]byte)(heap[uint(m.minCtx)&hm:])
	ns := uint32(minCtx[0])
	s0 := le16(minCtx[2:]) - ns - fFreq
	flag := byte(0x08 * hi40(uint32(fSym)))
	for c != m.minCtx {
		cu := (*[12]byte)(heap[uint(c)&hm:])
		ns1 := uint32(cu[0])
		if ns1 != 0 {
			if ns1&1 != 0 {
				// The stats fill their units: move them to one more.
				oldNU := (ns1 + 1) >> 1
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
						m.restoreModel(c)
						return
					}
					old := le32(cu[4:])
					m.copyUnits(p, old, oldNU)
					fn := (*[12]byte)(heap[uint(old)&hm:])
					put32(fn[0:], emptyNode)
					put32(fn[4:], m.freeList[i])
					put32(fn[8:], i2u(i))
					m.freeList[i] = old
					m.stamps[i]++
					put32(cu[4:], p)
				}
			}
			if 3*ns1+1 < ns {
				put16(cu[2:], le16(cu[2:])+1)
			}
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
				m.restoreModel(c)
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
			sf := f + m.initEsc
			if ns > 2 {
				sf++
			}
			put16(cu[2:], sf)
		}
		sf := uint32(cu[2]) | uint32(cu[3])<<8
		cf := 2 * fFreq * (sf + 6)
		sum := sf + s0
		var n uint32
		if cf < 6*sum {
			n = 1 + b2u(cf > sum) + b2u(cf >= 4*sum)
			sf += 4
		} else {
			n = 4 + b2u(cf > 9*sum) + b2u(cf > 12*sum) + b2u(cf > 15*sum)
			sf += n
		}
		// The stores written out: an inlined put16 or put32 costs a
		// NOP, its inline mark, per context updated.
		cu[2] = byte(sf)
		cu[3] = byte(sf >> 8)
		stats := uint32(cu[4]) | uint32(cu[5])<<8 | uint32(cu[6])<<16 | uint32(cu[7])<<24
		s2 := (*[6]byte)(heap[uint(stats+(ns1+1)*6)&hm:])
		s2[0] = fSym
		s2[1] = byte(n)
		s2[2] = byte(succ)
		s2[3] = byte(succ >> 8)
		s2[4] = byte(succ >> 16)
		s2[5] = byte(succ >> 24)
		cu[1] |= flag
		cu[0] = byte(ns1 + 1)
		c = uint32(cu[8]) | uint32(cu[9])<<8 | uint32(cu[10])<<16 | uint32(cu[11])<<24
	}
	m.minCtx, m.maxCtx = fSucc, fSucc
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// rescale halves the frequencies of minCtx's states (Rescale).
func (m *ModelI) rescale() {
	mc := m.minCtx
	stats := m.stats(mc)
	s := m.found
	var tmp [6]byte
	tmp = *state(m.heap, s)
	for ; s != stats; s -= 6 {
		m.copyState(s, s-6)
	}
	*state(m.heap, s) = tmp
	escFreq := m.summFreq(mc) - m.freq(s)
	adder := b2u(m.orderFall != 0)
	f := ((m.freq(s)+4)&0xFF + adder) >> 1
	m.setFreq(s, f)
	sumFreq := f
	i := m.numStats(mc)
	for ; i > 0; i-- {
		s += 6
		escFreq -= m.freq(s)
		f := (m.freq(s) + adder) >> 1
		m.setFreq(s, f)
		sumFreq += f
		if f > m.freq(s-6) {
			tmp = *state(m.heap, s)
			s1 := s
			for {
				m.copyState(s1, s1-6)
				s1 -= 6
				if s1 == stats || uint32(tmp[1]) <= m.freq(s1-6) {
					break
				}
			}
			*state(m.heap, s1) = tmp
		}
	}
	if m.freq(s) == 0 {
		numStats := m.numStats(mc)
		i = 0
		for {
			i++
			s -= 6
			if m.freq(s) != 0 {
				break
			}
		}
		escFreq += i
		newNS := numStats - i
		m.setNumStats(mc, newNS)
		if newNS == 0 {
			tmp = *state(m.heap, stats)
			tmp[1] = byte((2*uint32(tmp[1]) + escFreq - 1) / escFreq)
			tmp[1] = min(tmp[1], maxFreq/3)
			m.insertNode(stats, u2i((numStats+2)>>1))
			m.setFlags(mc, m.flags(mc)&0x10+0x08*hi40(uint32(tmp[0])))
			m.found = mc + 2
			*state(m.heap, mc+2) = tmp
			return
		}
		n0, n1 := (numStats+2)>>1, (newNS+2)>>1
		if n0 != n1 {
			m.set32(mc+4, m.shrinkUnits(stats, n0, n1))
		}
		s = m.stats(mc)
		flags := m.flags(mc)&^0x08 | 0x08*hi40(m.sym(s))
		for i = newNS; i > 0; i-- {
			s += 6
			flags |= 0x08 * hi40(m.sym(s))
		}
		m.setFlags(mc, flags)
	}
	m.setSummFreq(mc, sumFreq+escFreq-escFreq>>1)
	m.setFlags(mc, m.flags(mc)|0x04)
	m.found = m.stats(mc)
}

// nextContext moves to the found state's successor or updates the model.
func (m *ModelI) nextContext() {
	if c := m.successor(m.found); m.orderFall == 0 && c >= m.unitsStart {
		m.minCtx, m.maxCtx = c, c
	} else {
		m.updateModel()
		m.minCtx = m.maxCtx
	}
}
