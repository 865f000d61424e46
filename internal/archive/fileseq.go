package archive

import (
	"bufio"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/unpack-dev/unpack/internal/hugemem"
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
	chunks  []byte // the parallel reads' chunks, mapped on first use
	unmap   func() // gives chunks back
}

// The parallel reads of a run: from parallelMin bytes on, by up to
// maxReaders goroutines, in chunks of chunkSize bytes, into a ring of
// slotsPerReader slots for each reader. With two readers that is 3 MiB,
// mapped on two huge pages (hugemem.Mapped): two page faults, not one per
// 4 KiB; and large chunks, so few hand-offs between the goroutines.
const (
	parallelMin    = 4 << 20
	maxReaders     = 4
	chunkSize      = 512 << 10
	slotsPerReader = 3
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

// Close gives back the memory of the parallel reads, if any; the FileSeq
// may still be used (it maps them again when a run needs them).
func (f *FileSeq) Close() {
	if f.unmap != nil {
		f.unmap()
	}
	f.chunks, f.unmap = nil, nil
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
// chunk is seen whole before w is given it; when Send fails, each may
// have seen bytes that never reached w (the caller's check is moot then).
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
// buffer, but read by Readers goroutines at once: this one and Readers-1
// helpers each claim the next chunk not yet claimed, read it into its slot
// of a ring and give it to each, while this goroutine writes the chunks to
// w in order; when the chunk it is to write next is not read yet, it
// claims and reads one itself rather than wait. The kernel's copies of
// the file's pages, most of such a run's cost, and each's work then run on
// several cores, and no goroutine waits on another while a chunk is left
// to read and a slot free. It stops at the first short chunk (the end of
// the input, or rerr) or werr, and returns once no helper runs; each may
// have seen chunks past the one it stopped at.
func (f *FileSeq) readAhead(w io.Writer, off, n int64, each func([]byte)) (done int64, rerr, werr error) {
	readers := int64(f.Readers)
	const size = chunkSize
	ring := slotsPerReader * readers
	if need := int(size * ring); len(f.chunks) < need {
		f.Close()
		f.chunks, f.unmap = hugemem.Mapped(hugemem.RoundUp(need))
	}
	chunks := (n + size - 1) / size
	length := func(j int64) int64 { return min(size, n-j*size) }
	type slot struct {
		n     int
		err   error
		ready atomic.Bool // n and err are chunk's, its bytes read and seen
	}
	slots := make([]slot, ring)
	buf := func(j int64) []byte { return f.chunks[j%ring*size:][:length(j)] }
	var (
		next    atomic.Int64 // the next chunk to claim
		written atomic.Int64 // chunks written (or given up): their slots are free
		stopped atomic.Bool
		wake    = make(chan struct{}, 1)       // to this goroutine: a chunk is ready
		free    = make(chan struct{}, readers) // to the helpers: a slot is free
		stop    = make(chan struct{})
	)
	// claim returns the next chunk to read, false when there is none or
	// its slot is still taken (the chunk ring before it not yet written).
	claim := func() (int64, bool) {
		for {
			j := next.Load()
			if j >= chunks || j >= written.Load()+ring || stopped.Load() {
				return j, false
			}
			if next.CompareAndSwap(j, j+1) {
				return j, true
			}
		}
	}
	read := func(j int64) {
		p := buf(j)
		k, err := f.ra.ReadAt(p, off+j*size)
		if each != nil && k > 0 {
			each(p[:k])
		}
		s := &slots[j%ring]
		s.n, s.err = k, err
		s.ready.Store(true)
	}
	var wg sync.WaitGroup
	for range readers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := claim()
				if !ok {
					if j >= chunks || stopped.Load() {
						return
					}
					select {
					case <-free:
					case <-stop:
						return
					}
					continue
				}
				read(j)
				select {
				case wake <- struct{}{}:
				default: // a token is there already
				}
			}
		}()
	}
	for j := range chunks {
		s := &slots[j%ring]
		for !s.ready.Load() {
			if c, ok := claim(); ok {
				read(c)
			} else {
				<-wake
			}
		}
		if s.n > 0 {
			var m int
			m, werr = w.Write(buf(j)[:s.n])
			done += int64(m)
			if werr != nil {
				break
			}
		}
		if int64(s.n) < length(j) {
			if s.err != io.EOF {
				rerr = s.err
			}
			break
		}
		s.ready.Store(false)
		written.Store(j + 1)
		select {
		case free <- struct{}{}:
		default: // enough tokens for every helper
		}
	}
	stopped.Store(true)
	close(stop)
	wg.Wait()
	return done, rerr, werr
}
