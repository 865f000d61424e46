package archive

import (
	"bufio"
	"errors"
	"io"
)

// A format read in one pass from its start (cpio, ar) parses its headers
// through a buffer, but its members' data need not pass through that
// buffer: when the input is a file, a long run of data goes to a
// RangeWriter through the kernel (nothing copied into the process), or,
// where the bytes must be seen (a checksum), is read straight into a large
// buffer of its own. FileSeq is that input.

// directMin is the shortest run that Send hands on without the buffer:
// shorter ones are cheaper read with the headers around them.
const directMin = 64 << 10

// directSize is the buffer a run whose bytes must be seen is read into:
// large reads, small enough to stay in the cache between the read into it,
// the check and the write out of it.
const directSize = 256 << 10

// FileSeq reads an archive sequentially through R, from offset 0 of the
// input, and hands runs of its data on with Send.
type FileSeq struct {
	// R is the buffered reader the format parses from; Send repositions
	// it (Reset, same buffer) after a run it read around it.
	R *bufio.Reader

	ra   io.ReaderAt // nil: not random access, everything through R
	src  RangeSource // nil: no kernel copy
	size int64
	sec  *io.SectionReader // R's source: ra from base
	base int64
	buf  []byte // for runs whose bytes must be seen, made on first use
}

// NewFileSeq reads in from its start: through a buffer of bufSize bytes
// over in.RA when the input is random access of a known size (in.R is
// then not used), else through in.R as it is (buffered to bufSize when it
// is no bufio.Reader).
func NewFileSeq(in *Input, bufSize int) *FileSeq {
	if in.RA != nil && in.Size >= 0 {
		f := &FileSeq{ra: in.RA, size: in.Size}
		f.src, _ = in.RA.(RangeSource)
		f.sec = io.NewSectionReader(in.RA, 0, in.Size)
		f.R = bufio.NewReaderSize(f.sec, bufSize)
		return f
	}
	return NewSeq(in.R, bufSize)
}

// NewSeq reads r sequentially, with no direct path: Send copies through
// the buffer.
func NewSeq(r io.Reader, bufSize int) *FileSeq {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, bufSize)
	}
	return &FileSeq{R: br}
}

// offset is the input offset of R's next byte.
func (f *FileSeq) offset() int64 {
	pos, _ := f.sec.Seek(0, io.SeekCurrent)
	return f.base + pos - int64(f.R.Buffered())
}

// Send writes the next n bytes of the input to w and consumes them;
// each, when not nil, sees every byte (in order) before w does. It
// returns how many bytes it wrote, fewer than n with nil errors when the
// input ends first, and the error that stopped it: rerr reading the input
// (as the source gave it), werr writing to w (as w gave it).
//
// Bytes already in R's buffer are written from it. A longer run on a
// random-access input is then written without the buffer: to a
// RangeWriter through RangeSource.SendRange when each is nil, else read
// into Send's own buffer, checked and written from it; R then reads on
// from after it.
func (f *FileSeq) Send(w io.Writer, n int64, each func([]byte)) (done int64, rerr, werr error) {
	direct := f.ra != nil && n-int64(f.R.Buffered()) >= directMin
	for done < n {
		if direct && f.R.Buffered() == 0 {
			k, rerr, werr := f.sendDirect(w, n-done, each)
			return done + k, rerr, werr
		}
		want := int(min(n-done, int64(f.R.Size())))
		if direct {
			want = min(want, f.R.Buffered()) // no read into the buffer
		}
		b, err := f.R.Peek(want)
		if len(b) > 0 {
			if each != nil {
				each(b)
			}
			m, err := w.Write(b)
			f.R.Discard(m)
			done += int64(m)
			if err != nil {
				return done, nil, err
			}
		}
		if err != nil && err != bufio.ErrBufferFull && done < n {
			if err == io.EOF {
				err = nil
			}
			return done, err, nil
		}
	}
	return done, nil, nil
}

// sendDirect writes n bytes from R's offset (its buffer empty) without
// R, then moves R past what of them it wrote.
func (f *FileSeq) sendDirect(w io.Writer, n int64, each func([]byte)) (done int64, rerr, werr error) {
	off := f.offset()
	if rw, ok := w.(RangeWriter); ok && f.src != nil && each == nil {
		// SendRange's read errors are IOErrors of the source; the
		// others are the writer's.
		var err error
		done, err = f.src.SendRange(rw, off, n)
		var ioe *IOError
		if errors.As(err, &ioe) && ioe.Stage == "source" {
			rerr = err
		} else {
			werr = err
		}
	} else {
		if f.buf == nil {
			f.buf = make([]byte, directSize)
		}
		for done < n && rerr == nil && werr == nil {
			p := f.buf[:min(int64(len(f.buf)), n-done)]
			k, err := f.ra.ReadAt(p, off+done)
			if k > 0 {
				if each != nil {
					each(p[:k])
				}
				var m int
				m, werr = w.Write(p[:k])
				done += int64(m)
			}
			if err == io.EOF || (err == nil && k == 0) {
				break
			}
			if k < len(p) {
				rerr = err
			}
		}
	}
	f.base = off + done
	*f.sec = *io.NewSectionReader(f.ra, f.base, f.size-f.base)
	f.R.Reset(f.sec)
	return done, rerr, werr
}
