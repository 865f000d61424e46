package archive

import (
	"bufio"
	"errors"
	"io"
	"runtime"
	"sync"
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

	// Readers is how many goroutines may read a run of at least
	// parallelMin bytes whose bytes must be seen, each a share of its
	// chunks, while the caller's sees and writes them in order; 1 or less:
	// the caller's alone. NewFileSeq sets it from GOMAXPROCS, at most
	// maxReaders.
	Readers int
	bufs    [][]byte // the parallel reads' chunks, made on first use
}

// The parallel reads of a run: from parallelMin bytes on, by up to
// maxReaders goroutines, into two chunks of directSize bytes per reader.
const (
	parallelMin = 4 << 20
	maxReaders  = 4
)

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
		f.Readers = min(runtime.GOMAXPROCS(0), maxReaders)
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
// each, when not nil, sees every byte before w does. It returns how many
// bytes it wrote, fewer than n with nil errors when the input ends first,
// and the error that stopped it: rerr reading the input (as the source
// gave it), werr writing to w (as w gave it).
//
// Bytes already in R's buffer are written from it. A longer run on a
// random-access input is then written without the buffer: to a
// RangeWriter through RangeSource.SendRange when each is nil, else read
// into Send's own buffers, seen by each and written from them; R then
// reads on from after it. A run of parallelMin bytes or more is read by
// Readers goroutines at once (see readAhead): each is then called from
// them, on the run's chunks in any order and at the same time, so it must
// add up what it sees in a way that allows that (a sum, atomically). Each
// chunk is seen whole before w is given it; bytes that each saw may still
// not reach w when Send fails.
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
	} else if f.Readers > 1 && n >= parallelMin {
		done, rerr, werr = f.readAhead(w, off, n, each)
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

// readAhead writes the n bytes at off to w as sendDirect does through its
// buffer, but with Readers goroutines reading the chunks of directSize
// bytes (reader r the chunks r, r+Readers, …) ahead into 2·Readers
// buffers, each chunk given to each by its reader, while this goroutine
// writes them to w in order. The kernel's copies of the file's pages,
// most of such a run's cost, and each's work then run on several cores. It stops at the first short chunk (the
// end of the input, or rerr) or werr, and returns once no reader runs.
func (f *FileSeq) readAhead(w io.Writer, off, n int64, each func([]byte)) (done int64, rerr, werr error) {
	readers := int64(f.Readers)
	slots := 2 * readers
	if int64(len(f.bufs)) < slots {
		f.bufs = make([][]byte, slots)
		for i := range f.bufs {
			f.bufs[i] = make([]byte, directSize)
		}
	}
	type chunk struct {
		n   int
		err error
	}
	// A slot's token (free) is held by the reader of its next chunk until
	// that chunk is in ready, then by this goroutine until it is written:
	// each channel holds at most one value, and no send blocks.
	ready := make([]chan chunk, slots)
	free := make([]chan struct{}, slots)
	for i := range slots {
		ready[i] = make(chan chunk, 1)
		free[i] = make(chan struct{}, 1)
		free[i] <- struct{}{}
	}
	stop := make(chan struct{})
	chunks := (n + directSize - 1) / directSize
	size := func(j int64) int64 { return min(directSize, n-j*directSize) }
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := r; j < chunks; j += readers {
				s := j % slots
				select {
				case <-free[s]:
				case <-stop:
					return
				}
				k, err := f.ra.ReadAt(f.bufs[s][:size(j)], off+j*directSize)
				if each != nil && k > 0 {
					each(f.bufs[s][:k])
				}
				ready[s] <- chunk{k, err}
			}
		}()
	}
	for j := range chunks {
		s := j % slots
		c := <-ready[s]
		if c.n > 0 {
			p := f.bufs[s][:c.n]
			var m int
			m, werr = w.Write(p)
			done += int64(m)
			if werr != nil {
				break
			}
		}
		if int64(c.n) < size(j) {
			if c.err != io.EOF {
				rerr = c.err
			}
			break
		}
		free[s] <- struct{}{}
	}
	close(stop)
	wg.Wait()
	return done, rerr, werr
}
