package lzop

import (
	"runtime"

	"github.com/unpack-dev/unpack/internal/hugemem"
)

// serialBlocks is how many blocks of a stream are decoded on the caller's
// goroutine before the parallel decode starts: a small file does not pay
// for its start.
const serialBlocks = 4

// job is one block decoded in the background: its compressed data in, its
// verified output out (a stored block's data is read into out), both in
// buf.
type job struct {
	h       blockHead
	buf     []byte
	mem     *slab // buf's memory when cut from a slab: kept reachable by the job
	in, out []byte
	cost    int64
	err     error
	done    chan struct{} // receives once when the block is decoded
}

// parallel decodes blocks on several goroutines, at most threads at a
// time, while the caller's goroutine reads the blocks ahead (at most
// 2*threads in flight, within the memory limit) and hands out their
// output in order. An input error is returned after the output of every
// block read before it.
//
// The jobs' buffers are cut from one slab, sized for the first block
// decoded in parallel, on huge pages: new memory touched once per job,
// where 4 KiB page faults cost more than the decoding.
type parallel struct {
	threads  int
	sem      chan struct{}
	mem      *slab
	slab     []byte // the part of mem not cut yet
	inflight []*job // in stream order
	cur      *job   // handed out: z.out is its output
	next     *job   // its header read, waiting for memory
	free     []*job
	used     int64 // cost of the jobs in flight
	err      error // of the input, after the jobs in flight
}

// slab is the jobs' memory, mapped outside the Go heap (hugemem.Mapped),
// which the garbage collector would otherwise count towards its next
// cycle (a collection in a decode of tens of milliseconds). It is
// unmapped when the stream ends or fails, or at Close, once no block is
// in flight; a Reader dropped without either unmaps it once unreachable
// (the jobs, and the goroutines decoding them, keep it reachable).
type slab struct {
	b     []byte
	unmap func()
}

func newSlab(n int) *slab {
	s := new(slab)
	s.b, s.unmap = hugemem.Mapped(n)
	runtime.AddCleanup(s, func(unmap func()) { unmap() }, s.unmap)
	return s
}

func (p *parallel) init(threads int) {
	if p.threads != threads && threads > 1 {
		p.sem = make(chan struct{}, threads)
	}
	p.threads = threads
}

// max is how many blocks may be in flight at once.
func (p *parallel) max() int { return 2 * p.threads }

// get returns an idle job.
func (p *parallel) get() *job {
	if n := len(p.free); n > 0 {
		j := p.free[n-1]
		p.free = p.free[:n-1]
		return j
	}
	return &job{done: make(chan struct{}, 1)}
}

// buffers makes j.in and j.out the lengths its block needs: its buffer
// has room for both at the block's uncompressed size. The first time,
// the slab is made for as many blocks of that size as may be in flight.
func (p *parallel) buffers(j *job, limit int64) {
	n := 2 * j.h.dlen
	if cap(j.buf) < n {
		if p.mem == nil {
			count := p.max()
			if limit > 0 {
				count = max(1, min(count, int(limit/int64(n))))
			}
			p.mem = newSlab(count * n)
			p.slab = p.mem.b
		}
		if len(p.slab) >= n {
			j.buf, j.mem, p.slab = p.slab[:n:n], p.mem, p.slab[n:]
		} else {
			j.buf, j.mem = make([]byte, n), nil
		}
	}
	j.out = j.buf[:j.h.dlen]
	j.in = j.buf[j.h.dlen : j.h.dlen+j.h.clen]
}

// retire makes the job handed out idle: z.out no longer refers to it.
func (p *parallel) retire() {
	p.free = append(p.free, p.cur)
	p.cur = nil
}

// drain waits for the jobs in flight and makes every job idle, and
// forgets the input's error.
func (p *parallel) drain() {
	for _, j := range p.inflight {
		<-j.done
		p.free = append(p.free, j)
	}
	clear(p.inflight)
	p.inflight = p.inflight[:0]
	for _, j := range []*job{p.cur, p.next} {
		if j != nil {
			p.free = append(p.free, j)
		}
	}
	p.cur, p.next, p.used, p.err = nil, nil, 0, nil
}

// release drains p and unmaps its slab: the jobs cut from it lose their
// buffers.
func (p *parallel) release() {
	p.drain()
	if p.mem == nil {
		return
	}
	for _, j := range p.free {
		if j.mem != nil {
			j.buf, j.in, j.out, j.mem = nil, nil, nil, nil
		}
	}
	p.mem.unmap()
	p.mem, p.slab = nil, nil
}

// parallelBlock puts blocks in flight as far as there is room, then makes
// z.out the oldest one's output, waiting for it.
func (z *Reader) parallelBlock() error {
	p := &z.par
	for p.err == nil && len(p.inflight) < p.max() {
		j := p.next
		if j == nil {
			j = p.get()
			if err := z.readJob(j); err != nil {
				p.free = append(p.free, j)
				p.err = err
				break
			}
		}
		// One block always fits: its size was checked against the limit.
		if z.memLimit > 0 && len(p.inflight) > 0 && p.used+j.cost > z.memLimit {
			p.next = j
			break
		}
		p.next = nil
		p.buffers(j, z.memLimit)
		in := j.out
		if !j.h.stored() {
			in = j.in
		}
		if err := z.full(in); err != nil {
			p.free = append(p.free, j)
			p.err = j.h.fail(err)
			break
		}
		p.start(j, in)
	}
	if len(p.inflight) == 0 {
		err := p.err
		p.release()
		return err
	}
	j := p.inflight[0]
	<-j.done
	copy(p.inflight, p.inflight[1:])
	p.inflight[len(p.inflight)-1] = nil
	p.inflight = p.inflight[:len(p.inflight)-1]
	p.used -= j.cost
	p.cur = j
	if err := j.err; err != nil {
		p.release()
		return err
	}
	z.out = j.out
	return nil
}

// readJob reads the next block's header into j, going through the ends
// of members.
func (z *Reader) readJob(j *job) error {
	for {
		end, err := z.readHead(&j.h)
		if err != nil {
			return err
		}
		if !end {
			break
		}
		if err := z.nextMember(); err != nil {
			return err
		}
	}
	j.cost = 2 * int64(j.h.dlen) // its buffer (see buffers)
	return nil
}

// start puts j, its data read into in, in flight.
func (p *parallel) start(j *job, in []byte) {
	p.used += j.cost
	p.inflight = append(p.inflight, j)
	sem := p.sem
	go func() {
		sem <- struct{}{}
		j.err = j.h.check(in, j.out)
		<-sem
		j.done <- struct{}{}
	}()
}
