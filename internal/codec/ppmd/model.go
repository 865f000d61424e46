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

// nextContext moves to the found state's successor or updates the model.
func (m *ModelH) nextContext() {
	c := m.successor(m.found)
	if m.orderFall == 0 && c > m.text {
		m.minCtx, m.maxCtx = c, c
	} else {
		m.updateModel()
	}
}

func (m *ModelH) update1() {
	s := m.found
	m.setFreq(s, m.freq(s)+4)
	m.set16(m.minCtx+2, m.summFreq(m.minCtx)+4)
	if m.freq(s) > m.freq(s-6) {
		m.swapStates(s, s-6)
		s -= 6
		m.found = s
		if m.freq(s) > maxFreq {
			m.rescale()
		}
	}
	m.nextContext()
}

func (m *ModelH) update1_0() {
	if 2*m.freq(m.found) > m.summFreq(m.minCtx) {
		m.prevSuccess = 1
	} else {
		m.prevSuccess = 0
	}
	m.runLength += int32(m.prevSuccess)
	m.set16(m.minCtx+2, m.summFreq(m.minCtx)+4)
	f := m.freq(m.found) + 4
	m.setFreq(m.found, f)
	if f > maxFreq {
		m.rescale()
	}
	m.nextContext()
}

func (m *ModelH) updateBin() {
	f := m.freq(m.found)
	if f < 128 {
		m.setFreq(m.found, f+1)
	}
	m.prevSuccess = 1
	m.runLength++
	m.nextContext()
}

func (m *ModelH) update2() {
	s := m.found
	m.setFreq(s, m.freq(s)+4)
	m.set16(m.minCtx+2, m.summFreq(m.minCtx)+4)
	if m.freq(s) > maxFreq {
		m.rescale()
	}
	m.runLength = m.initRL
	m.updateModel()
}

// DecodeSymbol decodes one byte (0..255). At the end marker it returns
// ErrEndMark; invalid data gives ErrCorrupt, a read error that error.
func (m *ModelH) DecodeSymbol(rc *RangeDecoder) (sym int, err error) {
	defer func() {
		// The model's references are derived from decoded data only; this
		// guards the heap against a defect turning into a crash.
		if p := recover(); p != nil {
			sym, err = 0, ErrCorrupt
		}
	}()
	sym = m.decode(rc)
	if rc.err != nil {
		return 0, rc.err
	}
	switch sym {
	case -1:
		return 0, ErrEndMark
	case -2:
		return 0, ErrCorrupt
	}
	return sym, nil
}

// Decode fills dst with decoded bytes (7z streams, whose size is known),
// returning how many were decoded before an error or the end marker.
func (m *ModelH) Decode(rc *RangeDecoder, dst []byte) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = ErrCorrupt
		}
	}()
	for n < len(dst) {
		sym := m.decode(rc)
		if rc.err != nil {
			return n, rc.err
		}
		switch sym {
		case -1:
			return n, ErrEndMark
		case -2:
			return n, ErrCorrupt
		}
		dst[n] = byte(sym)
		n++
	}
	return n, nil
}

func (m *ModelH) decode(rc *RangeDecoder) int {
	mask := &m.charMask
	c := m.minCtx
	if ns := m.numStats(c); ns != 1 {
		s := m.stats(c)
		summ := m.summFreq(c)
		count := rc.threshold(summ)
		hi := m.freq(s)
		if count < hi {
			rc.decode(0, hi)
			m.found = s
			sym := m.sym(s)
			m.update1_0()
			return int(sym)
		}
		m.prevSuccess = 0
		for i := ns - 1; i > 0; i-- {
			s += 6
			f := m.freq(s)
			hi += f
			if hi > count {
				rc.decode(hi-f, f)
				m.found = s
				sym := m.sym(s)
				m.update1()
				return int(sym)
			}
		}
		if count >= summ {
			return -2
		}
		m.hiBitsFlag = uint32(hb2Flag[m.sym(m.found)])
		rc.decode(hi, summ-hi)
		esc := m.newMask()
		mask[m.sym(s)] = esc
		for i := ns - 1; i > 0; i-- {
			s -= 6
			mask[m.sym(s)] = esc
		}
	} else {
		os := oneState(c)
		m.hiBitsFlag = uint32(hb2Flag[m.sym(m.found)])
		prob := &m.binSumm[m.freq(os)-1][m.prevSuccess+
			uint32(ns2BSIndx[m.numStats(m.suffix(c))-1])+
			m.hiBitsFlag+2*uint32(hb2Flag[m.sym(os)])+
			uint32((m.runLength>>26)&0x20)]
		if rc.bit(uint32(*prob)) == 0 {
			*prob = *prob + 1<<intBits - getMean(*prob)
			m.found = os
			sym := m.sym(os)
			m.updateBin()
			return int(sym)
		}
		*prob -= getMean(*prob)
		m.initEsc = uint32(expEscape[*prob>>10])
		mask[m.sym(os)] = m.newMask()
		m.prevSuccess = 0
	}
	for {
		numMasked := m.numStats(m.minCtx)
		for {
			m.orderFall++
			suf := m.suffix(m.minCtx)
			if suf == 0 {
				return -1
			}
			m.minCtx = suf
			if m.numStats(suf) != numMasked {
				break
			}
		}
		c := m.minCtx
		ns := m.numStats(c)
		s := m.stats(c)
		var hi uint32
		num := ns - numMasked
		n := uint32(0)
		esc := m.escCount
		for n != num {
			if mask[m.sym(s)] != esc {
				hi += m.freq(s)
				m.ps[n] = s
				n++
			}
			s += 6
		}
		se, escFreq := m.makeEscFreq(numMasked)
		total := escFreq + hi
		count := rc.threshold(total)
		if count < hi {
			k := 0
			acc := m.freq(m.ps[0])
			for acc <= count {
				k++
				acc += m.freq(m.ps[k])
			}
			s = m.ps[k]
			f := m.freq(s)
			rc.decode(acc-f, f)
			se.update()
			m.found = s
			sym := m.sym(s)
			m.update2()
			return int(sym)
		}
		if count >= total {
			return -2
		}
		rc.decode(hi, total-hi)
		se.summ += uint16(total)
		for i := uint32(0); i < num; i++ {
			mask[m.sym(m.ps[i])] = esc
		}
	}
}

// newMask starts a new set of masked symbols: a symbol is masked while
// its charMask entry equals escCount.
func (m *ModelH) newMask() byte {
	m.escCount++
	if m.escCount == 0 {
		m.charMask = [256]byte{}
		m.escCount = 1
	}
	return m.escCount
}

func getMean(prob uint16) uint16 {
	return (prob + 1<<(periodBits-2)) >> periodBits
}

// makeEscFreq picks the SEE context for an escape (MakeEscFreq).
func (m *ModelH) makeEscFreq(numMasked uint32) (*see, uint32) {
	c := m.minCtx
	ns := m.numStats(c)
	if ns == 256 {
		return &m.dummy, 1
	}
	nonMasked := ns - numMasked
	i := uint32(0)
	if nonMasked < m.numStats(m.suffix(c))-ns {
		i++
	}
	if m.summFreq(c) < 11*ns {
		i += 2
	}
	if numMasked > nonMasked {
		i += 4
	}
	i += m.hiBitsFlag
	se := &m.see[ns2Indx[nonMasked-1]][i]
	return se, se.mean()
}
