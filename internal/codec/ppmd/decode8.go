package ppmd

// The variant I symbol decoder (7-Zip's Ppmd8_DecodeSymbol) over the
// carry-less range decoder started by InitI.

// DecodeSymbol decodes one byte (0..255). At the end marker it returns
// ErrEndMark; invalid data gives ErrCorrupt, a read error that error.
func (m *ModelI) DecodeSymbol(rc *RangeDecoder) (sym int, err error) {
	defer func() {
		// References are derived from decoded data only; this guards the
		// heap against a defect turning into a crash.
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

// Decode fills dst with decoded bytes, returning how many were decoded
// before an error or the end marker (ErrEndMark).
func (m *ModelI) Decode(rc *RangeDecoder, dst []byte) (n int, err error) {
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
		if sym < 0 {
			if sym == -1 {
				return n, ErrEndMark
			}
			return n, ErrCorrupt
		}
		dst[n] = byte(sym)
		n++
	}
	return n, nil
}

// newMask starts a new set of masked symbols, as ModelH.newMask.
func (m *ModelI) newMask() byte {
	m.escCount++
	if m.escCount == 0 {
		m.charMask = [256]byte{}
		m.escCount = 1
	}
	return m.escCount
}

func (m *ModelI) decode(rc *RangeDecoder) int {
	mask := &m.charMask
	c := m.minCtx
	if ns := m.numStats(c); ns != 0 {
		s := m.stats(c)
		summ := m.summFreq(c)
		count := rc.threshold(summ)
		hi := m.freq(s)
		if count < hi {
			rc.decode(0, hi)
			m.found = s
			sym := m.sym(s)
			// Update1_0.
			m.prevSuccess = b2u(2*hi >= summ)
			m.runLength += int32(m.prevSuccess)
			m.setSummFreq(c, summ+4)
			m.setFreq(s, hi+4)
			if hi+4 > maxFreq {
				m.rescale()
			}
			m.nextContext()
			return int(sym)
		}
		m.prevSuccess = 0
		for i := ns; i > 0; i-- {
			s += 6
			f := m.freq(s)
			hi += f
			if hi > count {
				rc.decode(hi-f, f)
				m.found = s
				sym := m.sym(s)
				// Update1.
				m.setFreq(s, f+4)
				m.setSummFreq(c, summ+4)
				if f+4 > m.freq(s-6) {
					m.swapStates(s, s-6)
					m.found = s - 6
					if f+4 > maxFreq {
						m.rescale()
					}
				}
				m.nextContext()
				return int(sym)
			}
		}
		if count >= summ {
			return -2
		}
		rc.decode(hi, summ-hi)
		esc := m.newMask()
		mask[m.sym(s)] = esc
		for i := ns; i > 0; i-- {
			s -= 6
			mask[m.sym(s)] = esc
		}
	} else {
		os := c + 2
		prob := &m.binSumm[ns2IndxI[m.freq(os)-1]][uint32(ns2BSIndx[m.numStats(m.suffix(c))])+
			m.prevSuccess+m.flags(c)+uint32((m.runLength>>26)&0x20)]
		if rc.bit(uint32(*prob)) == 0 {
			*prob = *prob + 1<<intBits - getMean(*prob)
			m.found = os
			sym := m.sym(os)
			// UpdateBin.
			if f := m.freq(os); f < 196 {
				m.setFreq(os, f+1)
			}
			m.prevSuccess = 1
			m.runLength++
			m.nextContext()
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
		num := ns - numMasked
		esc := m.escCount
		var hi, n uint32
		for n != num {
			if mask[m.sym(s)] != esc {
				hi += m.freq(s)
				m.ps[byte(n)] = s
				n++
			}
			s += 6
		}

		// MakeEscFreq.
		se, escFreq := &m.dummy, uint32(1)
		if ns != 0xFF {
			i := b2u(m.summFreq(c) > 11*(ns+1)) +
				2*b2u(2*ns < m.numStats(m.suffix(c))+numMasked) + m.flags(c)
			se = &m.see[ns2IndxI[ns+2]-3][i]
			escFreq = se.mean()
		}

		total := escFreq + hi
		count := rc.threshold(total)
		if count < hi {
			k := 0
			acc := m.freq(m.ps[0])
			for acc <= count {
				k++
				acc += m.freq(m.ps[byte(k)])
			}
			s = m.ps[byte(k)]
			f := m.freq(s)
			rc.decode(acc-f, f)
			se.update()
			m.found = s
			sym := m.sym(s)
			// Update2.
			m.setSummFreq(c, m.summFreq(c)+4)
			m.setFreq(s, f+4)
			if f+4 > maxFreq {
				m.rescale()
			}
			m.runLength = m.initRL
			m.updateModel()
			m.minCtx = m.maxCtx
			return int(sym)
		}
		if count >= total {
			return -2
		}
		rc.decode(hi, total-hi)
		se.summ += uint16(total)
		for _, p := range m.ps[:n] {
			mask[m.sym(p)] = esc
		}
	}
}
