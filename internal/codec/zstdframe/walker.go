package zstdframe

import (
	"encoding/binary"
	"io"
)

// Frame layout constants (RFC 8878 §3.1).
const (
	frameMagic        = 0xFD2FB528
	skippableMagic    = 0x184D2A50 // …2A5F: the low 4 bits are free
	skippableMask     = 0xFFFFFFF0
	blockHeaderSize   = 3
	checksumSize      = 4
	maxBlockSize      = 128 << 10 // Block_Maximum_Size's upper bound
	maxFrameHeader    = 4 + 1 + 1 + 4 + 8
	walkerBufferSize  = 64 << 10
	blockTypeRaw      = 0
	blockTypeRLE      = 1
	blockTypeReserved = 3
)

// walker states: what the next structure at the read position is.
const (
	stBlockHeader = iota // a block header follows
	stChecksum           // the frame's Content_Checksum follows
	stEnd                // the frame has ended: Read returns io.EOF
)

// walker passes the compressed bytes of one zstd frame at a time to the
// decoder, parsing the structure as it goes so that it knows where the
// frame ends and what checksum it stores. next moves it to the following
// frame. It reads its input through its own buffer, allocated once.
type walker struct {
	r        io.Reader
	buf      []byte
	pos, end int   // unread bytes are buf[pos:end]
	off      int64 // input offset of buf[pos]
	left     int   // bytes of the current structure still to pass on
	state    int
	hasSum   bool   // the current frame has a Content_Checksum
	sum      uint32 // the stored checksum, once passed
	frames   int    // frames (zstd and skippable) started so far
	rerr     error  // the input's error, once seen (io.EOF included)
	err      error  // sticky structural error
}

// reset makes w walk a new input, keeping its buffer.
func (w *walker) reset(r io.Reader) {
	if w.buf == nil {
		w.buf = make([]byte, walkerBufferSize)
	}
	*w = walker{r: r, buf: w.buf, state: stEnd}
}

// fill makes at least n bytes available at buf[pos:] (n ≤ maxFrameHeader),
// reading more input; it reports whether it could.
func (w *walker) fill(n int) bool {
	if w.end-w.pos >= n {
		return true
	}
	if w.pos > 0 {
		w.end = copy(w.buf, w.buf[w.pos:w.end])
		w.pos = 0
	}
	for w.end < n && w.rerr == nil {
		m, err := w.r.Read(w.buf[w.end:])
		w.end += m
		if err != nil {
			w.rerr = err
		}
	}
	return w.end >= n
}

// inputErr is the error for input that ended or failed before n more bytes
// of structure: ErrTruncated at EOF, else the input's error.
func (w *walker) inputErr() error {
	if w.rerr == nil || w.rerr == io.EOF {
		return ErrTruncated
	}
	return w.rerr
}

// next moves w to the start of the next zstd frame, skipping skippable
// frames, and parses its header. It returns io.EOF when the input ends
// cleanly between frames (after at least one frame).
func (w *walker) next() error {
	if w.err != nil {
		return w.err
	}
	for {
		if !w.fill(4) {
			if w.end == w.pos && w.frames > 0 && w.rerr == io.EOF {
				return io.EOF
			}
			return w.fail(w.inputErr())
		}
		magic := binary.LittleEndian.Uint32(w.buf[w.pos:])
		if magic&skippableMask == skippableMagic {
			if err := w.skipFrame(); err != nil {
				return w.fail(err)
			}
			continue
		}
		if magic != frameMagic {
			return w.fail(ErrMagic)
		}
		if !w.fill(5) {
			return w.fail(w.inputErr())
		}
		fhd := w.buf[w.pos+4]
		if fhd&0x08 != 0 {
			return w.fail(ErrHeader)
		}
		singleSegment := fhd&0x20 != 0
		n := 5
		if !singleSegment {
			n++ // Window_Descriptor
		}
		n += [4]int{0, 1, 2, 4}[fhd&3] // Dictionary_ID
		switch fcs := fhd >> 6; {
		case fcs == 0 && singleSegment:
			n++
		case fcs > 0:
			n += 1 << fcs
		}
		w.frames++
		w.hasSum = fhd&0x04 != 0
		w.sum = 0
		w.left = n
		w.state = stBlockHeader
		return nil
	}
}

// skipFrame discards a skippable frame at the read position.
func (w *walker) skipFrame() error {
	if !w.fill(8) {
		return w.inputErr()
	}
	size := int64(binary.LittleEndian.Uint32(w.buf[w.pos+4:]))
	w.consume(8)
	w.frames++
	for size > 0 {
		if w.pos == w.end && !w.fill(1) {
			return w.inputErr()
		}
		m := int(min(size, int64(w.end-w.pos)))
		w.consume(m)
		size -= int64(m)
	}
	return nil
}

func (w *walker) consume(n int) {
	w.pos += n
	w.off += int64(n)
}

func (w *walker) fail(err error) error {
	w.err = err
	return err
}

// Read passes on bytes of the current frame, up to its end, where it
// returns io.EOF.
func (w *walker) Read(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	for w.left == 0 {
		switch w.state {
		case stEnd:
			return 0, io.EOF
		case stBlockHeader:
			if !w.fill(blockHeaderSize) {
				return 0, w.fail(w.inputErr())
			}
			h := uint32(w.buf[w.pos]) | uint32(w.buf[w.pos+1])<<8 | uint32(w.buf[w.pos+2])<<16
			typ, size := h>>1&3, int(h>>3)
			if typ == blockTypeReserved || size > maxBlockSize {
				return 0, w.fail(ErrBlock)
			}
			if typ == blockTypeRLE {
				size = 1
			}
			w.left = blockHeaderSize + size
			switch {
			case h&1 == 0:
				w.state = stBlockHeader
			case w.hasSum:
				w.state = stChecksum
			default:
				w.state = stEnd
			}
		case stChecksum:
			if !w.fill(checksumSize) {
				return 0, w.fail(w.inputErr())
			}
			w.sum = binary.LittleEndian.Uint32(w.buf[w.pos:])
			w.left = checksumSize
			w.state = stEnd
		}
	}
	if w.pos == w.end && !w.fill(1) {
		return 0, w.fail(w.inputErr())
	}
	n := copy(p, w.buf[w.pos:min(w.end, w.pos+w.left)])
	w.consume(n)
	w.left -= n
	return n, nil
}

// atEnd reports whether the whole current frame has been passed on.
func (w *walker) atEnd() bool { return w.state == stEnd && w.left == 0 }
