package bzip2

// rle1 undoes bzip2's first run-length stage on a block's BWT output: four
// equal bytes are followed by a count (0..255) of further copies. It is
// resumable, so a block can be expanded into a caller's buffer piece by
// piece.
type rle1 struct {
	src  []byte
	i    int  // next byte of src
	last byte // the byte of the current run
	cnt  int  // length of the current run in src (0: no run yet)
	rep  int  // copies of last still to emit
	bad  bool // src ends after four equal bytes, without their count
}

func (r *rle1) reset(src []byte) { *r = rle1{src: src} }

// done reports whether everything has been emitted.
func (r *rle1) done() bool { return r.rep == 0 && r.i >= len(r.src) }

// expand writes as much output as fits into dst and returns its length.
func (r *rle1) expand(dst []byte) int {
	o := 0
	if r.rep > 0 {
		o = fillByte(dst, r.last, r.rep)
		r.rep -= o
		if r.rep > 0 {
			return o
		}
	}
	src, i, last, cnt := r.src, r.i, r.last, r.cnt
	for i < len(src) && o < len(dst) {
		// Fast path: copy bytes while no 4-run can complete within the
		// next 4 source bytes.
		for i+4 <= len(src) && o+4 <= len(dst) && cnt < 4 {
			b0, b1, b2, b3 := src[i], src[i+1], src[i+2], src[i+3]
			if b1 == b2 || (b0 == b1 || b2 == b3) {
				break
			}
			if cnt != 0 && b0 == last {
				break
			}
			dst[o], dst[o+1], dst[o+2], dst[o+3] = b0, b1, b2, b3
			o += 4
			i += 4
			last, cnt = b3, 1
		}
		if i >= len(src) || o >= len(dst) {
			break
		}
		b := src[i]
		i++
		dst[o] = b
		o++
		if cnt == 0 || b != last {
			last, cnt = b, 1
			continue
		}
		cnt++
		if cnt < 4 {
			continue
		}
		cnt = 0
		if i == len(src) {
			// The reference decoder reads a count past the block's end
			// here and reports corruption; encoders always write one.
			r.bad = true
			break
		}
		rep := int(src[i])
		i++
		k := fillByte(dst[o:], last, rep)
		o += k
		if k < rep {
			r.rep = rep - k
			break
		}
	}
	r.i, r.last, r.cnt = i, last, cnt
	return o
}

// fillByte writes min(n, len(dst)) copies of b to dst and returns the count.
func fillByte(dst []byte, b byte, n int) int {
	n = min(n, len(dst))
	d := dst[:n]
	for k := range d {
		d[k] = b
	}
	return n
}
