package ppmd

// createSuccessors builds the chain of order+1 contexts for the found
// state (CreateSuccessors); 0 when memory ran out.
func (m *ModelH) createSuccessors(skip bool) uint32 {
	c := m.minCtx
	upBranch := m.successor(m.found)
	fsym := m.sym(m.found)
	num := 0
	if !skip {
		m.stack[num] = m.found
		num++
	}
	for m.suffix(c) != 0 {
		c = m.suffix(c)
		var s uint32
		if m.numStats(c) != 1 {
			s = m.stats(c)
			for m.sym(s) != fsym {
				s += 6
			}
		} else {
			s = oneState(c)
		}
		succ := m.successor(s)
		if succ != upBranch {
			c = succ
			if num == 0 {
				return c
			}
			break
		}
		if num >= len(m.stack) {
			return 0
		}
		m.stack[num] = s
		num++
	}
	if upBranch >= uint32(len(m.heap)) {
		return 0
	}
	upSym := uint32(m.heap[upBranch])
	upSucc := upBranch + 1
	var upFreq uint32
	if m.numStats(c) == 1 {
		upFreq = m.freq(oneState(c))
	} else {
		s := m.stats(c)
		for m.sym(s) != upSym {
			s += 6
		}
		cf := m.freq(s) - 1
		s0 := m.summFreq(c) - m.numStats(c) - cf
		if 2*cf <= s0 {
			upFreq = 1
			if 5*cf > s0 {
				upFreq = 2
			}
		} else {
			upFreq = 1 + (2*cf+3*s0-1)/(2*s0)
		}
	}
	for num > 0 {
		c1 := m.allocContext()
		if c1 == 0 {
			return 0
		}
		m.set16(c1, 1)
		os := oneState(c1)
		m.heap[os] = byte(upSym)
		m.heap[os+1] = byte(upFreq)
		m.setSucc(os, upSucc)
		m.set32(c1+8, c)
		num--
		m.setSucc(m.stack[num], c1)
		c = c1
	}
	return c
}

// updateModel adds the found symbol to the contexts from maxCtx down to
// minCtx (UpdateModel).
func (m *ModelH) updateModel() {
	fs := m.found
	fsym, ffreq := m.sym(fs), m.freq(fs)
	fSucc := m.successor(fs)
	if ffreq < maxFreq/4 && m.suffix(m.minCtx) != 0 {
		c := m.suffix(m.minCtx)
		if m.numStats(c) == 1 {
			s := oneState(c)
			if m.freq(s) < 32 {
				m.setFreq(s, m.freq(s)+1)
			}
		} else {
			s := m.stats(c)
			if m.sym(s) != fsym {
				for {
					s += 6
					if m.sym(s) == fsym {
						break
					}
				}
				if m.freq(s) >= m.freq(s-6) {
					m.swapStates(s, s-6)
					s -= 6
				}
			}
			if m.freq(s) < maxFreq-9 {
				m.setFreq(s, m.freq(s)+2)
				m.set16(c+2, m.summFreq(c)+2)
			}
		}
	}
	if m.orderFall == 0 {
		c := m.createSuccessors(true)
		m.minCtx, m.maxCtx = c, c
		if c == 0 {
			m.restart()
			return
		}
		m.setSucc(m.found, c)
		return
	}
	m.heap[m.text] = byte(fsym)
	m.text++
	succ := m.text
	if m.text >= m.unitsBeg {
		m.restart()
		return
	}
	if fSucc != 0 {
		if fSucc <= succ {
			cs := m.createSuccessors(false)
			if cs == 0 {
				m.restart()
				return
			}
			fSucc = cs
		}
		m.orderFall--
		if m.orderFall == 0 {
			succ = fSucc
			if m.maxCtx != m.minCtx {
				m.text--
			}
		}
	} else {
		m.setSucc(m.found, succ)
		fSucc = m.minCtx
	}
	ns := m.numStats(m.minCtx)
	s0 := m.summFreq(m.minCtx) - ns - (ffreq - 1)
	for c := m.maxCtx; c != m.minCtx; c = m.suffix(c) {
		ns1 := m.numStats(c)
		if ns1 != 1 {
			if ns1&1 == 0 {
				oldNU := ns1 >> 1
				i := u2i(oldNU)
				if i != u2i(oldNU+1) {
					p := m.allocUnits(i + 1)
					if p == 0 {
						m.restart()
						return
					}
					old := m.stats(c)
					copy(m.heap[p:p+oldNU*unitSize], m.heap[old:old+oldNU*unitSize])
					m.insertNode(old, i)
					m.set32(c+4, p)
				}
			}
			sf := m.summFreq(c)
			if 2*ns1 < ns {
				sf++
			}
			if 4*ns1 <= ns && m.summFreq(c) <= 8*ns1 {
				sf += 2
			}
			m.set16(c+2, sf)
		} else {
			p := m.allocUnits(0)
			if p == 0 {
				m.restart()
				return
			}
			m.copyState(p, oneState(c))
			m.set32(c+4, p)
			f := m.freq(p)
			if f < maxFreq/4-1 {
				f <<= 1
			} else {
				f = maxFreq - 4
			}
			m.setFreq(p, f)
			sf := f + m.initEsc
			if ns > 3 {
				sf++
			}
			m.set16(c+2, sf)
		}
		cf := 2 * ffreq * (m.summFreq(c) + 6)
		sf := s0 + m.summFreq(c)
		if cf < 6*sf {
			n := uint32(1)
			if cf > sf {
				n++
			}
			if cf >= 4*sf {
				n++
			}
			cf = n
			m.set16(c+2, m.summFreq(c)+3)
		} else {
			n := uint32(4)
			if cf >= 9*sf {
				n++
			}
			if cf >= 12*sf {
				n++
			}
			if cf >= 15*sf {
				n++
			}
			cf = n
			m.set16(c+2, m.summFreq(c)+cf)
		}
		s := m.stats(c) + ns1*6
		m.setSucc(s, succ)
		m.heap[s] = byte(fsym)
		m.heap[s+1] = byte(cf)
		m.set16(c, ns1+1)
	}
	m.minCtx, m.maxCtx = fSucc, fSucc
}

// rescale halves the frequencies of minCtx's states (Rescale).
func (m *ModelH) rescale() {
	c := m.minCtx
	stats := m.stats(c)
	s := m.found
	for ; s != stats; s -= 6 {
		m.swapStates(s, s-6)
	}
	escFreq := m.summFreq(c) - m.freq(s)
	m.setFreq(s, m.freq(s)+4)
	adder := uint32(0)
	if m.orderFall != 0 {
		adder = 1
	}
	m.setFreq(s, (m.freq(s)+adder)>>1)
	sumFreq := m.freq(s)
	numStats := m.numStats(c)
	i := numStats - 1
	for ; i > 0; i-- {
		s += 6
		escFreq -= m.freq(s)
		m.setFreq(s, (m.freq(s)+adder)>>1)
		sumFreq += m.freq(s)
		if m.freq(s) > m.freq(s-6) {
			var tmp [6]byte
			copy(tmp[:], m.heap[s:s+6])
			s1 := s
			for {
				copy(m.heap[s1:s1+6], m.heap[s1-6:s1])
				s1 -= 6
				if s1 == stats || uint32(tmp[1]) <= m.freq(s1-6) {
					break
				}
			}
			copy(m.heap[s1:s1+6], tmp[:])
		}
	}
	if m.freq(s) == 0 {
		n := uint32(0)
		for {
			n++
			s -= 6
			if m.freq(s) != 0 {
				break
			}
		}
		escFreq += n
		newNS := numStats - n
		m.set16(c, newNS)
		if newNS == 1 {
			var tmp [6]byte
			copy(tmp[:], m.heap[stats:stats+6])
			for {
				tmp[1] -= tmp[1] >> 1
				escFreq >>= 1
				if escFreq <= 1 {
					break
				}
			}
			m.insertNode(stats, u2i((numStats+1)>>1))
			m.found = oneState(c)
			copy(m.heap[m.found:m.found+6], tmp[:])
			return
		}
		n0, n1 := (numStats+1)>>1, (newNS+1)>>1
		if n0 != n1 {
			m.set32(c+4, m.shrinkUnits(stats, n0, n1))
		}
	}
	m.set16(c+2, sumFreq+escFreq-(escFreq>>1))
	m.found = m.stats(c)
}
