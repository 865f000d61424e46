// Package lzhdec decodes the LZ77 methods of LHA and LArc archives and
// those ARJ shares with them: -lh1- (4 KiB window, adaptive Huffman),
// -lh4- to -lh7- and -lhx- (4 KiB to 1 MiB windows, static Huffman
// tables per block), -lzs- and -lz5- (LArc), and ARJ's methods 1 to 3
// (the -lh6- coding over a 26 KiB dictionary) and 4 (unary-prefixed
// lengths and offsets, no tables), and PMarc's -pm1- and -pm2- (see
// pmarc.go). The streams carry no end
// marker: the container gives the decoded size, and its checksum (CRC-16
// in LHA, CRC-32 in ARJ) is verified by the caller.
//
// The bit layout follows the formats as lhasa (lib/lh_new_decoder.c,
// lh1_decoder.c, lzs_decoder.c, lz5_decoder.c) and the original LHA and
// LZHUF sources describe them; the history rings start filled as those
// decoders fill them (spaces, or -lz5-'s ramps), since encoders may copy
// from them.
//
// # Security concerns
//
// A window is at most 1 MiB (-lhx-), fixed by the method. Code tables are
// rebuilt from at most 510 lengths per block; a set of lengths that
// over-subscribes the code space, a code the table lacks, or input that
// ends before the output does is ErrCorrupt.
package lzhdec

import (
	"io"
	mathbits "math/bits"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Method is a compression method this package decodes.
type Method uint8

// The methods.
const (
	LH1 Method = iota + 1
	LH4
	LH5
	LH6
	LH7
	LHX
	LZS
	LZ5
	ARJ  // ARJ methods 1 to 3
	ARJ4 // ARJ method 4
	PM1  // PMarc -pm1-
	PM2  // PMarc -pm2-
)

// Errors. Each errors.Is its archive category.
var (
	// ErrCorrupt reports a stream that cannot be decoded: a bad code
	// table, a code the table lacks, or input that ends too soon.
	ErrCorrupt = archive.Corruptf("lzh: corrupt compressed data")
	// ErrMethod reports a Method this package does not know.
	ErrMethod = archive.Unsupportedf("lzh: unknown method")
)

// WindowSize is the history a method needs, in bytes.
func WindowSize(m Method) int {
	switch m {
	case LH1, LH4, LZ5:
		return 1 << 12
	case LH5:
		return 1 << 13
	case LH6:
		return 1 << 15
	case LH7, ARJ:
		return 1 << 16
	case LHX:
		return 1 << 20
	case LZS:
		return 1 << 11
	case ARJ4:
		return 1 << 15
	case PM1:
		return 1 << 14
	case PM2:
		return 1 << 13
	}
	return 0
}

// minRing is the smallest ring of the methods with relative offsets.
const minRing = 1 << 16

// ringSize is the ring a method decodes into: the window itself for
// LArc's methods, whose matches name absolute ring positions, else at
// least twice the window (see window).
func ringSize(m Method) int {
	ws := WindowSize(m)
	if m == LZS || m == LZ5 {
		return ws
	}
	return max(2*ws, minRing)
}

// Memory is what a Reader of method m allocates, in bytes (0 for a method
// this package does not know).
func Memory(m Method) int {
	if WindowSize(m) == 0 {
		return 0
	}
	return ringSize(m) + slack + 32<<10 // the ring and the input buffer
}

// Reader decodes one stream to its known size.
type Reader struct {
	m   Method
	b   bitReader
	win window
	st  *static
	h1  *lh1
	z5  lz5
	p1  *pm1
	p2  *pm2
	err error
}

// NewReader returns a Reader of size decoded bytes of method m from r.
func NewReader(r io.Reader, m Method, size int64) (*Reader, error) {
	z := &Reader{}
	if err := z.Reset(r, m, size); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z decode a new stream, reusing its buffers.
func (z *Reader) Reset(r io.Reader, m Method, size int64) error {
	ws := WindowSize(m)
	if ws == 0 {
		return ErrMethod
	}
	z.m, z.err = m, nil
	z.b.reset(r)
	fill, start := byte(' '), 0
	switch m {
	case ARJ, ARJ4:
		fill = 0
	case LZS:
		start = ws - 17
	case LZ5:
		start = ws - 18
	}
	z.win.reset(ws, ringSize(m), fill, start, size)
	switch m {
	case LH1:
		if z.h1 == nil {
			z.h1 = newLH1()
		}
		z.h1.reset()
	case LZ5:
		lz5Prime(z.win.buf)
		z.win.dirty = len(z.win.buf)
		z.z5 = lz5{}
	case PM1:
		if z.p1 == nil {
			z.p1 = new(pm1)
		}
		z.p1.reset()
	case PM2:
		if z.p2 == nil {
			z.p2 = new(pm2)
		}
		z.p2.reset()
	case LZS, ARJ4:
	default:
		bits := uint(5)
		if m == LH4 || m == LH5 {
			bits = 4
		}
		if z.st == nil || z.st.offBits != bits {
			z.st = newStatic(bits)
		}
		z.st.reset()
		z.st.winBits = mathbits.Len(uint(ws)) - 1
	}
	return nil
}

// Read reads decoded bytes; io.EOF follows the last.
func (z *Reader) Read(p []byte) (int, error) {
	for {
		if z.win.r < z.win.w {
			n := copy(p, z.win.buf[z.win.r:z.win.w])
			z.win.r += n
			return n, nil
		}
		if z.err != nil {
			return 0, z.err
		}
		if !z.fill() && z.err == nil {
			z.err = io.EOF
		}
	}
}

// WriteTo writes the rest of the decoded bytes to w straight from the
// window.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.win.r < z.win.w {
			n, err := w.Write(z.win.buf[z.win.r:z.win.w])
			z.win.r += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			continue
		}
		if z.err != nil {
			if z.err == io.EOF {
				return total, nil
			}
			return total, z.err
		}
		if !z.fill() && z.err == nil {
			z.err = io.EOF
		}
	}
}

// fill decodes more into the window; false when the stream is done.
func (z *Reader) fill() bool {
	if z.win.left == 0 {
		return false
	}
	z.win.wrap()
	var ok bool
	switch z.m {
	case LH1:
		ok = z.h1.decode(&z.b, &z.win)
	case LZS:
		ok = decodeLZS(&z.b, &z.win)
	case LZ5:
		ok = z.z5.decode(&z.b, &z.win)
	case ARJ4:
		ok = decodeARJ4(&z.b, &z.win)
	case PM1:
		ok = z.p1.decode(&z.b, &z.win)
	case PM2:
		ok = z.p2.decode(&z.b, &z.win)
	default:
		ok = z.st.decode(&z.b, &z.win)
	}
	z.win.written()
	if !ok {
		z.err = ErrCorrupt
		if z.b.err != nil {
			z.err = z.b.err
		}
		// What was decoded before the failure is not handed out.
		z.win.w = z.win.r
	}
	return true
}
