package gzip

import "io"

// input is the compressed source: bytes handed back by the inflater after
// a member (the trailer, the next member) and small header reads come
// from buf; everything else goes straight to the source, so the inflater's
// large reads are not copied twice.
type input struct {
	src  io.Reader
	buf  []byte // buf[r:w] is pending
	r, w int
	n    int64 // bytes read from src
	err  error // sticky source error
}

// inputBuf holds the inflater's read-ahead (32 KiB at most) plus one
// header-sized fill.
const (
	inputBuf  = 40 << 10
	headerBuf = 4 << 10
)

func (in *input) reset(src io.Reader) {
	if in.buf == nil {
		in.buf = make([]byte, inputBuf)
	}
	in.src, in.r, in.w, in.n, in.err = src, 0, 0, 0, nil
}

// offset is the position in the source of the next byte served.
func (in *input) offset() int64 { return in.n - int64(in.w-in.r) }

// drain reads the rest of the input and returns how many bytes that was.
func (in *input) drain() (int64, error) {
	n := int64(in.w - in.r)
	in.r = in.w
	if in.err != nil {
		if in.err == io.EOF {
			return n, nil
		}
		return n, in.err
	}
	m, err := io.CopyBuffer(io.Discard, onlyReader{in.src}, in.buf)
	in.n += m
	in.err = io.EOF
	if err != nil {
		in.err = err
	}
	return n + m, err
}

// onlyReader hides the source's WriteTo, so that drain copies through the
// input's own buffer.
type onlyReader struct{ io.Reader }

// Read serves pending bytes first, then reads the source directly.
func (in *input) Read(p []byte) (int, error) {
	if in.r < in.w {
		n := copy(p, in.buf[in.r:in.w])
		in.r += n
		return n, nil
	}
	if in.err != nil {
		return 0, in.err
	}
	n, err := in.src.Read(p)
	in.n += int64(n)
	if err != nil {
		in.err = err
	}
	return n, err
}

// buffered is how many bytes Read can give without reading the source:
// those pending, and those the source holds buffered when it tells
// (bufio.Reader's Buffered).
func (in *input) buffered() int {
	n := in.w - in.r
	if b, ok := in.src.(interface{ Buffered() int }); ok && in.err == nil {
		n += b.Buffered()
	}
	return n
}

// readByte returns the next byte, io.EOF at a clean end of the source, or
// the source's error.
func (in *input) readByte() (byte, error) {
	for in.r == in.w {
		if in.err != nil {
			return 0, in.err
		}
		in.r, in.w = 0, 0
		n, err := in.src.Read(in.buf[:headerBuf])
		in.w = n
		in.n += int64(n)
		if err != nil {
			in.err = err
		}
	}
	b := in.buf[in.r]
	in.r++
	return b, nil
}

// unread puts b back in front of the pending bytes. len(b) plus the
// pending bytes fit in inputBuf when b is the inflater's read-ahead (32 KiB
// at most) after a header fill (headerBuf at most); the buffer grows for
// the input a parallel decode read ahead.
func (in *input) unread(b []byte) {
	if len(b) <= in.r {
		in.r -= copy(in.buf[in.r-len(b):], b)
		return
	}
	pending := in.w - in.r
	if len(b)+pending > len(in.buf) {
		buf := make([]byte, len(b)+pending)
		copy(buf[len(b):], in.buf[in.r:in.w])
		in.buf = buf
	} else {
		copy(in.buf[len(b):], in.buf[in.r:in.w])
	}
	copy(in.buf, b)
	in.r, in.w = 0, len(b)+pending
}
