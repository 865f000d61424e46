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
	blockTypeRLE      = 1
	blockTypeReserved = 3
)

// walker states: what follows the current structure.
const (
	stBlockHeader = iota // a block header
	stChecksum           // the frame's Content_Checksum
	stEnd                // nothing: the frame has ended, Read returns io.EOF
)

// walker passes the compressed bytes of one zstd frame at a time to the
// decoder, parsing the structure as it goes so that it knows where the
// frame ends and which checksum it stores; next moves it to the following
// frame. It reads headers (at most 18 bytes) into its own array and passes
// them on from there; block contents go from the input straight into the
// decoder's buffer, never further than the block's end, so the input is
// read in the same pieces the decoder alone would read it in.
type walker struct {
	r        io.Reader
	hdr      [maxFrameHeader]byte // structure bytes read, hdr[hlo:hhi] not yet passed on
	hlo, hhi int
	body     int    // bytes of the current block's content still to pass on
	state    int    // what follows the current structure
	hasSum   bool   // the current frame has a Content_Checksum
	sum      uint32 // the stored checksum, once read
	frames   int    // frames (zstd and skippable) begun so far
	off      int64  // input bytes read

	trailOff, trailLen int64 // bytes after the last frame that are no frame

	contentSize int64 // the current frame's Frame_Content_Size, -1 when absent
	window      int64 // the current frame's Window_Size (RFC 8878 §3.1.1.1.2)
	rerr        error // the input's error, once seen (io.EOF included)
	err         error // sticky error of the walk
}

// reset makes w walk a new input.
func (w *walker) reset(r io.Reader) { *w = walker{r: r, state: stEnd} }

func (w *walker) fail(err error) error {
	w.err = err
	return err
}

// read reads into p from the input, at most once; the input's error is
// kept for after the bytes read with it.
func (w *walker) read(p []byte) (int, error) {
	if w.rerr != nil {
		return 0, w.rerr
	}
	n, err := w.r.Read(p)
	w.off += int64(n)
	if err != nil {
		w.rerr = err
	}
	if n > 0 {
		return n, nil
	}
	return 0, err
}

// readFull fills p from the input; it returns how much it read and
// ErrTruncated (or the input's error) when it could not fill p.
func (w *walker) readFull(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := w.read(p[n:])
		n += m
		if err != nil {
			if err == io.EOF {
				err = ErrTruncated
			}
			return n, err
		}
	}
	return n, nil
}

// magicPrefix reports whether p, shorter than a magic number, starts one
// (a frame cut short rather than foreign bytes).
func magicPrefix(p []byte) bool {
	var frame, skip [4]byte
	binary.LittleEndian.PutUint32(frame[:], frameMagic)
	binary.LittleEndian.PutUint32(skip[:], skippableMagic)
	if string(p) == string(frame[:len(p)]) {
		return true
	}
	return len(p) == 0 || p[0]&0xF0 == skip[0] && string(p[1:]) == string(skip[1:len(p)])
}

// trailing reads the rest of the input after the last frame, of which the
// n bytes just read were the start, records it as trailing data and ends
// the walk.
func (w *walker) trailing(n int) error {
	start := w.off - int64(n)
	var buf [4096]byte
	for w.rerr == nil {
		w.read(buf[:])
	}
	if w.rerr != io.EOF {
		return w.fail(w.rerr)
	}
	w.trailOff, w.trailLen = start, w.off-start
	return io.EOF
}

// next moves w to the start of the next zstd frame, skipping skippable
// frames, and reads its header. It returns io.EOF when the input ends
// cleanly between frames (after at least one frame).
func (w *walker) next() error {
	if w.err != nil {
		return w.err
	}
	for {
		n, err := w.readFull(w.hdr[:4])
		if err != nil {
			if err == ErrTruncated && w.frames > 0 {
				if n == 0 {
					return io.EOF
				}
				if !magicPrefix(w.hdr[:n]) {
					return w.trailing(n)
				}
			}
			return w.fail(err)
		}
		magic := binary.LittleEndian.Uint32(w.hdr[:])
		if magic&skippableMask == skippableMagic {
			if err := w.skipFrame(); err != nil {
				return w.fail(err)
			}
			continue
		}
		if magic != frameMagic {
			if w.frames > 0 {
				return w.trailing(n)
			}
			return w.fail(ErrMagic)
		}
		if _, err := w.readFull(w.hdr[4:5]); err != nil {
			return w.fail(err)
		}
		fhd := w.hdr[4]
		if fhd&0x08 != 0 {
			return w.fail(ErrHeader)
		}
		singleSegment := fhd&0x20 != 0
		size := 5
		if !singleSegment {
			size++ // Window_Descriptor
		}
		size += [4]int{0, 1, 2, 4}[fhd&3] // Dictionary_ID
		switch fcs := fhd >> 6; {
		case fcs == 0 && singleSegment:
			size++
		case fcs > 0:
			size += 1 << fcs
		}
		if _, err := w.readFull(w.hdr[5:size]); err != nil {
			return w.fail(err)
		}
		w.contentSize = contentSize(fhd, w.hdr[:size])
		w.window = windowSize(singleSegment, w.hdr[5], w.contentSize)
		w.frames++
		w.hasSum = fhd&0x04 != 0
		w.sum = 0
		w.hlo, w.hhi, w.body = 0, size, 0
		w.state = stBlockHeader
		return nil
	}
}

// contentSize returns the Frame_Content_Size of a frame header hdr with
// descriptor fhd, or -1 when the header has none. It is the last field of
// the header, of 0, 1, 2, 4 or 8 bytes; the 2-byte form counts from 256.
func contentSize(fhd byte, hdr []byte) int64 {
	n := [4]int{0, 2, 4, 8}[fhd>>6]
	if n == 0 && fhd&0x20 != 0 {
		n = 1
	}
	f := hdr[len(hdr)-n:]
	switch n {
	case 1:
		return int64(f[0])
	case 2:
		return int64(binary.LittleEndian.Uint16(f)) + 256
	case 4:
		return int64(binary.LittleEndian.Uint32(f))
	case 8:
		if v := binary.LittleEndian.Uint64(f); v <= 1<<62 {
			return int64(v)
		}
	}
	return -1
}

// windowSize returns a frame's Window_Size: from the Window_Descriptor wd,
// or for a single-segment frame its content size (at least 1 KiB, as the
// decoder takes it).
func windowSize(singleSegment bool, wd byte, contentSize int64) int64 {
	if singleSegment {
		return max(contentSize, 1<<10)
	}
	base := int64(1) << (10 + wd>>3)
	return base + base/8*int64(wd&7)
}

// skipFrame discards a skippable frame whose magic has been read.
func (w *walker) skipFrame() error {
	if _, err := w.readFull(w.hdr[4:8]); err != nil {
		return err
	}
	size := int64(binary.LittleEndian.Uint32(w.hdr[4:]))
	w.frames++
	for size > 0 {
		n, err := w.read(w.hdr[:min(size, int64(len(w.hdr)))])
		size -= int64(n)
		if err != nil {
			if err == io.EOF {
				err = ErrTruncated
			}
			return err
		}
	}
	return nil
}

// Read passes on bytes of the current frame, up to its end, where it
// returns io.EOF.
func (w *walker) Read(p []byte) (int, error) {
	for {
		switch {
		case w.err != nil:
			return 0, w.err
		case len(p) == 0:
			return 0, nil
		case w.hlo < w.hhi:
			n := copy(p, w.hdr[w.hlo:w.hhi])
			w.hlo += n
			return n, nil
		case w.body > 0:
			n, err := w.read(p[:min(len(p), w.body)])
			w.body -= n
			if err != nil {
				if err == io.EOF {
					err = ErrTruncated
				}
				return n, w.fail(err)
			}
			return n, nil
		}
		switch w.state {
		case stEnd:
			return 0, io.EOF
		case stBlockHeader:
			if _, err := w.readFull(w.hdr[:blockHeaderSize]); err != nil {
				return 0, w.fail(err)
			}
			h := uint32(w.hdr[0]) | uint32(w.hdr[1])<<8 | uint32(w.hdr[2])<<16
			typ, size := h>>1&3, int(h>>3)
			if typ == blockTypeReserved || size > maxBlockSize {
				return 0, w.fail(ErrBlock)
			}
			if typ == blockTypeRLE {
				size = 1
			}
			w.hlo, w.hhi, w.body = 0, blockHeaderSize, size
			switch {
			case h&1 == 0:
				w.state = stBlockHeader
			case w.hasSum:
				w.state = stChecksum
			default:
				w.state = stEnd
			}
		case stChecksum:
			if _, err := w.readFull(w.hdr[:checksumSize]); err != nil {
				return 0, w.fail(err)
			}
			w.sum = binary.LittleEndian.Uint32(w.hdr[:])
			w.hlo, w.hhi = 0, checksumSize
			w.state = stEnd
		}
	}
}

// atEnd reports whether the whole current frame has been passed on.
func (w *walker) atEnd() bool { return w.state == stEnd && w.hlo == w.hhi && w.body == 0 }
