package chm

import (
	"io"
	"sync/atomic"

	"github.com/unpack-dev/unpack/internal/codec/lzx"
)

// inWindow is how much compressed data is buffered ahead: several frames'
// worth (a frame's compressed data is at most a little over its 32 KiB).
const inWindow = 4 * lzx.FrameSize

// Decoding ahead: a job is a run of whole reset intervals of about
// groupTarget bytes, decoded on another goroutine; intervals longer than
// maxAheadInterval are decoded only where they are read.
var (
	groupTarget      int64 = 128 << 10
	maxAheadInterval int64 = 4 << 20
)

// section decodes content section 1: LZX frames of 32 KiB, the decoder
// reset at the start of every reset interval. A reset starts a new
// stream, as 7-Zip and chmlib read it: no match reaches before it, and
// E8 translation counts positions from it. With a usable reset table
// each interval starts at its compressed offset there, so intervals are
// independent: runs of them (groups) are decoded ahead on other
// goroutines while the caller reads and decodes its own share. Without
// one, the section is decoded front to back.
type section struct {
	src      *io.SectionReader
	clen     int64   // compressed length
	ulen     int64   // uncompressed length (the reset table's)
	interval int64   // uncompressed bytes per reset interval
	starts   []int64 // compressed offset of each interval; nil: decode continuously
	bits     int     // window size, as a power of two
	need     int64   // where the last file in the section ends: nothing past it is decoded ahead

	st   stream // the reading goroutine's own decoder
	out  []byte
	next int64 // uncompressed offset of st's next frame; -1: st is not placed

	upos   int64  // the offset the next Read gives
	buf    []byte // decoded bytes from offset bstart on
	bstart int64
	cur    *job // whose kit buf is in, if any

	group int64 // bytes per job, a whole number of intervals; 0: no decoding ahead
	ahead int   // jobs at most; the reading goroutine decodes every (ahead+1)th group
	pg    int64 // the group the jobs were last started after
	jobs  map[int64]*job
	kits  []*kit
}

// stream decodes the frames of a run of compressed bytes.
type stream struct {
	src    *io.SectionReader
	dec    *lzx.Decoder
	in     []byte
	ib, ie int   // buffered compressed data: in[ib:ie]
	cpos   int64 // the next compressed byte to read into in
	cend   int64 // where the run ends
}

// kit is what a job needs: a decoder and room for its output.
type kit struct {
	st   stream
	data []byte
}

// job is a group of intervals decoded, or being decoded, ahead.
type job struct {
	k      *kit
	n      int // bytes decoded in k.data before an error or the group's end
	done   chan struct{}
	cancel atomic.Bool
}

func newStream(src *io.SectionReader, bits int) (stream, error) {
	d, err := lzx.NewDecoder(bits, lzx.CAB)
	if err != nil {
		return stream{}, err
	}
	return stream{src: src, dec: d, in: make([]byte, inWindow)}, nil
}

// start places st at compressed offset cpos, a new stream until cend.
func (st *stream) start(cpos, cend int64) {
	st.dec.Reset()
	st.ib, st.ie, st.cpos, st.cend = 0, 0, cpos, cend
}

// fill tops the input buffer up.
func (st *stream) fill() error {
	if st.ib > 0 {
		st.ie = copy(st.in, st.in[st.ib:st.ie])
		st.ib = 0
	}
	for st.ie < len(st.in) && st.cpos < st.cend {
		n, err := st.src.ReadAt(st.in[st.ie:st.ie+int(min(int64(len(st.in)-st.ie), st.cend-st.cpos))], st.cpos)
		st.ie += n
		st.cpos += int64(n)
		if n == 0 {
			if err == nil || err == io.EOF {
				return ErrTruncated
			}
			return err
		}
	}
	return nil
}

// frame decodes the next frame into dst.
func (st *stream) frame(dst []byte) error {
	if st.ie-st.ib < inWindow/2 {
		if err := st.fill(); err != nil {
			return err
		}
	}
	used, err := st.dec.Decode(dst, st.in[st.ib:st.ie])
	if err != nil {
		return err
	}
	st.ib += used
	return nil
}

// frameAt decodes with st the frame at uncompressed offset at into dst,
// st placed on the frame before it (or at its interval's start).
func (s *section) frameAt(st *stream, at int64, dst []byte) error {
	if at%s.interval == 0 {
		if s.starts != nil {
			i := at / s.interval
			end := s.clen
			if i+1 < int64(len(s.starts)) {
				end = s.starts[i+1]
			}
			st.start(s.starts[i], end)
		} else {
			st.dec.Reset()
		}
	}
	return st.frame(dst)
}

// seek moves to uncompressed offset off.
func (s *section) seek(off int64) error {
	if off > s.ulen {
		return ErrBeyond
	}
	s.upos = off
	return nil
}

// Read gives the section's data from the current offset.
func (s *section) Read(p []byte) (int, error) {
	if s.upos >= s.ulen {
		return 0, io.EOF
	}
	if s.upos < s.bstart || s.upos >= s.bstart+int64(len(s.buf)) {
		if err := s.fill(s.upos); err != nil {
			return 0, err
		}
	}
	n := copy(p, s.buf[s.upos-s.bstart:])
	s.upos += int64(n)
	return n, nil
}

// fill makes buf hold the byte at off: from a job decoded ahead, else
// decoded here.
func (s *section) fill(off int64) error {
	s.release()
	if s.group > 0 {
		g := off / s.group
		if g != s.pg {
			s.prefetch(g)
		}
		if j := s.jobs[g]; j != nil {
			delete(s.jobs, g)
			<-j.done
			s.cur = j
			s.buf, s.bstart = j.k.data[:j.n], g*s.group
			if off < s.bstart+int64(j.n) {
				return nil
			}
			// The job failed before off: decode again here, for the error.
			s.release()
		}
	}
	return s.decode(off)
}

// decode decodes the frame holding off with the section's own stream.
func (s *section) decode(off int64) error {
	f := off - off%lzx.FrameSize
	if s.st.dec == nil {
		// Made when first needed: a listing reads no data.
		st, err := newStream(s.src, s.bits)
		if err != nil {
			return err
		}
		s.st, s.out = st, make([]byte, lzx.FrameSize)
	}
	if s.next < 0 || s.next > f || (s.starts != nil && s.next/s.interval != f/s.interval) {
		// Place st at the start of f's interval, or of the section.
		s.next = 0
		if s.starts != nil {
			s.next = f - f%s.interval
		} else {
			s.st.start(0, s.clen)
		}
	}
	for s.next <= f {
		n := int(min(lzx.FrameSize, s.ulen-s.next))
		if err := s.frameAt(&s.st, s.next, s.out[:n]); err != nil {
			s.next = -1
			return err
		}
		s.buf, s.bstart = s.out[:n], s.next
		s.next += int64(n)
	}
	return nil
}

// release gives the kit of the job buf is from back.
func (s *section) release() {
	if s.cur != nil {
		s.kits = append(s.kits, s.cur.k)
		s.cur = nil
		s.buf = nil
	}
}

// prefetch starts decoding the groups after g that are not the reading
// goroutine's own (every (ahead+1)th group, decoded where it is read, so
// that it works beside the jobs rather than waits for them), up to ahead
// of them and not past the last file, and stops the jobs before g or
// further ahead.
func (s *section) prefetch(g int64) {
	s.pg = g
	last, n := g, 0
	for n < s.ahead {
		if last++; !s.own(last) {
			n++
		}
	}
	for i, j := range s.jobs {
		if i < g || i > last {
			s.drop(i, j)
		}
	}
	if s.jobs == nil {
		s.jobs = map[int64]*job{}
	}
	for i := g + 1; i <= last && i*s.group < s.need; i++ {
		if s.own(i) || s.jobs[i] != nil {
			continue
		}
		k, err := s.kit()
		if err != nil {
			return // decoded here when read, where the error shows
		}
		j := &job{k: k, done: make(chan struct{})}
		s.jobs[i] = j
		go s.run(j, i*s.group, min(s.ulen, (i+1)*s.group))
	}
}

// own reports whether group i is decoded by the reading goroutine.
func (s *section) own(i int64) bool { return i%int64(s.ahead+1) == 0 }

// drop stops job j of group i and takes its kit back.
func (s *section) drop(i int64, j *job) {
	delete(s.jobs, i)
	j.cancel.Store(true)
	<-j.done
	s.kits = append(s.kits, j.k)
}

// kit returns a kit for a job.
func (s *section) kit() (*kit, error) {
	if n := len(s.kits); n > 0 {
		k := s.kits[n-1]
		s.kits = s.kits[:n-1]
		return k, nil
	}
	st, err := newStream(s.src, s.bits)
	if err != nil {
		return nil, err
	}
	return &kit{st: st, data: make([]byte, s.group)}, nil
}

// run decodes the group of bytes from..to into j's kit.
func (s *section) run(j *job, from, to int64) {
	for at := from; at < to && !j.cancel.Load(); at += lzx.FrameSize {
		n := int(min(lzx.FrameSize, to-at))
		if err := s.frameAt(&j.k.st, at, j.k.data[at-from:][:n]); err != nil {
			break
		}
		j.n += n
	}
	close(j.done)
}

// close stops the jobs.
func (s *section) close() {
	for i, j := range s.jobs {
		s.drop(i, j)
	}
}
