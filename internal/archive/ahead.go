package archive

import "io"

// Ahead reads a decoder on a goroutine of its own into a bounded ring of
// buffers, ahead of its reader: the decoding of a tar stream and the
// creation of its files then run on two cores, as GNU tar's do with the
// decompressor in a second process. Until Start, Read reads the decoder on
// the caller's goroutine (for the peek that tells a tar from a single
// file).
//
// The decoder's errors come after the bytes it returned before them, in
// order, as from the decoder itself. Verified (for a decoder that reports
// its checked coverage) is the decoder's figure as of the buffer being
// read: a count of decoded bytes whose checks passed, which the decoder
// reported before handing over those bytes. Close stops the goroutine and
// waits for it to leave the decoder (at most the decoder's Read in
// progress), so the decoder may be closed afterwards.
type Ahead struct {
	src io.Reader
	cov interface{ Verified() int64 }

	full chan aheadChunk
	free chan []byte
	stop chan struct{}
	done chan struct{}

	size, count int
	started     bool
	closed      bool

	cur      aheadChunk // being read; b advances
	verified int64      // of the chunk last taken
	err      error      // sticky, once every byte before it was read
}

type aheadChunk struct {
	b        []byte
	buf      []byte // the whole buffer, for the ring
	verified int64
	err      error
}

// NewAhead returns an Ahead of src with count buffers of size bytes.
// src may have a Verified() int64 method (see Verified).
func NewAhead(src io.Reader, size, count int) *Ahead {
	a := &Ahead{src: src, size: size, count: max(count, 2)}
	a.cov, _ = src.(interface{ Verified() int64 })
	return a
}

// Start starts the reading goroutine; the reads before it were on the
// caller's.
func (a *Ahead) Start() {
	if a.started || a.closed || a.err != nil {
		return
	}
	a.started = true
	a.full = make(chan aheadChunk, a.count)
	a.free = make(chan []byte, a.count)
	a.stop = make(chan struct{})
	a.done = make(chan struct{})
	for range a.count {
		a.free <- make([]byte, a.size)
	}
	if a.cov != nil {
		a.verified = a.cov.Verified()
	}
	go a.run()
}

// run fills free buffers from src and hands them over in order until src
// fails or ends (io.EOF included), or Close.
func (a *Ahead) run() {
	defer close(a.done)
	for {
		var buf []byte
		select {
		case buf = <-a.free:
		case <-a.stop:
			return
		}
		n, err := 0, error(nil)
		for n < len(buf) && err == nil {
			var k int
			k, err = a.src.Read(buf[n:])
			n += k
		}
		c := aheadChunk{b: buf[:n], buf: buf, err: err}
		if a.cov != nil {
			c.verified = a.cov.Verified()
		}
		select {
		case a.full <- c:
		case <-a.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the decoded bytes in order, then the decoder's error.
func (a *Ahead) Read(p []byte) (int, error) {
	if !a.started {
		if a.err != nil {
			return 0, a.err
		}
		n, err := a.src.Read(p)
		if err != nil {
			a.err = err
		}
		if a.cov != nil {
			a.verified = a.cov.Verified()
		}
		return n, err
	}
	for len(a.cur.b) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		if a.cur.buf != nil {
			a.free <- a.cur.buf // never blocks: the ring holds count buffers
			a.cur.buf = nil
		}
		c := <-a.full
		a.cur = c
		a.verified = c.verified
		if len(c.b) == 0 {
			a.err = c.err
		}
	}
	n := copy(p, a.cur.b)
	a.cur.b = a.cur.b[n:]
	if len(a.cur.b) == 0 && a.cur.err != nil {
		a.err = a.cur.err // returned by the next Read, alone
	}
	return n, nil
}

// Verified is the decoder's count of checked bytes as of the buffer being
// read (0 when the decoder reports none).
func (a *Ahead) Verified() int64 { return a.verified }

// Close stops the goroutine and waits for it to leave the decoder. It
// does not close the decoder.
func (a *Ahead) Close() error {
	if a.closed {
		return nil
	}
	a.closed = true
	if a.started {
		close(a.stop)
		<-a.done
	}
	return nil
}

// WriteTo writes the rest of the decoded bytes to w: through the
// decoder's own WriteTo when not started (and it has one), else from the
// ring.
func (a *Ahead) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := a.src.(io.WriterTo); ok && !a.started && a.err == nil {
		n, err := wt.WriteTo(w)
		if err != nil {
			a.err = err
		} else {
			a.err = io.EOF
		}
		if a.cov != nil {
			a.verified = a.cov.Verified()
		}
		return n, err
	}
	if !a.started {
		return Copy(w, onlyReader{a})
	}
	var total int64
	for {
		if len(a.cur.b) == 0 {
			if _, err := a.Read(nil); err != nil {
				if err == io.EOF {
					return total, nil
				}
				return total, err
			}
			continue
		}
		n, err := w.Write(a.cur.b)
		total += int64(n)
		a.cur.b = a.cur.b[n:]
		if err != nil {
			return total, err
		}
		if len(a.cur.b) == 0 && a.cur.err != nil {
			a.err = a.cur.err
		}
	}
}
