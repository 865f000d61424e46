package lzhdec

// window is the history ring the LZ77 methods copy from, and the output
// buffer: bytes are decoded into buf[w:] and handed out from buf[r:w]
// until w reaches the end of the ring, which then starts over at 0.
//
// For the methods with relative offsets the ring is larger than the
// method's window (see ringSize): a distance is first wrapped to the
// window, as the original decoders' window-sized rings wrap it, and the
// bytes more than a window behind the write position are then never read,
// so a match may write up to slack bytes past its end (filled in by what
// follows) and the output leaves in larger pieces.
type window struct {
	buf   []byte // len: the ring; cap: the ring and slack bytes
	mask  int    // len(buf)-1
	dmask int    // the method's window size - 1: distances wrap to it
	r, w  int
	left  int64 // bytes still to produce
	mlen  int   // bytes of the current match still to copy
	msrc  int   // where in the ring the match continues
	fill  byte  // what the unwritten ring holds
	dirty int   // the ring's bytes written since it was filled: [0, dirty)
}

// slack is how far past a match's end a fast copy may write.
const slack = 8

func (win *window) reset(dict, ring int, fill byte, start int, left int64) {
	if len(win.buf) != ring {
		win.buf = make([]byte, ring, ring+slack)
		win.dirty = ring
	}
	if fill != win.fill {
		win.fill, win.dirty = fill, ring
	}
	b := win.buf[:win.dirty]
	for i := range b {
		b[i] = fill
	}
	win.mask, win.dmask = ring-1, dict-1
	win.r, win.w, win.left, win.mlen, win.dirty = start, start, left, 0, 0
}

// written notes that the ring was written up to w (and slack bytes on).
func (win *window) written() {
	win.dirty = max(win.dirty, min(win.w+slack, len(win.buf)))
}

// room reports whether more can be decoded now: output is wanted and the
// ring has space before its end.
func (win *window) room() bool { return win.left > 0 && win.w < len(win.buf) }

// lit puts one decoded byte.
func (win *window) lit(c byte) {
	win.buf[win.w] = c
	win.w++
	win.left--
}

// match starts a copy of n bytes from ring position src and copies what
// fits.
func (win *window) match(src, n int) {
	win.msrc, win.mlen = src&win.mask, n
	win.copyMatch()
}

// copyMatch copies as much of the current match as fits before the ring's
// end and the output's.
func (win *window) copyMatch() {
	n := win.mlen
	if int64(n) > win.left {
		n = int(win.left)
	}
	if room := len(win.buf) - win.w; n > room {
		n = room
	}
	src, w := win.msrc, win.w
	if src+n <= w || (src >= w+n && src+n <= len(win.buf)) {
		copy(win.buf[w:w+n], win.buf[src:src+n])
		src += n
	} else {
		buf, mask := win.buf, win.mask
		for i := range n {
			buf[w+i] = buf[src&mask]
			src++
		}
	}
	win.msrc = src & win.mask
	win.w += n
	win.left -= int64(n)
	win.mlen -= n
	if win.left == 0 {
		win.mlen = 0
	}
}

// wrap starts the ring over once everything up to its end was read.
func (win *window) wrap() {
	if win.w == len(win.buf) && win.r == win.w {
		win.r, win.w = 0, 0
	}
}
