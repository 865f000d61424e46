package lzms

import (
	"math"
	"slices"
)

const (
	tableBits = 9
	symBits   = 10 // symbols are below 1<<symBits in the tree arrays
	symMask   = 1<<symBits - 1
)

// adaptive is one of LZMS's Huffman codes: rebuilt from the symbol
// frequencies every rebuild symbols, after which the frequencies are
// halved, so that compressor and decompressor follow the data alike.
//
// A code word of up to tableBits bits is found in table; a longer one by
// its length, the first whose limit is above the next maxCodeLen bits,
// then its place among the words of that length (syms lists the symbols
// by length, then symbol, as the canonical code numbers them).
type adaptive struct {
	n       int
	rebuild int
	until   int
	freqs   [1 << symBits]uint32   // the first n in use
	table   [1 << tableBits]uint16 // sym<<4 | length; 0 for a longer word or none
	limit   [maxCodeLen + 2]uint32 // for lengths above tableBits; a sentinel last
	first   [maxCodeLen + 1]uint32 // index in syms of a length's first word, less its code
	syms    [1 << symBits]uint16
}

func (a *adaptive) init(n, rebuild int, s *scratch) {
	a.n, a.rebuild = n, rebuild
	for i := range a.freqs[:n] {
		a.freqs[i] = 1
	}
	a.build(s)
}

// lookup gives the symbol whose code word starts buf and the word's
// length; length 0 if the word is longer than tableBits bits (long finds
// it) or none starts buf.
func (a *adaptive) lookup(buf uint64) (sym, n uint32) {
	e := a.table[buf>>(64-tableBits)]
	return uint32(e >> 4), uint32(e & 15)
}

// long finds a code word longer than tableBits bits; length 0 if none
// starts buf.
func (a *adaptive) long(buf uint64) (sym, n uint32) {
	v := uint32(buf >> (64 - maxCodeLen))
	l := uint32(tableBits + 1)
	for v >= a.limit[l] {
		l++
	}
	if l > maxCodeLen {
		return 0, 0
	}
	return uint32(a.syms[(a.first[l]+v>>(maxCodeLen-l))&symMask]), l
}

// count counts a symbol decoded, and rebuilds the code when it is due.
func (a *adaptive) count(sym uint32, s *scratch) {
	a.freqs[sym&symMask]++
	a.until--
	if a.until == 0 {
		a.rebuildCode(s)
	}
}

// rebuildCode makes the code of the frequencies counted, then halves
// them.
func (a *adaptive) rebuildCode(s *scratch) {
	a.build(s)
	f := a.freqs[:a.n]
	for i := range f {
		f[i] = f[i]>>1 + 1
	}
}

// scratch is the working space of code construction, shared by the codes.
type scratch struct {
	ws   [maxOffsetSyms + 1]uint32 // leaf weights in order, a sentinel last
	iw   [maxOffsetSyms]uint32     // inner nodes' weights, then depths
	par  [maxOffsetSyms]uint16     // inner nodes' parents
	syms [maxOffsetSyms]uint16     // symbols by frequency, then symbol
	lens [maxOffsetSyms]uint8
	// counts is sortByFreq's, cleared only as far as it is used.
	counts [maxCount + 1]uint16
}

// build makes the code of the current frequencies and its decoding table.
func (a *adaptive) build(s *scratch) {
	a.until = a.rebuild
	lens := s.lens[:a.n]
	count := makeLengths(a.freqs[:a.n], lens, s)
	a.makeTable(lens, &count)
}

// makeLengths gives the code word lengths of the Huffman code LZMS
// requires: symbols ordered by (frequency, symbol), the two-queue
// construction taking a leaf before an inner node of equal weight, and
// the lengths counted per depth handed out longest first in that order.
// freqs are all nonzero. It returns how many words have each length.
func makeLengths(freqs []uint32, lens []uint8, s *scratch) (count [maxCodeLen + 1]int) {
	n := len(freqs)
	switch n {
	case 0:
		return count
	case 1:
		lens[0] = 1
		count[1] = 1
		return count
	}
	sortByFreq(freqs, s)
	// The leaves' weights in order, then one past any weight; the inner
	// nodes' weights as they are made, each followed by the same while it
	// is the last. Only the inner nodes' parents are needed: the lengths
	// are counted from the inner nodes' depths.
	ws, iw, par := s.ws[:n+1], s.iw[:n], s.par[:n]
	ws[n] = math.MaxUint32
	leaf, inner := 0, 0
	for next := 0; next < n-1; next++ {
		iw[next] = math.MaxUint32
		var w uint32
		for range 2 {
			if lw := ws[leaf]; lw <= iw[inner] {
				w += lw
				leaf++
			} else {
				w += iw[inner]
				par[inner] = uint16(next)
				inner++
			}
		}
		iw[next] = w
	}
	count[1] = 2
	root := n - 2
	depths := iw
	depths[root] = 0
	for node := root - 1; node >= 0; node-- {
		depth := depths[par[node]] + 1
		depths[node] = depth
		l := int(depth)
		if l >= maxCodeLen {
			l = maxCodeLen
			for l--; count[l] == 0; l-- {
			}
		}
		count[l]--
		count[l+1] += 2
	}
	syms := s.syms[:n]
	i := 0
	for l := maxCodeLen; l >= 1; l-- {
		for _, sym := range syms[i : i+count[l]] {
			lens[sym] = uint8(l)
		}
		i += count[l]
	}
	return count
}

// sortByFreq orders the symbols by frequency, then symbol, into s.syms,
// with their frequencies in s.ws: a counting sort, as the halving keeps
// the frequencies small.
func sortByFreq(freqs []uint32, s *scratch) {
	n := len(freqs)
	ws, syms := s.ws[:n], s.syms[:n]
	var maxf uint32
	for _, f := range freqs {
		maxf = max(maxf, f)
	}
	if maxf >= maxCount {
		for sym, f := range freqs {
			ws[sym] = f<<symBits | uint32(sym)
		}
		slices.Sort(ws)
		for i, v := range ws {
			syms[i], ws[i] = uint16(v&symMask), v>>symBits
		}
		return
	}
	count := s.counts[:maxf+2]
	clear(count)
	for _, f := range freqs {
		count[f+1]++
	}
	for f := uint32(1); f <= maxf; f++ {
		count[f+1] += count[f]
	}
	for sym, f := range freqs {
		i := count[f]
		syms[i], ws[i] = uint16(sym), f
		count[f] = i + 1
	}
}

// maxCount bounds the frequencies sortByFreq counts; higher ones are
// sorted by comparison.
const maxCount = 4096

// makeTable builds the decoding tables of the canonical code of lens:
// code words of one length are consecutive in symbol order, shorter
// ones first. count has how many words have each length.
func (a *adaptive) makeTable(lens []uint8, counts *[maxCodeLen + 1]int) {
	var count, start [maxCodeLen + 2]uint32
	for l := 1; l <= maxCodeLen; l++ {
		count[l] = uint32(counts[l])
		start[l+1] = start[l] + count[l]
	}
	pos := start
	for sym, l := range lens {
		a.syms[pos[l&15]&symMask] = uint16(sym)
		pos[l&15]++
	}
	code, fill := uint32(0), uint32(0)
	for l := uint32(1); l <= maxCodeLen; l++ {
		a.first[l] = start[l] - code
		code += count[l]
		if l > tableBits {
			a.limit[l] = code << (maxCodeLen - l)
		} else {
			// The words of length l fill count[l] runs of step entries.
			step := uint32(1) << (tableBits - l)
			syms := a.syms[start[l]:start[l+1]]
			t := a.table[fill : fill+count[l]*step]
			fill += count[l] * step
			switch step {
			case 1:
				for i, sym := range syms[:len(t)] {
					t[i] = sym<<4 | uint16(l)
				}
			case 2:
				for i, sym := range syms {
					e := sym<<4 | uint16(l)
					r := t[2*i : 2*i+2]
					r[0], r[1] = e, e
				}
			default:
				for _, sym := range syms {
					e := sym<<4 | uint16(l)
					r := t[:step]
					for i := range r {
						r[i] = e
					}
					t = t[step:]
				}
			}
		}
		code <<= 1
	}
	clear(a.table[fill:])
	a.limit[maxCodeLen+1] = 1 << maxCodeLen
}
