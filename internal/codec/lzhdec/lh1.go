package lzhdec

// -lh1-: LZSS over a 4 KiB window whose literals and match lengths (3 to
// 60) are coded with an adaptive Huffman tree (Okumura and Yoshizaki's
// LZHUF), and the match offset's upper 6 bits with a fixed code of 3 to 8
// bits followed by its lower 6 bits plain.

const (
	lh1Chars = 256 - 3 + 60 + 1 // N_CHAR: literals and lengths 3..60 (314)
	lh1T     = 2*lh1Chars - 1   // nodes
	lh1Root  = lh1T - 1
	lh1Max   = 0x8000 // root frequency at which the tree is rebuilt
)

type lh1 struct {
	freq [lh1T + 1]uint16
	son  [lh1T]uint16 // a node's first child; ≥ lh1T for a leaf (symbol+lh1T)
	prnt [lh1T + lh1Chars]uint16
	// offCode/offLen map the next 8 bits to the offset's upper 6 bits and
	// the length of their code.
	offCode, offLen [256]uint8
}

func newLH1() *lh1 {
	d := &lh1{}
	counts := [...]int{1, 3, 8, 12, 24, 16} // codes of 3..8 bits
	code, v := 0, 0
	for i, c := range counts {
		l := 3 + i
		for range c {
			span := 1 << (8 - l)
			for j := range span {
				d.offCode[code+j] = uint8(v)
				d.offLen[code+j] = uint8(l)
			}
			code += span
			v++
		}
	}
	return d
}

func (d *lh1) reset() {
	for i := range lh1Chars {
		d.freq[i] = 1
		d.son[i] = uint16(i + lh1T)
		d.prnt[i+lh1T] = uint16(i)
	}
	i, j := 0, lh1Chars
	for j <= lh1Root {
		d.freq[j] = d.freq[i] + d.freq[i+1]
		d.son[j] = uint16(i)
		d.prnt[i], d.prnt[i+1] = uint16(j), uint16(j)
		i += 2
		j++
	}
	d.freq[lh1T] = 0xFFFF
	d.prnt[lh1Root] = 0
}

// rebuild halves the frequencies and rebuilds the tree from the leaves.
func (d *lh1) rebuild() {
	j := 0
	for i := range lh1T {
		if d.son[i] >= lh1T {
			d.freq[j] = (d.freq[i] + 1) / 2
			d.son[j] = d.son[i]
			j++
		}
	}
	for i, j := 0, lh1Chars; j < lh1T; i, j = i+2, j+1 {
		f := d.freq[i] + d.freq[i+1]
		k := j - 1
		for f < d.freq[k] {
			k--
		}
		k++
		copy(d.freq[k+1:j+1], d.freq[k:j])
		d.freq[k] = f
		copy(d.son[k+1:j+1], d.son[k:j])
		d.son[k] = uint16(i)
	}
	for i := range lh1T {
		k := int(d.son[i])
		if k >= lh1T {
			d.prnt[k] = uint16(i)
		} else {
			d.prnt[k], d.prnt[k+1] = uint16(i), uint16(i)
		}
	}
}

// update counts symbol c and keeps the tree ordered by frequency.
func (d *lh1) update(c int) {
	if d.freq[lh1Root] == lh1Max {
		d.rebuild()
	}
	c = int(d.prnt[c+lh1T])
	for {
		d.freq[c]++
		k := d.freq[c]
		if l := c + 1; k > d.freq[l] {
			for k > d.freq[l+1] {
				l++
			}
			d.freq[c], d.freq[l] = d.freq[l], k
			i := int(d.son[c])
			d.prnt[i] = uint16(l)
			if i < lh1T {
				d.prnt[i+1] = uint16(l)
			}
			j := int(d.son[l])
			d.son[l] = uint16(i)
			d.prnt[j] = uint16(c)
			if j < lh1T {
				d.prnt[j+1] = uint16(c)
			}
			d.son[c] = uint16(j)
			c = l
		}
		c = int(d.prnt[c])
		if c == 0 {
			break
		}
	}
}

func (d *lh1) decode(b *bitReader, win *window) bool {
	if win.mlen > 0 {
		win.copyMatch()
	}
	for win.room() {
		b.refill()
		c := int(d.son[lh1Root])
		for c < lh1T {
			if b.n == 0 {
				b.refill()
			}
			c = int(d.son[c+int(b.peek(1))])
			b.skip(1)
		}
		c -= lh1T
		d.update(c)
		if c < 256 {
			win.lit(byte(c))
			continue
		}
		b.refill()
		hi := d.offCode[b.peek(8)]
		b.skip(uint(d.offLen[b.peek(8)]))
		off := int(hi)<<6 | int(b.read(6))
		win.match(win.w-off-1, c-256+copyMin)
	}
	return !b.overrun()
}
