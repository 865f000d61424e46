package ppmd

// The symbol decoder (7-Zip's Ppmd7_DecodeSymbol, unrar's
// ModelPPM::DecodeChar). It is the hot path: the heap is held in a local
// slice, contexts and state arrays are resliced once to fixed-size views
// so that field loads carry no further bounds checks, and the frequent
// updates (Update1, Update1_0, UpdateBin, NextContext) are inlined here;
// UpdateModel, CreateSuccessors and Rescale stay out of line. On the hot
// paths a call of an inlined helper shares its line with an expression
// of the caller's: Go emits a NOP for the inline mark of a call whose
// line has no instruction of its own.

// DecodeSymbol decodes one byte (0..255). At the end marker it returns
// ErrEndMark; invalid data gives ErrCorrupt, a read error that error.
func (m *ModelH) DecodeSymbol(rc *RangeDecoder) (int, error) {
	if m.failed {
		return 0, ErrCorrupt
	}
	var b [1]byte
	m.until = noStop
	n, sym := m.decode(rc, b[:])
	rc.sync()
	if n == 0 {
		return m.result(rc, sym)
	}
	return int(b[0]), nil
}

// DecodeUntil fills dst with decoded bytes up to and including the first
// that equals stop (RAR's escape character, which begins a code rather
// than a literal), returning how many it decoded before an error or the
// end marker; on an error the byte after those may have been written.
// The coder has then read exactly what DecodeSymbol calls would have.
func (m *ModelH) DecodeUntil(rc *RangeDecoder, dst []byte, stop byte) (int, error) {
	if m.failed {
		return 0, ErrCorrupt
	}
	m.until = uint32(stop)
	n, sym := m.decode(rc, dst)
	rc.sync()
	if n < len(dst) && (n == 0 || dst[n-1] != stop) {
		_, err := m.result(rc, sym)
		return n, err
	}
	return n, nil
}

// Decode fills dst with decoded bytes (7z streams, whose size is known),
// returning how many were decoded before an error or the end marker; on
// an error the byte after those may have been written.
func (m *ModelH) Decode(rc *RangeDecoder, dst []byte) (int, error) {
	if m.failed {
		return 0, ErrCorrupt
	}
	m.until = noStop
	n, sym := m.decode(rc, dst)
	rc.sync()
	if n < len(dst) {
		_, err := m.result(rc, sym)
		return n, err
	}
	return n, nil
}

// result turns a raw decode's stop (-1 at the end marker, -2 for invalid
// data, 0 for a read error) into an error; invalid data fails the model.
func (m *ModelH) result(rc *RangeDecoder, sym int) (int, error) {
	if rc.err != nil {
		return 0, rc.err
	}
	switch sym {
	case -1:
		return 0, ErrEndMark
	case -2:
		m.failed = true
		return 0, ErrCorrupt
	}
	return sym, nil
}

// nextContext moves to the found state's successor or updates the model
// (NextContext).
func (m *ModelH) nextContext() {
	heap := m.heap
	if len(heap) < heapPad {
		return
	}
	c := le32(state(heap, m.found)[2:])
	if m.orderFall == 0 && c > m.text {
		m.minCtx, m.maxCtx = c, c
	} else {
		m.updateModel()
	}
}

// noStop is m.until when no symbol ends decode's run.
const noStop = 256

// decode fills dst with symbols and returns how many it decoded: all of
// dst, or up to and including the first equal to m.until (noStop: none)
// with 0, or fewer with -1 at the end marker, -2 for data no encoder
// produces, or 0 when the coder's input failed (rc.err). The symbol loop
// is this one function, so that a symbol that needs no model update
// costs no call; each path ends its symbol with goto next, or goto stop.
func (m *ModelH) decode(rc *RangeDecoder, dst []byte) (int, int) {
	heap := m.heap
	if len(heap) < heapPad {
		return 0, -2
	}
	// The hot lines write record views and fields out: a line holding
	// only an inlined call (unit, le16, ...) costs a NOP, its inline mark.
	hm := uint(len(heap)) - heapPad
	if rc.err != nil {
		return 0, 0 // the symbol paths check only where the coder may fail
	}
	n, e := 0, 0
	for ; n < len(dst); n++ {
		var sym byte
		c := m.minCtx
		ctx := (*[12]byte)(heap[uint(c)&hm:])
		if ns := uint32(ctx[0]) | uint32(ctx[1])<<8; ns != 1 {
			s := uint32(ctx[4]) | uint32(ctx[5])<<8 | uint32(ctx[6])<<16 | uint32(ctx[7])<<24
			summ := uint32(ctx[2]) | uint32(ctx[3])<<8
			// A context has 2..256 states.
			st, n6 := stateArr(heap, s), (uint(byte(ns-1))+1)*6
			count, hi := rc.threshold(summ), uint32(st[1])
			if count < hi {
				// Update1_0: the most probable symbol.
				rc.decode(0, hi)
				sym = st[0]
				ps := b2u(2*hi > summ)
				m.prevSuccess = ps
				m.runLength += int32(ps)
				put16(ctx[2:], summ+4)
				hi += 4
				st[1] = byte(hi)
				m.found = s
				if hi > maxFreq {
					m.rescale()
					m.nextContext()
				} else if succ := le32(st[2:]); m.orderFall == 0 && succ > m.text {
					m.minCtx, m.maxCtx = succ, succ
				} else {
					if c := updateModelH(m); c != updDone {
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
				rec, prev := (*[6]byte)(st[i:i+6]), state(heap, s+uint32(i)-6)
				// Update1: a later symbol moves up past a less frequent one.
				f := uint32(rec[1])
				rc.decode(hi-f, f)
				sym = rec[0]
				f += 4
				rec[1] = byte(f)
				put16(ctx[2:], summ+4)
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
				if succ := le32(rec[2:]); m.orderFall == 0 && succ > m.text {
					m.minCtx, m.maxCtx = succ, succ
				} else {
					if c := updateModelH(m); c != updDone {
						m.updateModelRest(c)
					}
				}
				goto next
			}
			if count >= summ {
				e = -2
				goto stop
			}
			m.hiBitsFlag = uint32(hb2Flag[*at(heap, m.found)])
			rc.decode(hi, summ-hi)
			maskAll(st, ctx[0]-1, &m.charMask) // ns-1's low byte, reloaded
		} else {
			freq := ctx[3]
			sym = ctx[2]
			m.hiBitsFlag = uint32(hb2Flag[*at(heap, m.found)])
			prob := &m.binSumm[(freq-1)&127][(m.prevSuccess+
				uint32(ns2BSIndx[byte(le16(unit(heap, le32(ctx[8:]))[0:])-1)])+
				m.hiBitsFlag+2*uint32(hb2Flag[sym])+
				uint32((m.runLength>>26)&0x20))&63]
			bit := rc.bit(uint32(*prob))
			if bit == 0 {
				// UpdateBin.
				*prob = *prob + 1<<intBits - getMean(*prob)
				m.found = c + 2
				ctx[3] = freq + byte(b2u(freq < 128)) // a branch here is mispredicted often
				m.prevSuccess = 1
				m.runLength++
				if succ := le32(ctx[4:]); m.orderFall == 0 && succ > m.text {
					m.minCtx, m.maxCtx = succ, succ
				} else {
					if c := updateModelH(m); c != updDone {
						m.updateModelRest(c)
					}
				}
				goto next
			}
			*prob -= getMean(*prob)
			m.initEsc = uint32(expEscape[*prob>>10])
			m.charMask[sym] = 0
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
		// The symbol is stored before the coder normalises (the call
		// would have it spilled); it counts only once that succeeded.
		dst[n] = sym
		if uint32(sym) == m.until {
			goto found // here, where sym need not outlive a call
		}
		// Both coders normalise only below 2^24 (see normalize); only
		// that fails 7-Zip's coder (its range is at least 2^24, above
		// any total), and RAR's threshold, which fails on a range below
		// the total, leaves one below 2^24 too. RAR's coder is tested
		// for its own condition here, below 2^24 where its range's ends
		// share their top byte (rng|low^(low+rng) below 2^24), or below
		// 2^15: one branch that is taken as often as normalize shifts,
		// where a test of the range alone was mispredicted about as
		// often again.
		if rc.isRAR {
			if (rc.rng|(rc.low^(rc.low+rc.rng))) < rcTop || rc.rng < rcBot {
				if rc.normalize(); rc.err != nil {
					return n, 0
				}
			}
		} else if rc.rng < rcTop {
			// 7-Zip's coder's common case, a byte shifted in from the
			// buffer, inline; normalize for more.
			if uint(rc.pos) < uint(len(rc.buf)) {
				rc.shift7z()
			}
			if rc.rng < rcTop {
				if rc.normalize(); rc.err != nil {
					return n, 0
				}
			}
		}
	}
	return n, 0
found:
	if rc.rng < rcTop {
		if rc.normalize(); rc.err != nil {
			return n, 0
		}
	}
	return n + 1, 0
stop:
	if rc.rng < rcTop {
		rc.normalize()
	}
	return n, e
}

// decodeEscapedGeneric continues after an escape from minCtx in the
// shorter contexts, skipping the symbols already seen: their charMask
// entries are 0, those of the others 0xFF, so that a state's frequency
// is freq & mask without a branch. decodeEscaped is this, or on amd64
// for 7-Zip's coder its loop in assembly (escape_amd64.s).
func (m *ModelH) decodeEscapedGeneric(rc *RangeDecoder) int {
	return m.escapeFrom(rc, m.minCtx)
}

// escapeFrom is decodeEscapedGeneric from minCtx after zero or more
// escapes, first being the context whose states decode masked.
func (m *ModelH) escapeFrom(rc *RangeDecoder, first uint32) int {
	heap := m.heap
	if len(heap) < heapPad {
		return -2
	}
	hm := uint(len(heap)) - heapPad // as in decode
	mask := &m.charMask
	mc := m.minCtx
	for {
		if rc.rng < rcTop {
			if !rc.isRAR && uint(rc.pos) < uint(len(rc.buf)) { // as in decode
				rc.shift7z()
			}
			if rc.rng < rcTop {
				rc.normalize()
			}
		}
		pc := mc // the context just escaped from
		mu := (*[12]byte)(heap[uint(mc)&hm:])
		numMasked := uint32(mu[0]) | uint32(mu[1])<<8
		ctx := mu
		for {
			m.orderFall++
			if suf := le32(ctx[8:]); suf != 0 {
				mc = suf
			} else {
				m.minCtx = mc
				unmaskAll(mask)
				return -1
			}
			if ctx = unit(heap, mc); le16(ctx[0:]) != numMasked {
				break
			}
		}
		m.minCtx = mc
		ns := uint32(ctx[0]) | uint32(ctx[1])<<8
		s := uint32(ctx[4]) | uint32(ctx[5])<<8 | uint32(ctx[6])<<16 | uint32(ctx[7])<<24
		st, last := stateArr(heap, s), byte(ns-1)
		hi := sumUnmasked(st, last, mask)

		// MakeEscFreq: the SEE context of this escape.
		se, escFreq := &m.dummy, uint32(1)
		if ns != 256 {
			nonMasked := ns - numMasked
			i := m.hiBitsFlag
			if nonMasked < le16(unit(heap, le32(ctx[8:]))[0:])-ns {
				i++
			}
			if le16(ctx[2:]) < 11*ns {
				i += 2
			}
			if numMasked > nonMasked {
				i += 4
			}
			se = &m.see[ns2Indx[byte(nonMasked-1)]][i&15]
			escFreq = se.mean()
		}

		total := escFreq + hi
		count := rc.threshold(total)
		if count < hi {
			off, acc := findUnmasked(st, last, mask, count)
			// Clear the mask for the next symbol's escapes: after one
			// escape the masked symbols are the first context's states;
			// after more, the union of the contexts escaped from, which
			// the last of them need not hold (rescale drops states), so
			// all of it.
			if pu := unit(heap, pc); pc != first {
				unmaskAll(mask)
			} else if numMasked == 1 {
				mask[pu[2]] = 0xFF
			} else {
				unmaskStates(stateArr(heap, le32(pu[4:])), byte(numMasked-1), mask)
			}
			rec := state(heap, s+uint32(off))
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
			return int(sym)
		}
		if count >= total {
			unmaskAll(mask)
			return -2
		}
		rc.decode(hi, total-hi)
		se.summ += uint16(total)
		maskAll(st, last, mask)
	}
}

// allUnmasked is a charMask with no symbol masked.
var allUnmasked = func() (m [256]byte) {
	for i := range m {
		m[i] = 0xFF
	}
	return m
}()

// unmask64 is a quarter of allUnmasked.
var unmask64 = [64]byte(allUnmasked[:64])

// unmaskAll unmasks every symbol of mask in four 64-byte copies, which
// the compiler writes out in full (it copies 256 bytes in a loop).
func unmaskAll(mask *[256]byte) {
	*(*[64]byte)(mask[0:]) = unmask64
	*(*[64]byte)(mask[64:]) = unmask64
	*(*[64]byte)(mask[128:]) = unmask64
	*(*[64]byte)(mask[192:]) = unmask64
}

// The escape helpers take a context's state array and its state count
// less one (so 1..256 states), a bound that proves their loads in range.

// sumUnmaskedGeneric returns the sum of the frequencies of the states in
// st whose symbols are not masked. sumUnmasked is this, or its assembly
// twin (escape_amd64.s). Contexts escaped to tend to have many states,
// so it takes four a step; the loads are widened before the AND, so that
// each state costs three loads, an AND and an add. It is a function of
// its own so that its loop keeps everything in registers.
//
//go:noinline
func sumUnmaskedGeneric(arr *[maxStatesBytes]byte, last byte, mask *[256]byte) uint32 {
	n := uint(last) + 1
	var a, b uint32
	_, _ = arr[0], mask[0] // nil checks, once
	i, lim := uint(0), n>>2*24
	for ; i < lim; i += 24 {
		q := (*[24]byte)(arr[i:])
		a += uint32(q[1])&uint32(mask[q[0]]) + uint32(q[13])&uint32(mask[q[12]])
		b += uint32(q[7])&uint32(mask[q[6]]) + uint32(q[19])&uint32(mask[q[18]])
	}
	// The last n%4 states as a group of three whose lanes past the last
	// state add nothing (lane k counts when k < n%4; the view holds the
	// states past it): a loop over them mispredicted its exit about once
	// a call.
	l := uint32(0xFFFFFF) >> ((3 - n&3) * 8)
	q := (*[18]byte)(arr[min(i, 256*6):]) // i is lim: the min only shows it
	a += uint32(q[1]) & uint32(mask[q[0]]) & l
	b += uint32(q[7]) & uint32(mask[q[6]]) & (l >> 8)
	a += uint32(q[13]) & uint32(mask[q[12]]) & (l >> 16)
	return a + b
}

// findUnmaskedGeneric returns the offset in st of the unmasked state whose
// cumulative frequency first exceeds count, and that cumulative
// frequency; count is below the sum of the unmasked frequencies (if not:
// the offset of the last state when their number is odd, else one past
// it, and the sum). findUnmasked is this, or its assembly twin.
//
//go:noinline
func findUnmaskedGeneric(arr *[maxStatesBytes]byte, last byte, mask *[256]byte, count uint32) (uint, uint32) {
	n := uint(last) + 1
	acc := uint32(0)
	_, _ = arr[0], mask[0] // nil checks, once
	for i, lim := uint(0), n>>1*12; i < lim; i += 12 {
		q := (*[12]byte)(arr[i:])
		acc += uint32(q[1]) & uint32(mask[q[0]])
		if acc > count {
			return i, acc
		}
		acc += uint32(q[7]) & uint32(mask[q[6]])
		if acc > count {
			return i + 6, acc
		}
	}
	i := (n &^ 1) * 6
	if n&1 != 0 {
		q := (*[6]byte)(arr[i:])
		acc += uint32(q[1]) & uint32(mask[q[0]])
	}
	return i, acc
}

// unmaskStates unmasks the symbols of the states in st, a context's
// state array of last+1 states; from 7 states on it clears all of the
// mask, in fewer instructions.
func unmaskStates(arr *[maxStatesBytes]byte, last byte, mask *[256]byte) {
	if last >= 6 {
		unmaskAll(mask)
		return
	}
	n := uint(last) + 1
	_, _ = arr[0], mask[0] // nil checks, once
	for i, lim := uint(0), n>>1*12; i < lim; i += 12 {
		q := (*[12]byte)(arr[i:])
		mask[q[0]] = 0xFF
		mask[q[6]] = 0xFF
	}
	mask[arr[(n-1)*6]] = 0xFF
}

// maskAll masks the symbols of the states in st.
func maskAll(arr *[maxStatesBytes]byte, last byte, mask *[256]byte) {
	n := uint(last) + 1
	_, _ = arr[0], mask[0] // nil checks, once
	for i, lim := uint(0), n>>1*12; i < lim; i += 12 {
		q := (*[12]byte)(arr[i:])
		mask[q[0]] = 0
		mask[q[6]] = 0
	}
	// The last state, masked again when n is even: a branch on n's
	// parity would be mispredicted half the time.
	mask[arr[(n-1)*6]] = 0
}

func getMean(prob uint16) uint16 {
	return (prob + 1<<(periodBits-2)) >> periodBits
}
