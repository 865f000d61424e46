package zip

import (
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Implode (method 6, PKZIP 1.x; APPNOTE 5.3): LZ77 over a 4 or 8 KiB
// window with two or three Shannon-Fano trees sent at the start. The codes
// are canonical Huffman codes with every bit inverted, so they are decoded
// as such. The data have no end marker: they end at the entry's size.

var (
	errImplodeTree = archive.Corruptf("zip: implode: invalid Shannon-Fano tree")
	errImplodeCode = archive.Corruptf("zip: implode: invalid code")
)

const implodeMaxBits = 16

// sfTree is a canonical decoding table: counts per length and the symbols
// ordered by length, then value (zlib's puff.c layout).
type sfTree struct {
	count  [implodeMaxBits + 1]uint16
	symbol [256]uint16
}

// exploder decodes imploded data.
type exploder struct {
	r      io.ByteReader
	b      uint32
	nb     uint
	err    error
	left   uint64 // bytes still to produce
	big    bool   // 8 KiB window (flag bit 1)
	litTre bool   // a literal tree is present (flag bit 2)
	lit    sfTree
	length sfTree
	dist   sfTree

	copyLen  int
	copyDist int
	total    int64 // bytes produced
	hist     [1 << 16]byte
	wpos     int
	rpos     int
}

func newExploder(r io.ByteReader, h *header) (*exploder, error) {
	x := &exploder{r: r, left: h.usize, big: h.flags&2 != 0, litTre: h.flags&4 != 0}
	if h.usizeUnknown {
		return nil, archive.Unsupportedf("zip: %q: an imploded entry of unknown size cannot be streamed", h.name)
	}
	if x.litTre {
		if err := x.readTree(&x.lit, 256); err != nil {
			return nil, err
		}
	}
	if err := x.readTree(&x.length, 64); err != nil {
		return nil, err
	}
	if err := x.readTree(&x.dist, 64); err != nil {
		return nil, err
	}
	return x, nil
}

// readTree reads a tree's run-length coded bit lengths and builds it.
func (x *exploder) readTree(t *sfTree, n int) error {
	c, err := x.r.ReadByte()
	if err != nil {
		return ErrTruncated
	}
	var lengths [256]uint8
	k := 0
	for range int(c) + 1 {
		v, err := x.r.ReadByte()
		if err != nil {
			return ErrTruncated
		}
		l, cnt := v&15+1, int(v>>4)+1
		if k+cnt > n {
			return errImplodeTree
		}
		for range cnt {
			lengths[k] = l
			k++
		}
	}
	if k != n {
		return errImplodeTree
	}
	*t = sfTree{}
	for _, l := range lengths[:n] {
		t.count[l]++
	}
	left := 1
	for l := 1; l <= implodeMaxBits; l++ {
		left <<= 1
		left -= int(t.count[l])
		if left < 0 {
			return errImplodeTree
		}
	}
	var offs [implodeMaxBits + 2]uint16
	for l := 1; l <= implodeMaxBits; l++ {
		offs[l+1] = offs[l] + t.count[l]
	}
	for sym, l := range lengths[:n] {
		t.symbol[offs[l]] = uint16(sym)
		offs[l]++
	}
	return nil
}

// bits reads n bits, least significant first.
func (x *exploder) bits(n uint) (uint32, bool) {
	for x.nb < n {
		c, err := x.r.ReadByte()
		if err != nil {
			x.err = ErrTruncated
			return 0, false
		}
		x.b |= uint32(c) << x.nb
		x.nb += 8
	}
	v := x.b & (1<<n - 1)
	x.b >>= n
	x.nb -= n
	return v, true
}

// decode reads one symbol of t, inverting each bit.
func (x *exploder) decode(t *sfTree) (int, bool) {
	code, first, index := 0, 0, 0
	for l := 1; l <= implodeMaxBits; l++ {
		v, ok := x.bits(1)
		if !ok {
			return 0, false
		}
		code |= int(v ^ 1)
		count := int(t.count[l])
		if code-count < first {
			return int(t.symbol[index+code-first]), true
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	x.err = errImplodeCode
	return 0, false
}

func (x *exploder) Read(p []byte) (int, error) {
	for {
		if x.rpos < x.wpos {
			n := copy(p, x.hist[x.rpos:x.wpos])
			x.rpos += n
			return n, nil
		}
		if x.wpos == len(x.hist) {
			x.wpos, x.rpos = 0, 0
		}
		if x.err != nil {
			return 0, x.err
		}
		if x.left == 0 && x.copyLen == 0 {
			return 0, io.EOF
		}
		x.fill()
	}
}

// fill decodes until the window is full or the data end.
func (x *exploder) fill() {
	for x.wpos < len(x.hist) {
		if x.copyLen > 0 {
			x.copyMatch()
			continue
		}
		if x.left == 0 {
			return
		}
		flag, ok := x.bits(1)
		if !ok {
			return
		}
		if flag == 1 {
			var c int
			if x.litTre {
				c, ok = x.decode(&x.lit)
			} else {
				var v uint32
				v, ok = x.bits(8)
				c = int(v)
			}
			if !ok {
				return
			}
			x.put(byte(c))
			continue
		}
		lowBits := uint(6)
		if x.big {
			lowBits = 7
		}
		low, ok := x.bits(lowBits)
		if !ok {
			return
		}
		high, ok := x.decode(&x.dist)
		if !ok {
			return
		}
		dist := high<<lowBits | int(low) + 1
		n, ok := x.decode(&x.length)
		if !ok {
			return
		}
		if n == 63 {
			v, ok := x.bits(8)
			if !ok {
				return
			}
			n += int(v)
		}
		n += 2
		if x.litTre {
			n++
		}
		x.copyLen, x.copyDist = min(n, int(min(x.left, 1<<20))), dist
	}
}

func (x *exploder) put(c byte) {
	x.hist[x.wpos] = c
	x.wpos++
	x.total++
	x.left--
}

// copyMatch copies one byte at a time (matches overlap and the window
// wraps); bytes before the start of the data are zeros.
func (x *exploder) copyMatch() {
	for x.copyLen > 0 && x.wpos < len(x.hist) && x.left > 0 {
		var c byte
		if int64(x.copyDist) <= x.total {
			src := x.wpos - x.copyDist
			if src < 0 {
				src += len(x.hist)
			}
			c = x.hist[src]
		}
		x.put(c)
		x.copyLen--
	}
	if x.left == 0 {
		x.copyLen = 0
	}
}
