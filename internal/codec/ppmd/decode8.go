package ppmd

// The variant I symbol decoder (7-Zip's Ppmd8_DecodeSymbol) over the
// carry-less range decoder started by InitI.

// DecodeSymbol decodes one byte (0..255). At the end marker it returns
// ErrEndMark; invalid data gives ErrCorrupt, a read error that error.
func (m *ModelI) DecodeSymbol(rc *RangeDecoder) (int, error) {
	if m.failed {
		return 0, ErrCorrupt
	}
	var b [1]byte
	n, sym := m.decode(rc, b[:])
	rc.sync()
	if n == 0 {
		return m.result(rc, sym)
	}
	return int(b[0]), nil
}

// Decode fills dst with decoded bytes, returning how many were decoded
// before an error or the end marker (ErrEndMark); on an error the byte
// after those may have been written.
func (m *ModelI) Decode(rc *RangeDecoder, dst []byte) (int, error) {
	if m.failed {
		return 0, ErrCorrupt
	}
	n, sym := m.decode(rc, dst)
	rc.sync()
	if n < len(dst) {
		_, err := m.result(rc, sym)
		return n, err
	}
	return n, nil
}

// result turns a raw decode's stop (-1 at the end marker, -2 for invalid
// data, 0 for a read error or a failed model) into an error; invalid data
// fails the model.
func (m *ModelI) result(rc *RangeDecoder, sym int) (int, error) {
	switch {
	case m.failed:
		return 0, ErrCorrupt
	case rc.err != nil:
		return 0, rc.err
	case sym == -1:
		return 0, ErrEndMark
	case sym == -2:
		m.failed = true
		return 0, ErrCorrupt
	}
	return sym, nil
}

// decode fills dst with symbols and returns how many it decoded: all of
// dst, or fewer with -1 at the end marker, -2 for data no encoder
// produces, or 0 when the coder's input failed (rc.err) or the model
// failed to cut itself down (m.failed). Like ModelH.decode it is the
// whole symbol loop, works on fixed-size views of the heap and inlines
// the frequent updates.
func (m *ModelI) decode(rc *RangeDecoder, dst []byte) (int, int) {
	heap := m.heap
	if len(heap) < heapPad {
		return 0, -2
	}
	hm := uint(len(heap)) - heapPad // as in ModelH.decode
	if rc.err != nil || m.failed {
		return 0, 0 // in the loop, checked only where they may be set
	}
	n, e := 0, 0
	for ; n < len(dst); n++ {
		var sym byte
		c := m.minCtx
		ctx := (*[12]byte)(heap[uint(c)&hm:])
		if ns := uint32(ctx[0]); ns != 0 {
			s := uint32(ctx[4]) | uint32(ctx[5])<<8 | uint32(ctx[6])<<16 | uint32(ctx[7])<<24
			// The total is SummFreq cut down to the range
			// (PPMD8_CORRECT_SUM_RANGE, as 7-Zip 20.01 and later);
			// the updates read SummFreq again rather than keep both.
			total := min(uint32(ctx[2])|uint32(ctx[3])<<8, rc.rng)
			st := (*[maxStatesBytes]byte)(heap[uint(s)&hm:])
			n6 := (uint(ctx[0]) + 1) * 6
			count, hi := rc.thresholdI(total), uint32(st[1]) // one line: no NOP for threshold's inline mark
			if count < hi {
				// Update1_0.
				rc.decode(0, hi)
				sym = st[0]
				summ := uint32(ctx[2]) | uint32(ctx[3])<<8
				ps := b2u(2*hi >= summ)
				m.prevSuccess = ps
				m.runLength += int32(ps)
				put16(ctx[2:], summ+4)
				hi += 4
				st[1] = byte(hi)
				m.found = s
				if hi > maxFreq {
					m.rescale()
					m.nextContext()
				} else if succ := le32(st[2:]); m.orderFall == 0 && succ >= m.unitsStart {
					m.minCtx, m.maxCtx = succ, succ
				} else {
					if c := updateModelI(m); c != updDone {
						m.updateModelRest(c)
					}
				}
				goto next
			}
			m.prevSuccess = 0
			i := uint(6)
			for ; i < n6; i += 6 {
				if hi += uint32(st[i+1]); hi > count {
					break
				}
			}
			if i < n6 {
				rec, prev := (*[6]byte)(st[i:i+6]), (*[6]byte)(heap[uint(s+uint32(i)-6)&hm:])
				// Update1.
				f := uint32(rec[1])
				rc.decode(hi-f, f)
				sym = rec[0]
				f += 4
				rec[1] = byte(f)
				put16(ctx[2:], le16(ctx[2:])+4)
				m.found = s + uint32(i)
				if f > uint32(prev[1]) {
					*rec, *prev = *prev, *rec
					m.found -= 6
					if f > maxFreq {
						m.rescale()
						m.nextContext()
						goto next
					}
					rec = prev // NextContext, inline
				}
				if succ := le32(rec[2:]); m.orderFall == 0 && succ >= m.unitsStart {
					m.minCtx, m.maxCtx = succ, succ
				} else {
					if c := updateModelI(m); c != updDone {
						m.updateModelRest(c)
					}
				}
				goto next
			}
			if count >= total {
				e = -2
				goto stop
			}
			rc.decode(hi, total-hi)
		} else {
			freq := ctx[3]
			sym = ctx[2]
			prob := &m.binSumm[ns2IndxI[byte(freq-1)]][(uint32(ns2BSIndx[(*[12]byte)(heap[uint(le32(ctx[8:]))&hm:])[0]])+
				m.prevSuccess+uint32(ctx[1])+uint32((m.runLength>>26)&0x20))&63]
			bit := rc.bit(uint32(*prob))
			if bit == 0 {
				// UpdateBin.
				*prob = *prob + 1<<intBits - getMean(*prob)
				m.found = c + 2
				ctx[3] = freq + byte(b2u(freq < 196)) // a branch here is mispredicted often
				m.prevSuccess = 1
				m.runLength++
				if succ := le32(ctx[4:]); m.orderFall == 0 && succ >= m.unitsStart {
					m.minCtx, m.maxCtx = succ, succ
				} else {
					if c := updateModelI(m); c != updDone {
						m.updateModelRest(c)
					}
				}
				goto next
			}
			*prob -= getMean(*prob)
			m.initEsc = uint32(expEscape[*prob>>10])
			m.prevSuccess = 0
		}
		if e = m.decodeEscaped(rc); e < 0 {
			goto stop
		}
		if rc.err != nil {
			return n, 0 // decodeEscaped normalised
		}
		sym = byte(e)
	next:
		dst[n] = sym // before the coder's call, as ModelH.decode
		// About half the ranges below 2^24 need no normalisation in
		// this coder (their ends differ in the top byte): RAR's exact
		// condition, tested only below 2^24, saves those calls.
		if rc.rng < rcTop && rc.unnormalRAR() {
			// The common case, a byte shifted in from the buffer,
			// inline; normalize for more.
			if rc.rng >= rcBot && uint(rc.pos) < uint(len(rc.buf)) {
				rc.shiftRAR()
			}
			if rc.rng < rcTop && rc.unnormalRAR() {
				if rc.normalize(); rc.err != nil {
					return n, 0
				}
			}
		}
		// Only restoreModel fails the model, when the updates above
		// cannot cut it down.
		if m.failed {
			return n, 0
		}
	}
	return n, 0
stop:
	if rc.rng < rcTop {
		rc.normalize()
	}
	return n, e
}

// decodeEscapedGeneric continues after an escape from minCtx in the
// shorter contexts, skipping the symbols already seen (masked, those of
// minCtx first), as ModelH.decodeEscapedGeneric. decodeEscaped is this, or on amd64 its
// loop in assembly (escape_amd64.s).
func (m *ModelI) decodeEscapedGeneric(rc *RangeDecoder) int {
	heap := m.heap
	if len(heap) < heapPad {
		return -2
	}
	hm := uint(len(heap)) - heapPad // as in ModelH.decode
	mask := &m.charMask
	mc := m.minCtx
	// Only the symbols of minCtx masked: its one state's (a binary
	// context), or all of its states'.
	unmaskAll(mask)
	if ctx := (*[12]byte)(heap[uint(mc)&hm:]); ctx[0] == 0 {
		mask[ctx[2]] = 0
	} else {
		maskAll((*[maxStatesBytes]byte)(heap[uint(le32(ctx[4:]))&hm:]), ctx[0], mask)
	}
	for {
		if rc.rng < rcTop && rc.unnormalRAR() { // as in decode
			if rc.rng >= rcBot && uint(rc.pos) < uint(len(rc.buf)) {
				rc.shiftRAR()
			}
			if rc.rng < rcTop && rc.unnormalRAR() {
				rc.normalize()
			}
		}
		ctx := (*[12]byte)(heap[uint(mc)&hm:])
		numMasked := uint32(ctx[0])
		for {
			m.orderFall++
			suf := uint32(ctx[8]) | uint32(ctx[9])<<8 | uint32(ctx[10])<<16 | uint32(ctx[11])<<24
			if suf == 0 {
				m.minCtx = mc
				return -1
			}
			mc = suf
			ctx = (*[12]byte)(heap[uint(mc)&hm:])
			if uint32(ctx[0]) != numMasked {
				break
			}
		}
		m.minCtx = mc
		ns := uint32(ctx[0])
		s := uint32(ctx[4]) | uint32(ctx[5])<<8 | uint32(ctx[6])<<16 | uint32(ctx[7])<<24
		st, last := (*[maxStatesBytes]byte)(heap[uint(s)&hm:]), ctx[0]
		hi := sumUnmasked(st, last, mask)

		// MakeEscFreq.
		se, escFreq := &m.dummy, uint32(1)
		if ns != 0xFF {
			i := b2u(le16(ctx[2:]) > 11*(ns+1)) +
				2*b2u(2*ns < uint32((*[12]byte)(heap[uint(le32(ctx[8:]))&hm:])[0])+numMasked) + uint32(ctx[1])
			se = &m.see[ns2IndxI[ns+2]-3][i&31]
			escFreq = se.mean()
		}

		total := escFreq + hi
		total2 := min(total, rc.rng) // as in decode
		count := rc.thresholdI(total2)
		if count < hi {
			off, acc := findUnmasked(st, last, mask, count)
			rec := (*[6]byte)(heap[uint(s+uint32(off))&hm:])
			f := uint32(rec[1])
			rc.decode(acc-f, f)
			se.update()
			// Update2.
			m.found = s + uint32(off)
			f += 4
			rec[1] = byte(f)
			put16(ctx[2:], le16(ctx[2:])+4)
			sym := rec[0]
			if f > maxFreq {
				m.rescale()
			}
			m.runLength = m.initRL
			m.updateModel()
			m.minCtx = m.maxCtx
			return int(sym)
		}
		if count >= total2 {
			return -2
		}
		rc.decode(hi, total2-hi)
		se.summ += uint16(total)
		maskAll(st, last, mask)
	}
}
