package lzms

import "slices"

const (
	tableBits = 10
	subBits   = maxCodeLen - tableBits
	symBits   = 10 // symbols are below 1<<symBits in the tree arrays
	symMask   = 1<<symBits - 1

	entrySym = 1 << 31
	entrySub = 1 << 30
)

// adaptive is one of LZMS's Huffman codes: rebuilt from the symbol
// frequencies every rebuild symbols, after which the frequencies are
// halved, so that compressor and decompressor follow the data alike.
type adaptive struct {
	n       int
	rebuild int
	until   int
	freqs   []uint32
	table   []uint32 // 1<<tableBits entries, then subtables
}

func (a *adaptive) init(n, rebuild int, s *scratch) {
	a.n, a.rebuild = n, rebuild
	if cap(a.freqs) < n {
		a.freqs = make([]uint32, n, max(n, maxOffsetSyms))
	}
	a.freqs = a.freqs[:n]
	for i := range a.freqs {
		a.freqs[i] = 1
	}
	a.build(s)
}

// scratch is the working space of code construction, shared by the codes.
type scratch struct {
	nodes [maxOffsetSyms]uint32
	lens  [maxOffsetSyms]uint8
	// counts is sortByFreq's, cleared only as far as it is used.
	counts [maxCount + 1]uint16
}

// build makes the code of the current frequencies and its decoding table.
func (a *adaptive) build(s *scratch) {
	a.until = a.rebuild
	lens := s.lens[:a.n]
	makeLengths(a.freqs, lens, s.nodes[:a.n], &s.counts)
	a.makeTable(lens)
}

// makeLengths gives the code word lengths of the Huffman code LZMS
// requires: symbols ordered by (frequency, symbol), the two-queue
// construction taking a leaf before an inner node of equal weight, and
// the lengths counted per depth handed out longest first in that order.
// freqs are all nonzero.
func makeLengths(freqs []uint32, lens []uint8, nodes []uint32, counts *[maxCount + 1]uint16) {
	n := len(freqs)
	switch n {
	case 0:
		return
	case 1:
		lens[0] = 1
		return
	}
	sortByFreq(freqs, nodes, counts)
	// Inner nodes take the places of the entries they consume: each
	// keeps its symbol in the low bits and gets its parent's index (or,
	// while unparented, its weight) in the high bits.
	leaf, inner, next := 0, 0, 0
	pick := func() int {
		if leaf != n && (inner == next || nodes[leaf]>>symBits <= nodes[inner]>>symBits) {
			leaf++
			return leaf - 1
		}
		inner++
		return inner - 1
	}
	for n-next > 1 {
		m := pick()
		k := pick()
		w := nodes[m]&^symMask + nodes[k]&^symMask
		nodes[m] = nodes[m]&symMask | uint32(next)<<symBits
		nodes[k] = nodes[k]&symMask | uint32(next)<<symBits
		nodes[next] = nodes[next]&symMask | w
		next++
	}
	var count [maxCodeLen + 1]int
	count[1] = 2
	root := n - 2
	nodes[root] &= symMask
	for node := root - 1; node >= 0; node-- {
		depth := nodes[nodes[node]>>symBits]>>symBits + 1
		nodes[node] = nodes[node]&symMask | depth<<symBits
		l := int(depth)
		if l >= maxCodeLen {
			l = maxCodeLen
			for l--; count[l] == 0; l-- {
			}
		}
		count[l]--
		count[l+1] += 2
	}
	i := 0
	for l := maxCodeLen; l >= 1; l-- {
		for range count[l] {
			lens[nodes[i]&symMask] = uint8(l)
			i++
		}
	}
}

// sortByFreq fills nodes with freq<<symBits|symbol in increasing order of
// frequency, then symbol: a counting sort, as the halving keeps the
// frequencies small.
func sortByFreq(freqs []uint32, nodes []uint32, counts *[maxCount + 1]uint16) {
	var maxf uint32
	for _, f := range freqs {
		maxf = max(maxf, f)
	}
	if maxf >= maxCount {
		for s, f := range freqs {
			nodes[s] = f<<symBits | uint32(s)
		}
		slices.Sort(nodes)
		return
	}
	count := counts[:maxf+2]
	clear(count)
	for _, f := range freqs {
		count[f+1]++
	}
	for f := uint32(1); f <= maxf; f++ {
		count[f+1] += count[f]
	}
	for s, f := range freqs {
		nodes[count[f]] = f<<symBits | uint32(s)
		count[f]++
	}
}

// maxCount bounds the frequencies sortByFreq counts; higher ones are
// sorted by comparison.
const maxCount = 4096

// makeTable builds the decoding table of the canonical code of lens:
// code words of one length are consecutive in symbol order, shorter
// ones first. Entries are entrySym|sym<<4|length, or entrySub|index of
// a subtable for the code words longer than tableBits; zero for none.
func (a *adaptive) makeTable(lens []uint8) {
	var count [maxCodeLen + 1]uint32
	for _, l := range lens {
		count[l]++
	}
	var next [maxCodeLen + 2]uint32
	for l := 1; l <= maxCodeLen; l++ {
		next[l+1] = (next[l] + count[l]) << 1
	}
	if a.table == nil {
		a.table = make([]uint32, 1<<tableBits, 1<<tableBits+4<<subBits)
	}
	a.table = a.table[:1<<tableBits]
	clear(a.table)
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		code := next[l]
		next[l]++
		e := entrySym | uint32(sym)<<4 | uint32(l)
		if l <= tableBits {
			start := code << (tableBits - l)
			t := a.table[start : start+1<<(tableBits-l)]
			for i := range t {
				t[i] = e
			}
			continue
		}
		prefix := code >> (l - tableBits)
		p := a.table[prefix]
		if p&entrySub == 0 {
			p = entrySub | uint32(len(a.table))
			a.table[prefix] = p
			a.table = append(a.table, make([]uint32, 1<<subBits)...)
		}
		base := p&^entrySub + (code&(1<<(l-tableBits)-1))<<(maxCodeLen-l)
		t := a.table[base : base+1<<(maxCodeLen-l)]
		for i := range t {
			t[i] = e
		}
	}
}
