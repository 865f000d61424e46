package archive

import (
	"errors"
	"hash"
	"io"
	"sync"
)

// An entry's data pass from a format's reader to a sink through stages:
// each is an io.Reader over the one before that also has WriteTo, so that
// a decoder able to write from its own buffers (an io.WriterTo) does so all
// the way to the sink, without a copy buffer in between, and each stage's
// writer forwards a sparse entry's holes (WriteHole) to the next. The
// stages are Meter (counting, limits), Hashed (a digest of the data) and
// Decoding (a decoder's errors given their category); Copy runs a chain.

// copySize is the buffer of a copy from a reader without WriteTo: large
// writes, while small enough to stay in the cache between the decoder's
// copy into it and the write out of it.
const copySize = 256 << 10

var copyPool = sync.Pool{New: func() any { b := make([]byte, copySize); return &b }}

// Copy writes r's data to w: through r's WriteTo when it has one, else
// through a pooled buffer (never through w's ReadFrom, which for an
// os.File falls back to a 32 KiB buffer for anything but another file).
func Copy(w io.Writer, r io.Reader) (int64, error) {
	if wt, ok := r.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	bp := copyPool.Get().(*[]byte)
	defer copyPool.Put(bp)
	return io.CopyBuffer(onlyWriter{w}, onlyReader{r}, *bp)
}

// onlyWriter and onlyReader hide ReadFrom and WriteTo from io.CopyBuffer.
type onlyWriter struct{ io.Writer }
type onlyReader struct{ io.Reader }

// zeros is what a hole is written as to a writer that is no HoleWriter.
var zeros [32 << 10]byte

// WriteHole passes a run of n zero bytes to w: as one WriteHole call when
// w is a HoleWriter, else written out.
func WriteHole(w io.Writer, n int64) error {
	if hw, ok := w.(HoleWriter); ok {
		return hw.WriteHole(n)
	}
	for n > 0 {
		k := int(min(n, int64(len(zeros))))
		if _, err := w.Write(zeros[:k]); err != nil {
			return err
		}
		n -= int64(k)
	}
	return nil
}

// Meter is the stage that tells Fn the size of every chunk of data
// passing: after it was read (Read), before it is written on (WriteTo, so
// that data past a limit is never written). An error of Fn ends the
// stream with that error. Holes are counted like data.
type Meter struct {
	R  io.Reader
	Fn func(n int64) error
	w  meterWriter // WriteTo's, in the Meter so that an entry costs no allocation
}

func (m *Meter) Read(p []byte) (int, error) {
	n, err := m.R.Read(p)
	if n > 0 {
		if ferr := m.Fn(int64(n)); ferr != nil {
			return n, ferr
		}
	}
	return n, err
}

// WriteTo writes the data to w through R's WriteTo when it has one.
func (m *Meter) WriteTo(w io.Writer) (int64, error) {
	m.w = meterWriter{w: w, fn: m.Fn}
	n, err := Copy(&m.w, m.R)
	m.w = meterWriter{}
	return n, err
}

type meterWriter struct {
	w  io.Writer
	fn func(n int64) error
}

func (mw *meterWriter) Write(p []byte) (int, error) {
	if err := mw.fn(int64(len(p))); err != nil {
		return 0, err
	}
	return mw.w.Write(p)
}

func (mw *meterWriter) WriteHole(n int64) error {
	if err := mw.fn(n); err != nil {
		return err
	}
	return WriteHole(mw.w, n)
}

// Hashed is the stage that hashes the data passing (holes as the zeros
// they stand for) and, once R has ended without an error, gives Done the
// digest.
type Hashed struct {
	R    io.Reader
	H    hash.Hash
	Done func(sum []byte)
}

func (h *Hashed) Read(p []byte) (int, error) {
	n, err := h.R.Read(p)
	h.H.Write(p[:n])
	if err == io.EOF {
		h.Done(h.H.Sum(nil))
	}
	return n, err
}

// WriteTo writes the data to w through R's WriteTo when it has one.
func (h *Hashed) WriteTo(w io.Writer) (int64, error) {
	n, err := Copy(&hashWriter{w: w, h: h.H}, h.R)
	if err == nil {
		h.Done(h.H.Sum(nil))
	}
	return n, err
}

type hashWriter struct {
	w io.Writer
	h hash.Hash
}

func (hw *hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	return n, err
}

func (hw *hashWriter) WriteHole(n int64) error {
	for k := n; k > 0; {
		c := min(k, int64(len(zeros)))
		hw.h.Write(zeros[:c])
		k -= c
	}
	return WriteHole(hw.w, n)
}

// Decoding is the stage that gives the errors of a decoder R their
// category with Decoded(Format, …). An error of the writer WriteTo writes
// to (a full disk, a closed pipe, a limit of a stage after this one) passes
// unchanged: it is not the decoder's.
type Decoding struct {
	R      io.Reader
	Format string
	// Ended, when set, is called once R has ended without an error.
	Ended func()
	w     sinkWriter
}

func (d *Decoding) Read(p []byte) (int, error) {
	n, err := d.R.Read(p)
	if err == io.EOF {
		d.ended()
	} else if err != nil {
		err = Decoded(d.Format, err)
	}
	return n, err
}

func (d *Decoding) ended() {
	if d.Ended != nil {
		d.Ended()
		d.Ended = nil
	}
}

// WriteTo writes the decoder's output to w through its own WriteTo when it
// has one.
func (d *Decoding) WriteTo(w io.Writer) (int64, error) {
	if _, ok := d.R.(io.WriterTo); !ok {
		return Copy(w, onlyReader{d})
	}
	d.w = sinkWriter{w: w}
	n, err := Copy(&d.w, d.R)
	if err != nil && (d.w.err == nil || !errors.Is(err, d.w.err)) {
		err = Decoded(d.Format, err)
	}
	if err == nil {
		d.ended()
	}
	d.w = sinkWriter{}
	return n, err
}

// sinkWriter remembers the error of the writer it wraps, so that it is not
// taken for a decoder error.
type sinkWriter struct {
	w   io.Writer
	err error
}

func (s *sinkWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

func (s *sinkWriter) WriteHole(n int64) error {
	err := WriteHole(s.w, n)
	if err != nil {
		s.err = err
	}
	return err
}
