package chm

import (
	"io"

	"github.com/unpack-dev/unpack/internal/codec/lzx"
)

// inWindow is how much compressed data is buffered ahead: several frames'
// worth (a frame's compressed data is at most a little over its 32 KiB).
const inWindow = 4 * lzx.FrameSize

// section decodes content section 1: LZX frames of 32 KiB, the decoder's
// state reset every reset interval.
type section struct {
	src   *io.SectionReader
	clen  int64 // compressed length
	ulen  int64 // uncompressed length (the reset table's)
	reset int64 // frames per reset interval
	dec   *lzx.Decoder

	in     []byte
	ib, ie int   // buffered compressed data: in[ib:ie]
	cread  int64 // compressed bytes read into in
	frame  int64 // frames decoded
	upos   int64 // uncompressed offset of the next byte Read gives
	out    []byte
	op, oe int
	err    error
}

// rewind starts the section over.
func (s *section) rewind() {
	s.dec.Reset()
	s.ib, s.ie, s.cread = 0, 0, 0
	s.frame, s.upos, s.op, s.oe, s.err = 0, 0, 0, 0, nil
}

// fill tops the input buffer up.
func (s *section) fill() error {
	if s.ib > 0 {
		s.ie = copy(s.in, s.in[s.ib:s.ie])
		s.ib = 0
	}
	for s.ie < len(s.in) && s.cread < s.clen {
		n, err := s.src.ReadAt(s.in[s.ie:s.ie+int(min(int64(len(s.in)-s.ie), s.clen-s.cread))], s.cread)
		s.ie += n
		s.cread += int64(n)
		if n == 0 {
			if err == nil || err == io.EOF {
				return ErrTruncated
			}
			return err
		}
	}
	return nil
}

// nextFrame decodes the next frame into out.
func (s *section) nextFrame() error {
	done := s.frame * lzx.FrameSize
	if done >= s.ulen {
		return io.EOF
	}
	n := int(min(lzx.FrameSize, s.ulen-done))
	if s.frame > 0 && s.frame%s.reset == 0 {
		s.dec.ResetState()
	}
	if s.ie-s.ib < inWindow/2 {
		if err := s.fill(); err != nil {
			return err
		}
	}
	used, err := s.dec.Decode(s.out[:n], s.in[s.ib:s.ie])
	if err != nil {
		return err
	}
	s.ib += used
	s.frame++
	s.op, s.oe = 0, n
	return nil
}

// seek moves to uncompressed offset off, decoding from the start when it
// is behind.
func (s *section) seek(off int64) error {
	if off < s.upos || s.err != nil {
		s.rewind()
	}
	for s.upos < off {
		if s.op == s.oe {
			if s.err = s.nextFrame(); s.err != nil {
				if s.err == io.EOF {
					return ErrBeyond
				}
				return s.err
			}
			continue
		}
		k := int(min(off-s.upos, int64(s.oe-s.op)))
		s.op += k
		s.upos += int64(k)
	}
	return nil
}

// Read gives the section's data from the current offset.
func (s *section) Read(p []byte) (int, error) {
	for s.op == s.oe {
		if s.err != nil {
			return 0, s.err
		}
		s.err = s.nextFrame()
	}
	n := copy(p, s.out[s.op:s.oe])
	s.op += n
	s.upos += int64(n)
	return n, nil
}
