package rar

import (
	"bytes"
	"encoding/binary"
	"io"
)

// Output of the RAR 5 decompressor: bytes leave the window in order; a
// filter's block is copied out of the window once it is fully decoded,
// filtered there (the window keeps the unfiltered bytes for later
// matches) and returned from the copy.

// Read returns decoded bytes of the current entry, io.EOF at its end.
func (d *decoder5) Read(p []byte) (int, error) {
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
				d.err = errShort5
				return 0, d.err
			}
			return 0, io.EOF
		}
		if d.size >= 0 && d.unpPtr-d.fileStart > uint64(d.size) {
			// More decoded than declared: stop here, as unrar does.
			d.fileDone = true
			continue
		}
		stopAt := d.wrPtr + uint64(len(d.win)) - maxMatch5
		if s := d.unpPtr + decodeBatch5; s < stopAt {
			stopAt = s
		}
		if stopAt <= d.unpPtr {
			d.err = errFilterWin5
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
func (d *decoder5) discard() error {
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
				d.err = errShort5
				return d.err
			}
			return io.EOF
		}
		if d.size >= 0 && decoded > uint64(d.size) {
			d.fileDone = true
			continue
		}
		stopAt := d.wrPtr + uint64(len(d.win)) - maxMatch5
		if s := d.unpPtr + decodeBatch5; s < stopAt {
			stopAt = s
		}
		if err := d.decode(stopAt); err != nil {
			d.err = err
		}
	}
}

// flushWindow returns window bytes from wrPtr up to limit.
func (d *decoder5) flushWindow(p []byte, limit uint64) int {
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
func (d *decoder5) emit(p, src []byte) int {
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
func (d *decoder5) applyFilter(f *filter5) error {
	n := int(f.length)
	if cap(d.fbuf) < n {
		putBuf(d.fbuf)
		d.fbuf = getBuf(grow5(n))
	}
	buf := d.fbuf[:n]
	from := f.start & d.mask
	c := copy(buf, d.win[from:])
	copy(buf[c:], d.win)
	offset := uint32(f.start - d.fileStart)
	switch f.typ {
	case filter5E8:
		e8Filter5(buf, offset, false)
	case filter5E8E9:
		e8Filter5(buf, offset, true)
	case filter5ARM:
		armFilter5(buf, offset)
	case filter5Delta:
		if cap(d.fdst) < n {
			putBuf(d.fdst)
			d.fdst = getBuf(grow5(n))
		}
		dst := d.fdst[:n]
		undelta(dst, buf, int(f.channels))
		buf = dst
	default:
		return errFilter5
	}
	d.pend = buf
	if len(buf) > 0 && d.size >= 0 && d.out >= d.size {
		// Entirely past the declared size.
		d.pend = nil
	}
	return nil
}

// e8Filter5 undoes the x86 CALL (and with e9, JMP) address transform over
// buf, whose first byte is at offset in the entry.
func e8Filter5(buf []byte, offset uint32, e9 bool) {
	const fileSize = 0x1000000
	end := len(buf) - 4 // an opcode needs 4 bytes after it
	if end <= 0 {
		return
	}
	// The next 0xe8 and 0xe9 at or after i, found with IndexByte.
	n8, n9 := -1, -1
	for i := 0; ; {
		if n8 < i {
			n8 = indexFrom5(buf[:end], 0xe8, i)
		}
		if e9 && n9 < i {
			n9 = indexFrom5(buf[:end], 0xe9, i)
		}
		i = n8
		if e9 && n9 < i {
			i = n9
		}
		if i >= end {
			return
		}
		i++
		off := (uint32(i) + offset) % fileSize
		a := buf[i : i+4 : i+4]
		addr := binary.LittleEndian.Uint32(a)
		if addr&0x80000000 != 0 {
			if (addr+off)&0x80000000 == 0 {
				binary.LittleEndian.PutUint32(a, addr+fileSize)
			}
		} else if (addr-fileSize)&0x80000000 != 0 {
			binary.LittleEndian.PutUint32(a, addr-off)
		}
		i += 4
	}
}

// indexFrom5 returns the index of the first c in b at or after from, or
// len(b).
func indexFrom5(b []byte, c byte, from int) int {
	if from >= len(b) {
		return len(b)
	}
	if j := bytes.IndexByte(b[from:], c); j >= 0 {
		return from + j
	}
	return len(b)
}

// armFilter5 undoes the ARM BL address transform.
func armFilter5(buf []byte, offset uint32) {
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

// grow5 rounds a filter buffer size up to a power of two (at least 64 KiB),
// so buffers grow a few times at most.
func grow5(n int) int {
	c := 64 << 10
	for c < n {
		c <<= 1
	}
	return c
}
