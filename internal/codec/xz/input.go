package xz

import (
	"io"

	"github.com/unpack-dev/unpack/internal/bcj"
)

// inputBufSize is the size of the Reader's input buffer.
const inputBufSize = 32 << 10

// input buffers the compressed stream. It reads ahead only within its own
// buffer, so nothing after the last stream is lost to other readers of r
// beyond what one buffer fill took.
type input struct {
	r        io.Reader
	buf      []byte
	pos, end int
	err      error // sticky error of r, io.EOF included
}

func (in *input) reset(r io.Reader) {
	if in.buf == nil {
		in.buf = make([]byte, inputBufSize)
	}
	in.r, in.pos, in.end, in.err = r, 0, 0, nil
}

// fill reads more into the buffer when it is empty. It returns r's error
// when nothing could be read.
func (in *input) fill() error {
	if in.pos < in.end {
		return nil
	}
	in.pos, in.end = 0, 0
	for empty := 0; in.err == nil; empty++ {
		n, err := in.r.Read(in.buf)
		in.end = n
		if err != nil {
			in.err = err
		}
		if n > 0 {
			return nil
		}
		if empty >= 100 {
			in.err = io.ErrNoProgress
		}
	}
	return in.err
}

// ReadByte implements io.ByteReader; it returns io.EOF at the end.
func (in *input) ReadByte() (byte, error) {
	if in.pos == in.end {
		if err := in.fill(); err != nil {
			return 0, err
		}
	}
	c := in.buf[in.pos]
	in.pos++
	return c, nil
}

// Read implements io.Reader; it returns io.EOF at the end.
func (in *input) Read(p []byte) (int, error) {
	if in.pos == in.end {
		if len(p) >= len(in.buf) && in.err == nil {
			n, err := in.r.Read(p)
			if err != nil {
				in.err = err
			}
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if err := in.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, in.buf[in.pos:in.end])
	in.pos += n
	return n, nil
}

// readFull fills p. It returns io.EOF when the input ended before the first
// byte and errTruncated when it ended later.
func (in *input) readFull(p []byte) error {
	_, err := io.ReadFull(in, p)
	if err == io.ErrUnexpectedEOF {
		return errTruncated
	}
	return err
}

// blockInput is a block's compressed data: the input, limited to the
// declared compressed size when there is one, counting what is read. The
// input ending inside a block is errTruncated.
type blockInput struct {
	in    *input
	n     int64 // bytes read
	limit int64 // compressed size, -1 when not declared
	err   error // an error of the input (not io.EOF at the limit)
}

func (b *blockInput) reset(in *input, limit int64) {
	b.in, b.n, b.limit, b.err = in, 0, limit, nil
}

func (b *blockInput) Read(p []byte) (int, error) {
	if b.limit >= 0 {
		rem := b.limit - b.n
		if rem == 0 {
			return 0, io.EOF
		}
		if int64(len(p)) > rem {
			p = p[:rem]
		}
	}
	n, err := b.in.Read(p)
	b.n += int64(n)
	if err != nil {
		if err == io.EOF {
			err = errTruncated
		}
		b.err = err
	}
	return n, err
}

// converters holds one reusable converter of each kind for one position
// of a filter chain, so building a chain allocates nothing.
type converters struct {
	x86   bcj.X86
	ppc   bcj.PPC
	ia64  bcj.IA64
	arm   bcj.ARM
	thumb bcj.ARMThumb
	sparc bcj.SPARC
	arm64 bcj.ARM64
	riscv bcj.RISCV
	delta bcj.Delta
}

// get resets and returns the converter for f (a validated non-last filter).
func (c *converters) get(f filter) bcj.Converter {
	switch f.id {
	case idX86:
		c.x86.Reset(f.start)
		return &c.x86
	case idPPC:
		c.ppc.Reset(f.start)
		return &c.ppc
	case idIA64:
		c.ia64.Reset(f.start)
		return &c.ia64
	case idARM:
		c.arm.Reset(f.start)
		return &c.arm
	case idARMThumb:
		c.thumb.Reset(f.start)
		return &c.thumb
	case idSPARC:
		c.sparc.Reset(f.start)
		return &c.sparc
	case idARM64:
		c.arm64.Reset(f.start)
		return &c.arm64
	case idRISCV:
		c.riscv.Reset(f.start)
		return &c.riscv
	}
	c.delta.Reset(f.dist)
	return &c.delta
}
