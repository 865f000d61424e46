package rar5

import (
	"io"

	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
)

// Output of the RAR 5 decompressor: bytes leave the window in order; a
// filter's block is copied out of the window once it is fully decoded,
// filtered there (the window keeps the unfiltered bytes for later
// matches) and returned from the copy.

// Read returns decoded bytes of the current entry, io.EOF at its end.
func (d *decoder) Read(p []byte) (int, error) {
	for {
		if len(d.pend) > 0 {
			n := d.emit(p, d.pend)
			d.pend = d.pend[n:]
			if n > 0 {
				return n, nil
			}
			d.pend = nil
			continue
		}
		limit := d.unpPtr
		if d.fhead < len(d.filters) {
			f := &d.filters[d.fhead]
			switch {
			case f.start < d.wrPtr:
				// Starts in bytes already returned: not applicable.
				d.fhead++
				continue
			case f.start == d.wrPtr:
				end := f.start + uint64(f.length)
				if d.unpPtr >= end {
					if err := d.applyFilter(f); err != nil {
						d.err = err
						return 0, err
					}
					d.fhead++
					d.wrPtr = end
					continue
				}
				limit = d.wrPtr
			case f.start < limit:
				limit = f.start
			}
		}
		if d.wrPtr < limit {
			n := d.flushWindow(p, limit)
			if n > 0 {
				return n, nil
			}
			continue
		}
		if d.err != nil {
			return 0, d.err
		}
		if d.fileDone {
			if d.size >= 0 && d.out < d.size {
				d.err = errShort
				return 0, d.err
			}
			return 0, io.EOF
		}
		if d.size >= 0 && d.unpPtr-d.fileStart > uint64(d.size) {
			// More decoded than declared: stop here, as unrar does.
			d.fileDone = true
			continue
		}
		stopAt := d.wrPtr + uint64(len(d.win)) - maxMatch
		if s := d.unpPtr + decodeBatch; s < stopAt {
			stopAt = s
		}
		if stopAt <= d.unpPtr {
			d.err = errFilterWin
			return 0, d.err
		}
		if err := d.decode(stopAt); err != nil {
			d.err = err
		}
	}
}

// discard decodes the rest of the current entry without delivering it (a
// solid entry skipped): its filters are dropped, since the window keeps
// unfiltered bytes and later entries refer only to those. It returns
// io.EOF at the entry's end.
func (d *decoder) discard() error {
	for {
		d.pend = nil
		d.fhead = len(d.filters)
		d.wrPtr = d.unpPtr
		if d.err != nil {
			return d.err
		}
		decoded := d.unpPtr - d.fileStart
		if d.fileDone {
			if d.size >= 0 && decoded < uint64(d.size) {
				d.err = errShort
				return d.err
			}
			return io.EOF
		}
		if d.size >= 0 && decoded > uint64(d.size) {
			d.fileDone = true
			continue
		}
		stopAt := d.wrPtr + uint64(len(d.win)) - maxMatch
		if s := d.unpPtr + decodeBatch; s < stopAt {
			stopAt = s
		}
		if err := d.decode(stopAt); err != nil {
			d.err = err
		}
	}
}

// flushWindow returns window bytes from wrPtr up to limit.
func (d *decoder) flushWindow(p []byte, limit uint64) int {
	from := d.wrPtr & d.mask
	n := limit - d.wrPtr
	if rest := uint64(len(d.win)) - from; n > rest {
		n = rest
	}
	src := d.win[from : from+n]
	m := d.emit(p, src)
	if m == 0 && len(src) > 0 {
		// Past the declared size: drop the bytes.
		d.wrPtr += n
		return 0
	}
	d.wrPtr += uint64(m)
	return m
}

// emit copies src to p, never beyond the declared size, and counts it.
func (d *decoder) emit(p, src []byte) int {
	if d.size >= 0 {
		if left := d.size - d.out; int64(len(src)) > left {
			src = src[:left]
		}
	}
	n := copy(p, src)
	d.out += int64(n)
	return n
}

// applyFilter copies f's block out of the window, filters it and makes it
// the pending output.
func (d *decoder) applyFilter(f *filter) error {
	n := int(f.length)
	if cap(d.fbuf) < n {
		rarshared.PutBuf(d.fbuf)
		d.fbuf = rarshared.GetBuf(grow(n))
	}
	buf := d.fbuf[:n]
	from := f.start & d.mask
	c := copy(buf, d.win[from:])
	copy(buf[c:], d.win)
	offset := uint32(f.start - d.fileStart)
	switch f.typ {
	case filterE8:
		rarshared.E8(buf, offset, false, true)
	case filterE8E9:
		rarshared.E8(buf, offset, true, true)
	case filterARM:
		armFilter(buf, offset)
	case filterDelta:
		if cap(d.fdst) < n {
			rarshared.PutBuf(d.fdst)
			d.fdst = rarshared.GetBuf(grow(n))
		}
		dst := d.fdst[:n]
		rarshared.Undelta(dst, buf, int(f.channels))
		buf = dst
	default:
		return errFilter
	}
	d.pend = buf
	if len(buf) > 0 && d.size >= 0 && d.out >= d.size {
		// Entirely past the declared size.
		d.pend = nil
	}
	return nil
}

// armFilter undoes the ARM BL address transform.
func armFilter(buf []byte, offset uint32) {
	for i := 0; i+3 < len(buf); i += 4 {
		b := buf[i : i+4 : i+4]
		if b[3] != 0xeb {
			continue
		}
		v := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		v -= (offset + uint32(i)) / 4
		b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16)
	}
}

// grow rounds a filter buffer size up to a power of two (at least 64 KiB),
// so buffers grow a few times at most.
func grow(n int) int {
	c := 64 << 10
	for c < n {
		c <<= 1
	}
	return c
}
