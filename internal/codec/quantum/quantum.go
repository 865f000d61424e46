// Package quantum decodes Quantum, David Stafford's LZ77 + arithmetic
// coding format as Microsoft cabinets carry it (compression type 2), as
// libmspack's qtmd.c (Matthew Russotto's research) decodes it: adaptive
// frequency models for literals (four, by the byte's top two bits),
// match selectors, lengths and offset slots; a window of 2^10..2^21
// bytes. Each cabinet data block is a frame of up to 32 KiB whose range
// coder starts afresh, while the models and the window carry across the
// frames of a folder.
//
// # Security concerns
//
// Memory is the window (at most 2 MiB) and fixed models. Matches are
// checked against the data decoded so far and the frame's end; reading
// past a frame's data is bounded. Work per call is bounded by len(dst).
package quantum

import "github.com/unpack-dev/unpack/internal/archive"

// Errors. Each is an archive.ErrCorrupt, except ErrWindow.
var (
	// ErrMatch: a match reaching before the data or past the frame.
	ErrMatch = archive.Corruptf("quantum: invalid match")
	// ErrTruncated: the frame's data ended early.
	ErrTruncated = archive.Corruptf("quantum: truncated data")
	// ErrFrame: a frame larger than 32 KiB.
	ErrFrame = archive.Corruptf("quantum: frame larger than 32 KiB")
	// ErrWindow: a window size outside 2^10..2^21.
	ErrWindow = archive.Unsupportedf("quantum: window size outside 2^10..2^21")
)

// Window bounds, as powers of two.
const (
	MinWindowBits = 10
	MaxWindowBits = 21
)

// FrameSize is the largest frame.
const FrameSize = 32768

// maxOverread bounds the bytes read past a frame's data. The range
// coder's 16 bits of look-ahead stay inside the data of a valid frame
// (libmspack realigns on a marker byte it appends after each block's
// data, which a read past the data would take), so none may be.
const maxOverread = 0

var (
	posBase  [42]uint32
	posExtra [42]uint8
	lenBase  [27]uint32
	lenExtra [27]uint8
)

func init() {
	off := uint32(0)
	for i := range posBase {
		posBase[i] = off
		posExtra[i] = uint8(max(i-2, 0) >> 1)
		off += 1 << posExtra[i]
	}
	off = 0
	for i := 0; i < 26; i++ {
		lenBase[i] = off
		lenExtra[i] = uint8(max(i-2, 0) >> 2)
		off += 1 << lenExtra[i]
	}
	lenBase[26], lenExtra[26] = 254, 0
}

// symbol is a model entry: a symbol and the cumulative frequency of it
// and the entries after it.
type symbol struct{ sym, cum uint16 }

// model is an adaptive frequency model of n symbols.
type model struct {
	shifts int
	n      int
	syms   [65]symbol // n+1 entries used, the last a zero sentinel
}

func (m *model) init(start, n int) {
	m.shifts, m.n = 4, n
	for i := 0; i <= n; i++ {
		m.syms[i] = symbol{uint16(start + i), uint16(n - i)}
	}
}

// rescale halves the frequencies; every 50th time it also sorts the
// symbols by decreasing frequency (a selection sort: its instability is
// part of the format).
func (m *model) rescale() {
	s := m.syms[:m.n+1]
	m.shifts--
	if m.shifts != 0 {
		for i := m.n - 1; i >= 0; i-- {
			s[i].cum >>= 1
			if s[i].cum <= s[i+1].cum {
				s[i].cum = s[i+1].cum + 1
			}
		}
		return
	}
	m.shifts = 50
	for i := 0; i < m.n; i++ {
		s[i].cum -= s[i+1].cum
		s[i].cum++
		s[i].cum >>= 1
	}
	for i := 0; i < m.n-1; i++ {
		for j := i + 1; j < m.n; j++ {
			if s[i].cum < s[j].cum {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	for i := m.n - 1; i >= 0; i-- {
		s[i].cum += s[i+1].cum
	}
}

// Decoder decodes the frames of one Quantum stream (a cabinet folder).
type Decoder struct {
	window []byte
	wpos   int
	total  int64 // bytes decoded since Reset
	lit    [4]model
	sel    model
	m4, m5 model
	m6     model
	m6len  model
	bits   int

	// Frame state: the range coder and an MSB-first bit reader.
	h, l, c uint16
	src     []byte
	pos     int
	bb      uint64
	nb      uint
}

// NewDecoder returns a decoder with a window of 1<<windowBits bytes.
func NewDecoder(windowBits int) (*Decoder, error) {
	if windowBits < MinWindowBits || windowBits > MaxWindowBits {
		return nil, ErrWindow
	}
	d := &Decoder{window: make([]byte, 1<<windowBits), bits: windowBits}
	d.Reset()
	return d, nil
}

// Reset prepares the decoder for a new stream.
func (d *Decoder) Reset() {
	d.wpos, d.total = 0, 0
	for i := range d.lit {
		d.lit[i].init(64*i, 64)
	}
	w := d.bits * 2
	d.m4.init(0, min(w, 24))
	d.m5.init(0, min(w, 36))
	d.m6.init(0, w)
	d.m6len.init(0, 27)
	d.sel.init(0, 7)
}

// refill tops the bit buffer up with whole bytes, zeros past src's end.
func (d *Decoder) refill() {
	for d.nb <= 56 {
		var b byte
		if d.pos < len(d.src) {
			b = d.src[d.pos]
		}
		d.pos++
		d.bb |= uint64(b) << (56 - d.nb)
		d.nb += 8
	}
}

// readBits reads n ≤ 24 bits.
func (d *Decoder) readBits(n uint) uint32 {
	if n == 0 {
		return 0
	}
	if d.nb < n {
		d.refill()
	}
	v := uint32(d.bb >> (64 - n))
	d.bb <<= n
	d.nb -= n
	return v
}

// symbol decodes one symbol of m with the range coder.
func (d *Decoder) symbol(m *model) int {
	s := m.syms[:m.n+1]
	rng := uint32(d.h-d.l) + 1
	total := uint32(s[0].cum)
	target := uint16(((uint32(d.c)-uint32(d.l)+1)*total - 1) / rng)
	i := 1
	for ; i < m.n; i++ {
		if s[i].cum <= target {
			break
		}
	}
	sym := int(s[i-1].sym)
	rng = uint32(d.h) - uint32(d.l) + 1
	h := uint16(uint32(d.l) + uint32(s[i-1].cum)*rng/total - 1)
	d.l = uint16(uint32(d.l) + uint32(s[i].cum)*rng/total)
	d.h = h
	for j := i - 1; j >= 0; j-- {
		s[j].cum += 8
	}
	if s[0].cum > 3800 {
		m.rescale()
	}
	for {
		if d.l&0x8000 != d.h&0x8000 {
			if d.l&0x4000 == 0 || d.h&0x4000 != 0 {
				break
			}
			// Underflow: the interval straddles the middle.
			d.c ^= 0x4000
			d.l &= 0x3FFF
			d.h |= 0x4000
		}
		d.l <<= 1
		d.h = d.h<<1 | 1
		d.c = d.c<<1 | uint16(d.readBits(1))
	}
	return sym
}

// Decode decodes one frame (a cabinet data block's data src) into all of
// dst, at most FrameSize bytes.
func (d *Decoder) Decode(dst, src []byte) error {
	if len(dst) > FrameSize {
		return ErrFrame
	}
	d.src, d.pos, d.bb, d.nb = src, 0, 0, 0
	d.h, d.l, d.c = 0xFFFF, 0, uint16(d.readBits(16))
	w := d.window
	mask := len(w) - 1
	for k := 0; k < len(dst); {
		if d.pos-int(d.nb/8) > len(src)+maxOverread {
			return ErrTruncated
		}
		sel := d.symbol(&d.sel)
		if sel < 4 {
			b := byte(d.symbol(&d.lit[sel]))
			w[d.wpos] = b
			d.wpos = (d.wpos + 1) & mask
			dst[k] = b
			k++
			continue
		}
		var length int
		var slot int
		switch sel {
		case 4:
			slot, length = d.symbol(&d.m4), 3
		case 5:
			slot, length = d.symbol(&d.m5), 4
		case 6:
			ls := d.symbol(&d.m6len)
			length = int(lenBase[ls]+d.readBits(uint(lenExtra[ls]))) + 5
			slot = d.symbol(&d.m6)
		default:
			return ErrMatch // the selector model has 7 symbols
		}
		off := int64(posBase[slot]+d.readBits(uint(posExtra[slot]))) + 1
		if length > len(dst)-k || off > d.total+int64(k) || off > int64(len(w)) {
			return ErrMatch
		}
		from := d.wpos - int(off)
		for i := 0; i < length; i++ {
			b := w[(from+i)&mask]
			w[d.wpos] = b
			d.wpos = (d.wpos + 1) & mask
			dst[k] = b
			k++
		}
	}
	if d.pos-int(d.nb/8) > len(src)+maxOverread {
		return ErrTruncated
	}
	d.total += int64(len(dst))
	return nil
}
