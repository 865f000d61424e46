package lzhdec

// PMarc's methods (MSX): -pm2- (8 KiB history, a code tree and an offset
// tree rebuilt at fixed points of the output) and -pm1- (16 KiB history,
// static codes that widen as the output grows). Both code literal bytes
// as a distance along a move-to-front list of byte values. The layout
// follows lhasa's pm1_decoder.c, pm2_decoder.c and pma_common.c (Simon
// Howard, ISC licence), whose tree building this file reproduces
// exactly, incomplete trees included, so that output matches lhasa's.
//
// -pm1- reads zero bits past the end of its input, as lhasa does (some
// archives need it); the container's CRC catches a stream cut short, and
// every command outputs at least a byte, so decoding ends with the size.
//
// A command is decoded whole into out, with its side effects (history
// ring, byte list, tree rebuilds) applied byte by byte as lhasa applies
// them; the window then takes out's bytes as it has room.

// mtfList is PMarc's list of byte values, most recently output first.
type mtfList struct {
	prev, next [256]uint8
	head       uint8
}

func (l *mtfList) reset() {
	for i := range 256 {
		l.prev[i], l.next[i] = uint8(i+1), uint8(i-1)
	}
	// Printable ASCII first, then control characters, then the rest.
	l.head = 0x20
	link := func(a, b uint8) { l.prev[a], l.next[b] = b, a }
	link(0x7f, 0x00)
	link(0x1f, 0xa0)
	link(0xdf, 0x80)
	link(0x9f, 0xe0)
	link(0xff, 0x20)
}

// find walks count steps back from the head (or 256-count forward).
func (l *mtfList) find(count uint8) uint8 {
	c := l.head
	if count < 128 {
		for range int(count) {
			c = l.prev[c]
		}
	} else {
		for range 256 - int(count) {
			c = l.next[c]
		}
	}
	return c
}

// use moves b to the head.
func (l *mtfList) use(b uint8) {
	if l.head == b {
		return
	}
	l.next[l.prev[b]] = l.next[b]
	l.prev[l.next[b]] = l.prev[b]
	h := l.head
	l.prev[b], l.next[b] = h, l.next[h]
	l.prev[l.next[h]] = b
	l.next[h] = b
	l.head = b
}

// varLen is a range of values: base plus bits read.
type varLen struct{ base, bits int }

// treeLeaf marks a leaf in a pmTree node.
const treeLeaf = 0x80

// pmTree is lhasa's array tree: node n has children t[n] and t[n+1]; a
// value with treeLeaf set is a leaf.
type pmTree []uint8

func (t pmTree) init() {
	for i := range t {
		t[i] = treeLeaf
	}
}

func (t pmTree) single(sym uint8) { t[0] = sym | treeLeaf }

// build places the codes of each length, shortest first and by symbol,
// as lhasa's build_tree does: a level that does not fit leaves the tree
// as it is, and entries not reached keep their old values.
func (t pmTree) build(lengths []uint8) {
	next, alloc := 0, 1
	for l := uint8(1); ; l++ {
		if nodes := (alloc - next) * 2; alloc+nodes <= len(t) {
			for end := alloc; next < end; next++ {
				t[next] = uint8(alloc)
				alloc += 2
			}
		}
		more := false
		for i, cl := range lengths {
			if cl == l {
				n := 0
				if next < alloc {
					n = next
					next++
				}
				t[n] = uint8(i) | treeLeaf
			} else if cl > l {
				more = true
			}
		}
		if !more {
			return
		}
	}
}

// read walks the tree a bit at a time; false when the input ran out.
func (t pmTree) read(b *bitReader) (uint8, bool) {
	c := t[0]
	for c&treeLeaf == 0 {
		if b.overrun() || int(c)+1 >= len(t) {
			return 0, false
		}
		c = t[int(c)+int(b.read(1))]
	}
	return c &^ treeLeaf, true
}

// pmOut is a decoded command waiting for the window.
type pmOut struct {
	out  [512]byte
	r, n int
}

// flush moves waiting bytes into the window; false when none wait.
func (o *pmOut) flush(win *window) bool {
	if o.r == o.n {
		return false
	}
	room := min(int64(len(win.buf)-win.w), win.left)
	k := copy(win.buf[win.w:int64(win.w)+room], o.out[o.r:o.n])
	o.r += k
	win.w += k
	win.left -= int64(k)
	return true
}

const (
	pm2Ring = 1 << 13
	pm1Ring = 1 << 14
)

type pm2 struct {
	pmOut
	ring      [pm2Ring]byte
	pos       int
	list      mtfList
	state     int // 0 unbuilt; 1-3 after the first 1, 2, 4 KiB; 4 onwards
	remaining int // bytes until the next rebuild
	codeTree  [65]uint8
	offTree   [17]uint8
	needOff   bool
}

var (
	pm2History = [8]varLen{{0, 3}, {8, 3}, {16, 4}, {32, 5}, {64, 5}, {96, 5}, {128, 6}, {192, 6}}
	pm2Copy    = [6]varLen{{17, 3}, {25, 3}, {33, 5}, {65, 6}, {129, 7}, {256, 0}}
)

func (p *pm2) reset() {
	p.r, p.n, p.pos, p.state, p.remaining, p.needOff = 0, 0, 0, 0, 0, false
	for i := range p.ring {
		p.ring[i] = ' '
	}
	p.list.reset()
	pmTree(p.codeTree[:]).init()
	pmTree(p.offTree[:]).init()
}

func (p *pm2) readCodeTree(b *bitReader) {
	num := b.read(5)
	minLen := b.read(3)
	p.needOff = num >= 10 && !(num == 29 && minLen == 0)
	if minLen == 0 {
		pmTree(p.codeTree[:]).single(uint8(num - 1))
		return
	}
	bits := uint(b.read(3))
	var lens [31]uint8
	for i := range lens[:num] {
		if v := b.read(bits); v != 0 {
			lens[i] = uint8(minLen + v - 1)
		}
	}
	pmTree(p.codeTree[:]).build(lens[:num])
}

func (p *pm2) readOffTree(b *bitReader, n int) {
	if !p.needOff {
		return
	}
	var lens [8]uint8
	codes, single := 0, 0
	for i := range lens[:n] {
		lens[i] = uint8(b.read(3))
		if lens[i] != 0 {
			single = i
			codes++
		}
	}
	if codes == 1 {
		pmTree(p.offTree[:]).single(uint8(single))
		return
	}
	pmTree(p.offTree[:]).build(lens[:n])
}

func (p *pm2) rebuild(b *bitReader) {
	switch p.state {
	case 0:
		p.readCodeTree(b)
		p.readOffTree(b, 5)
		p.remaining = 1024
	case 1:
		p.readOffTree(b, 6)
		p.remaining = 1024
	case 2:
		p.readOffTree(b, 7)
		p.remaining = 2048
	case 3:
		if b.read(1) == 1 {
			p.readCodeTree(b)
		}
		p.readOffTree(b, 8)
		p.remaining = 4096
	default:
		if b.read(1) == 1 {
			p.readCodeTree(b)
			p.readOffTree(b, 8)
		}
		p.remaining = 4096
	}
	p.state = min(p.state+1, 4)
}

func (p *pm2) emit(b *bitReader, c byte) {
	p.ring[p.pos] = c
	p.pos = (p.pos + 1) % pm2Ring
	p.out[p.n] = c
	p.n++
	p.list.use(c)
	if p.remaining--; p.remaining == 0 {
		p.rebuild(b)
	}
}

func (p *pm2) decode(b *bitReader, win *window) bool {
	for win.room() {
		if p.flush(win) {
			continue
		}
		p.r, p.n = 0, 0
		if p.state == 0 {
			b.read(1) // the stream's first bit is not used
			p.rebuild(b)
		}
		code, ok := pmTree(p.codeTree[:]).read(b)
		if !ok {
			return false
		}
		if code < 8 {
			v := pm2History[code]
			p.emit(b, p.list.find(uint8(v.base+int(b.read(uint(v.bits))))))
		} else {
			code -= 8
			count := int(code) + 2
			if code >= 15 {
				if int(code-15) >= len(pm2Copy) {
					return false
				}
				v := pm2Copy[code-15]
				count = v.base + int(b.read(uint(v.bits)))
			}
			off := 0
			if code < 20 {
				bits, base := uint(6), 0
				if code > 0 {
					v, ok := pmTree(p.offTree[:]).read(b)
					if !ok {
						return false
					}
					if v > 0 {
						bits = uint(v) + 5
						base = 1 << bits
					}
				}
				off = base + int(b.read(bits))
			}
			src := p.pos + pm2Ring - 1 - off
			for i := range count {
				p.emit(b, p.ring[(src+i)%pm2Ring])
			}
		}
		if b.overrun() {
			return false
		}
	}
	return true
}

type pm1 struct {
	pmOut
	ring   [pm1Ring]byte
	pos    int
	list   mtfList
	outPos int64 // bytes output so far
	tree   int   // the byte-range tree, -1 before the header
}

var (
	pm1CopyRanges = [...]varLen{
		{0, 6}, {64, 8}, {0, 6}, {64, 9}, {576, 11}, {2624, 13},
		// Early in the output the longer ranges are narrower.
		{64, 8}, {576, 8}, {576, 9}, {576, 10}, {2624, 8}, {2624, 9}, {2624, 10}, {2624, 11}, {2624, 12},
	}
	pm1ByteRanges = [6]varLen{{0, 4}, {16, 4}, {32, 5}, {64, 6}, {128, 6}, {192, 6}}
	// pm1Trees are the byte-range trees the header chooses from: each
	// byte a node, its nybbles the branches for 0 and 1, a leaf (10-15:
	// ranges 0-5) or how many bytes on the child node is.
	pm1Trees = [32][5]uint8{
		{0x12, 0x2d, 0xef, 0x1c, 0xab}, {0x12, 0x23, 0xde, 0xab, 0xcf},
		{0x12, 0x2c, 0xd2, 0xab, 0xef}, {0x12, 0xa2, 0xd2, 0xbc, 0xef},
		{0x12, 0xa2, 0xc2, 0xbd, 0xef}, {0x12, 0xa2, 0xcd, 0xb1, 0xef},
		{0x12, 0xab, 0x12, 0xcd, 0xef}, {0x12, 0xab, 0x1d, 0xc1, 0xef},
		{0x12, 0xab, 0xc1, 0xd1, 0xef}, {0xa1, 0x12, 0x2c, 0xde, 0xbf},
		{0xa1, 0x1d, 0x1c, 0xb1, 0xef}, {0xa1, 0x12, 0x2d, 0xef, 0xbc},
		{0xa1, 0x12, 0xb2, 0xde, 0xcf}, {0xa1, 0x12, 0xbc, 0xd1, 0xef},
		{0xa1, 0x1c, 0xb1, 0xd1, 0xef}, {0xa1, 0xb1, 0x12, 0xcd, 0xef},
		{0xa1, 0xb1, 0xc1, 0xd1, 0xef}, {0x12, 0x1c, 0xde, 0xab},
		{0x12, 0xa2, 0xcd, 0xbe}, {0x12, 0xab, 0xc1, 0xde},
		{0xa1, 0x1d, 0x1c, 0xbe}, {0xa1, 0x12, 0xbc, 0xde},
		{0xa1, 0x1c, 0xb1, 0xde}, {0xa1, 0xb1, 0xc1, 0xde},
		{0x1d, 0x1c, 0xab}, {0x1c, 0xa1, 0xbd}, {0x12, 0xab, 0xcd},
		{0xa1, 0x1c, 0xbd}, {0xa1, 0xb1, 0xcd}, {0xa1, 0xbc}, {0xab}, {0x00},
	}
)

func (p *pm1) reset() {
	p.r, p.n, p.pos, p.outPos, p.tree = 0, 0, 0, 0, -1
	clear(p.ring[:])
	p.list.reset()
}

func (p *pm1) emit(c byte) {
	p.ring[p.pos] = c
	p.pos = (p.pos + 1) % pm1Ring
	p.out[p.n] = c
	p.n++
	p.list.use(c)
	p.outPos++
}

// bitAfter reads a bit once the output reached at, else gives def.
func (p *pm1) bitAfter(b *bitReader, at int64, def uint32) uint32 {
	if p.outPos >= at {
		return b.read(1)
	}
	return def
}

func (p *pm1) copyRange(b *bitReader) int {
	if b.read(1) == 0 {
		if p.bitAfter(b, 576, 0) != 0 {
			return 4
		}
		return int(p.bitAfter(b, 64, 0))
	}
	if p.bitAfter(b, 64, 1) == 0 {
		return 3
	}
	if p.bitAfter(b, 2624, 1) != 0 {
		return 2
	}
	return 5
}

func copyCount1(b *bitReader) int {
	if x := b.read(2); x < 3 {
		return int(x) + 3
	}
	switch x := b.read(3); {
	case x < 5:
		return int(x) + 6
	case x == 5:
		return int(b.read(2)) + 11
	case x == 6:
		return int(b.read(3)) + 15
	}
	switch x := b.read(6); {
	case x < 62:
		return int(x) + 23
	case x == 62:
		return int(b.read(5)) + 85
	}
	return int(b.read(7)) + 117
}

func blockCount1(b *bitReader) int {
	if x := b.read(2); x < 3 {
		return int(x) + 1
	}
	if x := b.read(3); x < 7 {
		return int(x) + 4
	}
	switch x := b.read(4); {
	case x < 14:
		return int(x) + 11
	case x == 14:
		return int(b.read(6)) + 25
	}
	return int(b.read(7)) + 89
}

// copyCmd decodes a copy command; false for a distance before the start.
func (p *pm1) copyCmd(b *bitReader) bool {
	r := p.copyRange(b)
	count := 2
	if r >= 2 {
		count = copyCount1(b)
	}
	switch {
	case r == 3 && p.outPos < 320:
		r = 6
	case r == 4 && p.outPos < 832:
		r = 7
	case r == 4 && p.outPos < 1088:
		r = 8
	case r == 4 && p.outPos < 1600:
		r = 9
	case r == 5 && p.outPos < 2880:
		r = 10
	case r == 5 && p.outPos < 3136:
		r = 11
	case r == 5 && p.outPos < 3648:
		r = 12
	case r == 5 && p.outPos < 4672:
		r = 13
	case r == 5 && p.outPos < 6720:
		r = 14
	}
	dist := pm1CopyRanges[r].base + int(b.read(uint(pm1CopyRanges[r].bits)))
	if int64(dist) >= p.outPos {
		return false
	}
	src := p.pos + pm1Ring - dist - 1
	for i := range count {
		p.emit(p.ring[(src+i)%pm1Ring])
	}
	return true
}

// rangeIndex walks the chosen byte-range tree.
func (p *pm1) rangeIndex(b *bitReader) (int, bool) {
	t := &pm1Trees[p.tree]
	if t[0] == 0 {
		return 0, true
	}
	i := 0
	for {
		c := t[i] & 15
		if b.read(1) == 0 {
			c = t[i] >> 4
		}
		if c >= 10 {
			return int(c - 10), true
		}
		i += int(c)
		if c == 0 || i >= len(t) {
			return 0, false
		}
	}
}

func (p *pm1) decode(b *bitReader, win *window) bool {
	for win.room() {
		if p.flush(win) {
			continue
		}
		p.r, p.n = 0, 0
		if p.tree < 0 {
			p.tree = int(b.read(5))
		}
		if b.read(1) == 0 {
			if !p.copyCmd(b) {
				return false
			}
			continue
		}
		n := blockCount1(b)
		for range n {
			k, ok := p.rangeIndex(b)
			if !ok {
				return false
			}
			v := pm1ByteRanges[k]
			p.emit(p.list.find(uint8(v.base + int(b.read(uint(v.bits))))))
		}
		// A block shorter than the longest is followed by a copy.
		if n < 216 && !p.copyCmd(b) {
			return false
		}
	}
	return true
}
