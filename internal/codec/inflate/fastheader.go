package inflate

import "encoding/binary"

// headerInput is the input a dynamic block header may take, 14 + 19*3
// bits and then up to 288+32 code length symbols of at most 7+7 bits, plus
// the eight bytes a refill loads: with that much in the buffer, the header
// is read from it without bounds checks or per-symbol calls.
const headerInput = (14+19*3+(288+32)*14)/8 + 1 + 8

// fastCodeLengths is readCodeLengths (same results and errors) for an
// Inflater whose buffer holds headerInput bytes from ip, input or zero
// padding (then the caller checks consumedPastEnd first): the bit buffer
// is refilled eight bytes at a time as the fast loop does, and the code
// length code is looked up in its table directly.
func (f *Inflater) fastCodeLengths(c *codeLengths) (nlit, ndist int, err error) {
	in := f.in[:]
	ip, bitbuf, bitsleft := f.ip, f.bitbuf, f.bitsleft
	refill := func() {
		bitbuf |= binary.LittleEndian.Uint64(in[ip&inMask:]) << (bitsleft & 63)
		ip += int(63-bitsleft) >> 3
		bitsleft |= 56
	}
	take := func(n uint) uint32 {
		v := uint32(bitbuf & (1<<n - 1))
		bitbuf >>= n
		bitsleft -= n
		return v
	}
	defer func() { f.ip, f.bitbuf, f.bitsleft = ip, bitbuf, bitsleft }()

	refill()
	nlit, ndist, nclen, err := codeCounts(take(14), f.d64)
	if err != nil {
		return 0, 0, err
	}
	cl := &c.cl
	*cl = [19]uint8{}
	for i := range nclen {
		if bitsleft < 3 {
			refill()
		}
		cl[codeOrder[i]] = uint8(take(3))
	}
	t := &f.tables.clen
	if !buildTable(t[:], cl[:], clenRootBits, clenEntries) {
		return 0, 0, ErrCodeLengths
	}
	all := c.all[:nlit+ndist]
	for i := 0; i < len(all); {
		if bitsleft < 14 {
			refill()
		}
		e := t[bitbuf&(clenTableSize-1)]
		if e&flagInvalid != 0 {
			// The code is incomplete and these bits are not a code:
			// as sym reports it, a short input if fewer than
			// maxCodeLen bits of input are left.
			if 8*(f.iend-ip)+int(bitsleft) >= maxCodeLen {
				f.err = ErrSymbol
			} else {
				f.inputEnded()
			}
			return 0, 0, errNoInput
		}
		take(consumeOf(e))
		sym := e >> 16
		if sym < 16 {
			all[i] = uint8(sym)
			i++
			continue
		}
		if i, err = repeatLengths(all, i, sym, take(repeatWidth(sym))); err != nil {
			return 0, 0, err
		}
	}
	if all[256] == 0 {
		return 0, 0, ErrCodeLengths
	}
	return nlit, ndist, nil
}

// consumedPastEnd reports whether the bits consumed reach past the input
// into the zero padding after it.
func (f *Inflater) consumedPastEnd() bool {
	return 8*(f.ip-f.iend) > int(f.bitsleft)
}
