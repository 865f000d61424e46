package xz

import (
	"bytes"
	"errors"
	"io"
	"math"

	"github.com/unpack-dev/unpack/internal/codec/lzma"
	"github.com/unpack-dev/unpack/internal/hugemem"
)

// jobOverhead is what a block in flight costs beyond its buffers and
// dictionary (decoder state, filter buffers).
const jobOverhead = 64 << 10

// job is one block decoded in the background: its compressed data (with
// padding and check) in, its verified output out.
type job struct {
	hdr    blockHeader
	index  int64
	pad    int
	raw    []byte // compressed data, block padding, check
	rawLen int    // the length raw must reach
	out    []byte // the decoded block; its capacity is kept for the next block
	cost   int64
	err    error
	done   chan struct{} // receives once when the job is finished
	pos    int           // bytes of out delivered
	chk    checker
	sem    chan struct{}      // the parallel's, fixed at start
	decs   chan *lzma2Decoder // the parallel's, fixed at start
	br     bytes.Reader
	convs  [maxFilters - 1]converters
	one    [1]byte
}

// parallel decodes blocks whose headers carry both sizes on several
// goroutines, delivering their output in order. At most threads blocks are
// decoded at once and threads+1 are in flight, within the memory limit.
type parallel struct {
	threads  int
	limit    int64
	inflight []*job // in file order
	waited   bool   // inflight[0] is done
	used     int64  // cost of the jobs in flight
	free     []*job
	sem      chan struct{}
	decs     chan *lzma2Decoder
}

func (p *parallel) init(threads int, limit int64) {
	if p.threads != threads {
		p.sem = make(chan struct{}, threads)
		p.decs = make(chan *lzma2Decoder, threads)
	}
	p.threads, p.limit = threads, limit
}

// busy reports whether blocks are in flight.
func (p *parallel) busy() bool { return len(p.inflight) > 0 }

// room reports whether another block may be put in flight.
func (p *parallel) room() bool { return len(p.inflight) <= p.threads }

// cost is the memory a block in flight needs, or -1 when it is beyond the
// limit on its own or its buffers' sizes do not fit an int (on a 32-bit
// system such a block is streamed).
func (p *parallel) cost(h *blockHeader) int64 {
	d := dictFor(h)
	if h.compSize > p.limit || h.uncompSize > p.limit || d > p.limit {
		return -1
	}
	c := h.compSize + h.uncompSize + d + jobOverhead
	if c > p.limit || c > math.MaxInt {
		return -1
	}
	return c
}

// take reports whether the block h should be decoded in parallel now.
// Blocks without both sizes, or too big for the limit, are streamed; a
// block that fits only when fewer blocks are in flight waits.
func (p *parallel) take(h *blockHeader) bool {
	if p.threads < 2 || h.compSize < 0 || h.uncompSize < 0 {
		return false
	}
	c := p.cost(h)
	return c >= 0 && p.used+c <= p.limit
}

// job returns a job for block h with buffers sized for it.
func (p *parallel) job(h *blockHeader, index int64, checkID byte, checkLen, pad int) *job {
	var j *job
	if n := len(p.free); n > 0 {
		j, p.free = p.free[n-1], p.free[:n-1]
	} else {
		j = &job{done: make(chan struct{}, 1)}
	}
	j.hdr, j.index, j.pad, j.err, j.pos = *h, index, pad, nil, 0
	j.cost = p.cost(h)
	j.rawLen = int(h.compSize) + pad + checkLen
	j.raw = keep(j.raw, j.rawLen)
	j.out = keep(j.out, int(h.uncompSize))
	j.chk.setID(checkID)
	return j
}

// keep empties a reused job's buffer for a block needing n bytes, and lets
// it go when it is much larger than that, so a big block earlier in the
// file does not pin its buffers (beyond the memory limit's account) while
// small ones follow.
func keep(b []byte, n int) []byte {
	if cap(b) > 2*n+growStep {
		return nil
	}
	return b[:0]
}

// growStep is the first allocation for a block's compressed data (enough
// for the blocks xz -T writes, so they are read without a copy); beyond it
// the buffer grows as the data arrives rather than by what a header
// declares, so a false size costs memory only if the data is there. The
// output buffer is allocated at its declared size (charged to the memory
// limit before the block is taken) and decoded into in place. The cost
// charged still includes a dictionary, which only the fallback for LZMA2
// data resetting its dictionary mid-block allocates. Both buffers start on
// a huge-page boundary (hugemem.Aligned): each is new memory touched once
// from end to end, where 4 KiB page faults cost more than the decoding.
const growStep = 8 << 20

// extend makes room after len(b) for more of the n bytes b will hold,
// keeping its contents.
func extend(b []byte, n int) []byte {
	if cap(b) >= n {
		return b
	}
	c := min(n, max(2*cap(b), growStep))
	nb := hugemem.Aligned(c)[:len(b)]
	copy(nb, b)
	return nb
}

// fill reads the block's compressed data, padding and check from in.
func (j *job) fill(in *input) error {
	for len(j.raw) < j.rawLen {
		j.raw = extend(j.raw, j.rawLen)
		n, err := in.Read(j.raw[len(j.raw):min(cap(j.raw), j.rawLen)])
		j.raw = j.raw[:len(j.raw)+n]
		if err != nil {
			if err == io.EOF {
				return errTruncated
			}
			return err
		}
	}
	return nil
}

// release puts back a job that was not started.
func (p *parallel) release(j *job) { p.free = append(p.free, j) }

// start puts j in flight.
func (p *parallel) start(j *job) {
	p.used += j.cost
	p.inflight = append(p.inflight, j)
	j.sem, j.decs = p.sem, p.decs
	go j.run()
}

// run decodes j on its own goroutine, at most threads at a time, with a
// decoder (and its dictionary) from the pool.
func (j *job) run() {
	j.sem <- struct{}{}
	var d *lzma2Decoder
	select {
	case d = <-j.decs:
	default:
		d = new(lzma2Decoder)
	}
	j.err = j.decode(d)
	select {
	case j.decs <- d:
	default:
	}
	<-j.sem
	j.done <- struct{}{}
}

// decode decodes, filters and verifies the block.
func (j *job) decode(d *lzma2Decoder) error {
	h := &j.hdr
	want := int(h.uncompSize)
	if cap(j.out) < want {
		// The declared size, already charged to the memory limit: the
		// output is decoded in place, with no growing and no copy.
		j.out = hugemem.Aligned(want)
	}
	j.br.Reset(j.raw[:h.compSize])
	n, err := d.decodeAll(j.out[:cap(j.out)], &j.br, dictFor(h))
	switch {
	case errors.Is(err, lzma.ErrNotFlat):
		if err := j.decodeStream(d); err != nil {
			return err
		}
	case errors.Is(err, lzma.ErrOutputFull):
		return ErrBlockSize
	case err != nil:
		return categorize(err, j.index)
	case n != want || j.br.Len() != 0:
		return ErrBlockSize
	default:
		j.out = j.out[:n]
	}
	for i := h.nfilters - 2; i >= 0; i-- {
		j.convs[i].get(h.filters[i]).Convert(j.out)
	}
	tail := j.raw[h.compSize:]
	for _, c := range tail[:j.pad] {
		if c != 0 {
			return ErrPadding
		}
	}
	j.chk.reset()
	j.chk.write(j.out)
	return j.chk.verify(tail[j.pad:])
}

// decodeStream decodes the block through the decoder's own window, for
// LZMA2 data that resets its dictionary after its start.
func (j *job) decodeStream(d *lzma2Decoder) error {
	h := &j.hdr
	j.br.Reset(j.raw[:h.compSize])
	if err := d.reset(&j.br, dictFor(h)); err != nil {
		return categorize(err, j.index)
	}
	want := int(h.uncompSize)
	j.out = j.out[:want]
	if _, err := io.ReadFull(d, j.out); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return ErrBlockSize // the data ended before the declared size
		}
		return categorize(err, j.index)
	}
	// The LZMA2 data must end here, having used all the compressed bytes.
	for tries := 0; ; tries++ {
		n, err := d.Read(j.one[:])
		if n > 0 {
			return ErrBlockSize
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return categorize(err, j.index)
		}
		if tries > 100 {
			return categorize(io.ErrNoProgress, j.index)
		}
	}
	if j.br.Len() != 0 {
		return ErrBlockSize
	}
	return nil
}

// read delivers the output of the oldest block in flight, waiting for it.
func (p *parallel) read(b []byte) (int, error) {
	j := p.inflight[0]
	if !p.waited {
		<-j.done
		p.waited = true
	}
	if j.err != nil {
		return 0, j.err
	}
	n := copy(b, j.out[j.pos:])
	j.pos += n
	if j.pos == len(j.out) {
		p.retire(j)
	}
	return n, nil
}

// retire takes the oldest block, delivered, out of flight and keeps its
// job (and buffers) for another block.
func (p *parallel) retire(j *job) {
	copy(p.inflight, p.inflight[1:])
	p.inflight[len(p.inflight)-1] = nil
	p.inflight = p.inflight[:len(p.inflight)-1]
	p.used -= j.cost
	p.waited = false
	p.free = append(p.free, j)
}

// next returns the rest of the oldest block's output, waiting for it; the
// bytes stay valid until the next block is put in flight.
func (p *parallel) next() ([]byte, error) {
	j := p.inflight[0]
	if !p.waited {
		<-j.done
		p.waited = true
	}
	if j.err != nil {
		return nil, j.err
	}
	b := j.out[j.pos:]
	j.pos = len(j.out)
	p.retire(j)
	return b, nil
}

// drain abandons the blocks in flight; their goroutines finish on their
// own and the jobs are not reused.
func (p *parallel) drain() {
	clear(p.inflight)
	p.inflight = p.inflight[:0]
	p.used, p.waited = 0, false
}
