package gzip

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/unpack-dev/unpack/internal/codec/inflate"
	"github.com/unpack-dev/unpack/internal/hugemem"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Parallel decoding of one member, the approach of rapidgzip (Knespel and
// Brunst, HPDC 2023). The deflate data is cut into pieces of partSize
// compressed bytes. For each, a worker looks for a block start in it
// (inflate's FindBlock), decodes from there without the 32 KiB window
// that precedes it (back-references into it become markers, see
// inflate.MarkerDecoder) and stops at the first block boundary past the
// piece's end. The caller's goroutine chains the pieces: a piece's output
// is used only when it starts exactly where the output before it ended;
// then the window it needed is known, the last 32 KiB of its output are
// resolved at once (the next piece's window), and a worker resolves the
// rest and computes its CRC-32, which the CRCs before it are combined
// with. Anywhere the chain breaks (no block found, a false start, a
// worker stopped short), the caller decodes sequentially from where the
// output ended to where a piece's output can take over again, so that
// correctness never depends on a guess.
//
// A piece whose worker ends while the chain has not reached it tells the
// next piece, which may be decoding, where its output must start and the
// window there (job.hint): that piece goes on in plain bytes and resolves
// its markers itself.
//
// The caller's goroutine is one of the Threads: Threads-1 goroutines are
// started, and the caller decodes too, with the known window, as it gives
// the output out (stream), straight into the caller's buffer: no markers,
// no piece buffer written and read back. It decodes a piece no worker has
// started when the chain reaches it (steal), and when the chain reaches a
// piece still decoding (job.reached), the worker stops at its next block
// boundary and hands the piece over: the caller uses the output so far
// and decodes the rest. No goroutine waits for another: with two threads,
// one core decodes ahead with markers while the other decodes the piece
// before with the window, and where they meet is set by their speeds.
// While it waits for a piece's markers to be resolved, the caller resolves
// those no worker has taken (help).
//
// A member decodes sequentially for its first switchAt compressed bytes:
// small members never start a worker, and the window is known when
// decoding goes parallel.

// Sizes, variables so that tests can make every path happen on small
// inputs.
var (
	partSize = 1 << 20          // compressed bytes per piece
	overrun  = partSize / 4     // bytes past its piece a worker may decode
	switchAt = int64(256 << 10) // compressed bytes decoded sequentially first
	softCap  = 12 << 20         // a worker stops at the first block boundary past this much output
	hardCap  = 16 << 20         // and cuts its output at the last boundary within this much
)

// hints hands the chain's window to the piece decoding (see job.hint)
// and has its worker hand it over (job.reached); tests turn it off to
// have pieces decoded with markers whatever the timing.
var hints = true

// steal lets the reading goroutine decode a piece no worker has started
// when it reaches it (and has a worker that starts one the reading
// goroutine has reached leave it); tests turn it off to have the workers' pieces
// used whatever the timing.
var steal = true

// maxAttempts bounds the candidate block starts a worker decodes from in
// one piece.
const maxAttempts = 8

// unbounded is a stop position past any input.
const unbounded = int64(1) << 62

// MemoryUse estimates the most memory a Reader with the given thread
// count holds while decoding a member in parallel: the slab newParallel
// makes (per thread its decoders; per piece in flight its input and
// windows, and a 16-bit buffer), and per piece the output buffers that
// replace its part of the slab when its output outgrows them (up to
// hardCap).
func MemoryUse(threads int) int64 {
	if threads <= 1 {
		return 0
	}
	_, slab := slabLayout(threads)
	return int64(slab) + int64(slab)/8 + int64(jobsFor(threads))*3*int64(hardCap)
}

// pieceMem is the slab's part for a piece's input (partSize+overrun
// bytes), the window before it and a hint's.
func pieceMem() int {
	return align(partSize+overrun) + 2*inflate.MarkerWindow
}

// slabLayout is where the 16-bit buffers start in the slab of a decode
// with the given thread count, and its size: the workers' decoders, the
// pieces' parts (pieceMem) packed after them, then from a huge page on
// one 16-bit buffer of outSymbols() per piece in flight.
func slabLayout(threads int) (outs, size int) {
	outs = hugemem.RoundUp(align(threads*workerMem) + jobsFor(threads)*pieceMem())
	return outs, outs + jobsFor(threads)*2*outSymbols()
}

// outSymbols is the length of a piece's 16-bit buffer: four times its
// input, up to hardCap. It holds the marker decoder's ring at the default
// sizes (see newParallel), and the output decoded with a known window
// goes on in its bytes past the marks (see decodePlain).
func outSymbols() int {
	return min(4*(partSize+overrun), hardCap)
}

// jobsFor is how many pieces are in flight with the given thread count:
// one per thread (the reading goroutine's is the one being read out or
// decoded on it), one more waiting, and enough to cover the read-ahead of
// the sequential decoder that bridges a break (40 KiB). More pieces only
// add memory, each written cold.
func jobsFor(threads int) int {
	return threads + 1 + (40<<10)/partSize
}

// job is one piece: its input, and what a worker made of it.
type job struct {
	a    int64  // the member data's byte offset of buf[0]
	buf  []byte // the piece's own bytes, then up to overrun more
	own  int    // bytes of buf that are the piece's own
	last bool   // the input ends with this piece
	from int64  // bit position where the search for a block starts

	done    chan struct{} // a worker finished a task
	pending bool          // a task was handed out and its done not received

	// hint, once set, tells the worker where the piece's output must
	// start and the window there: the chain reached the piece while it
	// decodes. The worker then goes on with the known window, or stops if
	// its output cannot be used.
	hint    atomic.Pointer[hint]
	hintBuf hint
	claim   atomic.Bool         // hintBuf is being written
	next    atomic.Pointer[job] // the piece after, for a worker to hint
	// reached is set when the chain reaches the piece while a worker may
	// decode it: the reading goroutine waits for it, so the worker stops
	// at the next block boundary (or does not start) and hands the rest
	// of the piece over (handed).
	reached atomic.Bool
	handed  bool

	// Decoding (bit positions are the member data's).
	start  int64   // where the output starts: a block boundary found; -1: none
	stored bool    // the block at start is a stored block (see matches)
	end    int64   // block boundary where the output ends
	final  bool    // the output ends with the final block
	ob     *outBuf // the buffers below, a worker's from its decode until the output is read out
	mbuf   []uint16
	marks  []uint16 // the output from start, markers unresolved; then resolved in place (see resolveMarks)
	data   []byte   // data[:nplain] the output after marks: mbuf's memory past them (pastMarks), or spill
	spill  []byte   // where an output after marks that outgrows mbuf goes (growData)
	nplain int      // bytes decoded with a known window after marks
	crcP   uint32   // CRC-32 of those

	// Resolving and reading out. The marks are resolved in two parts,
	// marks[:split] and marks[split:], by two goroutines at once (see
	// resolvedParts).
	win       []byte        // the window before the piece
	rwin      []byte        // the window the resolving tasks read: win, or the hint's
	split     int           // marks[:split] is the first part
	crcLo     uint32        // CRC-32 of marks[:split] resolved
	crcR      uint32        // CRC-32 of marks[split:] resolved
	resolved  bool          // marks[split:] are resolved, and marks[:split] handed out (see resolvedParts)
	lo        chan struct{} // a task resolved marks[:split]
	loPushed  bool          // the worker handed out marks[:split] before done (read after done)
	loPending bool          // a task resolving marks[:split] was handed out and lo not received
	inOutput  bool          // in the output queue and not all read out
	counted   bool          // its CRC and size are the member's
	rd        int           // the output's first rd bytes (marks, then data) are read out
}

// marked is the memory of j's marks as bytes (twice as many).
func (j *job) marked() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(j.marks))), 2*len(j.marks))
}

// resolvedParts is the output of j's marks once resolved, in their own
// memory: marks[:split] go to bytes [0, split) and marks[split:] to bytes
// [2*split, split+len(marks)), so that byte k of either part is written
// after the symbol whose memory holds it is read (see resolveRange), and
// neither part writes the symbols of the other.
func (j *job) resolvedParts() (lo, hi []byte) {
	b := j.marked()
	return b[:j.split], b[2*j.split : j.split+len(j.marks)]
}

// pastMarks is the memory of j's 16-bit buffer past its marks, as bytes
// (from a cache line on): where decodePlain writes the output after the
// marks, which their resolution in place does not reach, so that a
// piece's output is one stretch of memory. It is empty when the marks
// are not in the buffer.
func (j *job) pastMarks() []byte {
	all := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(j.mbuf))), 2*cap(j.mbuf))
	d := uintptr(unsafe.Pointer(unsafe.SliceData(j.marks))) - uintptr(unsafe.Pointer(unsafe.SliceData(all)))
	if d > uintptr(len(all)) || 2*len(j.marks) > len(all)-int(d) {
		return nil
	}
	return all[min(align(int(d)+2*len(j.marks)), len(all)):]
}

// plain is j's output after its marks.
func (j *job) plain() []byte {
	if j.nplain == 0 {
		return nil
	}
	return j.data[:j.nplain]
}

// outBuf is a piece's output buffers while it holds them: the slab's
// 16-bit buffers are lent to pieces as workers start decoding them and
// given back once their output is read out, so that the pieces in flight
// touch only as many as are decoding or waiting to be read out at once
// (two of them with two threads), the one freed last first.
type outBuf struct {
	mbuf  []uint16
	spill []byte
}

// hint is where a piece's output must start, and the window there.
type hint struct {
	pos int64
	win *[inflate.MarkerWindow]byte
}

// setHint gives j its hint, unless it has one: pos and the window there,
// which fill writes.
func (j *job) setHint(pos int64, fill func(win []byte)) {
	if !hints || !j.claim.CompareAndSwap(false, true) {
		return
	}
	j.hintBuf.pos = pos
	fill(j.hintBuf.win[:])
	j.hint.Store(&j.hintBuf)
}

// windowAfter writes to win (32 KiB) the window after an output of marks
// (resolved by before, the window before it) then plain.
func windowAfter(win, before []byte, marks []uint16, plain []byte) {
	need := len(win)
	k := min(len(plain), need)
	copy(win[need-k:], plain[len(plain)-k:])
	need -= k
	k = min(len(marks), need)
	for i, v := range marks[len(marks)-k:] {
		if v >= inflate.Marker {
			v = uint16(before[v-inflate.Marker])
		}
		win[need-k+i] = byte(v)
	}
	need -= k
	copy(win[:need], before[len(before)-need:])
}

// windowAfterBytes is windowAfter for marks already resolved (marked).
func windowAfterBytes(win, before, marked, plain []byte) {
	need := len(win)
	k := min(len(plain), need)
	copy(win[need-k:], plain[len(plain)-k:])
	need -= k
	k = min(len(marked), need)
	copy(win[need-k:], marked[len(marked)-k:])
	need -= k
	copy(win[:need], before[len(before)-need:])
}

// ownEnd is the bit position of the end of the piece's own bytes.
func (j *job) ownEnd() int64 { return (j.a + int64(j.own)) * 8 }

// target is the position a sequential decode must reach for j's output
// to take over: its start, or for a stored block the earliest position
// its header may start at (see matches).
func (j *job) target() int64 {
	if j.stored {
		return j.start - 7
	}
	return j.start
}

// worker is a goroutine's decoders.
type worker struct {
	stop *atomic.Bool // the parallel decode is ending
	md   *inflate.MarkerDecoder
	inf  *inflate.Inflater
	src  sliceReader
	lut  *[1 << 16]byte // resolves a 16-bit symbol: bytes, then the window
	win  *[inflate.MarkerWindow]byte
}

// workerMem is the memory of a worker's decoders, window and table.
var workerMem = align(inflate.InflaterMem) + 1<<16 + inflate.MarkerWindow

// align rounds n up to a multiple of 64 (a cache line; what the decoders'
// memory needs is 8).
func align(n int) int { return (n + 63) &^ 63 }

// newWorker returns a worker whose decoders, window and table are in
// mem, workerMem bytes from an aligned start.
func newWorker(stop *atomic.Bool, mem []byte) *worker {
	w := &worker{stop: stop}
	// The marker decoder decodes into the pieces' buffers (see
	// decodeOnly).
	w.md = inflate.NewMarkerDecoder()
	w.inf = inflate.NewInflaterIn(nil, mem[:inflate.InflaterMem])
	mem = mem[align(inflate.InflaterMem):]
	w.lut = (*[1 << 16]byte)(mem)
	w.win = (*[inflate.MarkerWindow]byte)(mem[1<<16:])
	for i := range 256 {
		w.lut[i] = byte(i)
	}
	return w
}

// parallel decodes one member's deflate data in pieces.
type parallel struct {
	src     io.Reader // the member data after the point of the switch
	threads int

	jobs  []*job
	free  []*job
	queue []*job // dispatched pieces, in input order; vi indexes the next to chain
	vi    int
	outq  []*job // pieces whose output is to be read out, in order

	tasks tasks
	self  *worker // the reading goroutine's decoders (help)
	wg    sync.WaitGroup
	stop  atomic.Bool

	carry  []byte // read past the last piece dispatched: the next one's first bytes
	next   int64  // the member data's offset of the next piece
	eof    bool
	srcErr error

	pos    int64 // where the output chained so far ends: a block boundary
	final  bool  // the final block ended at pos
	win    []byte
	winBuf [2][inflate.MarkerWindow]byte
	crc    uint32
	size   uint32
	count  int64 // bytes given out

	// The sequential decode bridging a break (fb.active), from pos to the
	// first block boundary at or past fb.target.
	fb      *inflate.Inflater
	fbOn    bool
	fbBase  int64 // byte position of the decoder's first input byte
	fbTgt   int64
	walk    int   // the queue index of the piece the walker reads
	walkOff int64 // the member data offset the walker reads next

	mem   *slab // the pieces' and workers' memory; the workers keep it reachable
	stats *parStats
}

// slab is the memory of a parallel decode, mapped outside the Go heap
// (hugemem.Mapped): tens of MiB held for the whole member, which the
// garbage collector would otherwise count towards its next cycle. The
// Reader keeps it for the next member and unmaps it when the stream ends
// or is closed; a Reader dropped without either unmaps it once
// unreachable.
type slab struct {
	b     []byte
	unmap func()
}

// alloc replaces s's memory by n zeroed bytes.
func (s *slab) alloc(n int) {
	s.free()
	s.b, s.unmap = hugemem.Mapped(n)
	runtime.AddCleanup(s, func(unmap func()) { unmap() }, s.unmap)
}

// free unmaps s's memory, if any: no piece may use it any more.
func (s *slab) free() {
	if s.unmap != nil {
		s.unmap()
	}
	s.b, s.unmap = nil, nil
}

// parStats counts what parallel decodes did, for tests to see every path
// taken.
type parStats struct {
	members   int   // members decoded in parallel
	used      int   // pieces whose output was used
	bridges   int   // sequential decodes bridging a break
	marked    int64 // output decoded with markers
	slabs     int   // allocations of the decode's memory
	slabBytes int   // the last one's size
	helped    int   // tasks done by the goroutine reading the output
	streams   int   // pieces the goroutine reading the output decoded (the rest of) as it gave them out
	handed    int   // pieces whose worker stopped for the reading goroutine: with markers
	handedP   int   // and decoding plain bytes
	splits    int   // pieces whose markers were resolved in two parts
}

// tasks is the work the goroutines share: resolutions first, then pieces
// to decode in input order. A piece no goroutine has taken can be taken
// back (cancel).
type tasks struct {
	mu      sync.Mutex
	resolve []rtask
	decode  []*job
	outs    []*outBuf // free output buffers, the last freed at the end
	closed  bool
	wake    chan struct{} // one token: there may be a task, or closed
	helpers chan struct{} // one token: there may be a resolution for the reading goroutine (await)
}

// rtask is a resolution: of marks[:split] when lo is set, else of
// marks[split:].
type rtask struct {
	j  *job
	lo bool
}

// push adds a piece to decode and wakes a worker.
func (t *tasks) push(j *job) {
	t.mu.Lock()
	t.decode = append(t.decode, j)
	t.mu.Unlock()
	t.signal()
}

// pushResolve adds resolutions and wakes a worker and the reading
// goroutine.
func (t *tasks) pushResolve(r ...rtask) {
	t.mu.Lock()
	t.resolve = append(t.resolve, r...)
	t.mu.Unlock()
	t.signal()
	select {
	case t.helpers <- struct{}{}:
	default:
	}
}

// signal wakes a worker, unless one is being woken already.
func (t *tasks) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// take removes the next task, a resolution first (only those when
// resolveOnly is set); ok is false when there is none, j is nil for a
// resolution.
func (t *tasks) take(resolveOnly bool) (j *job, r rtask, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case len(t.resolve) > 0:
		r, t.resolve = t.resolve[0], t.resolve[1:]
	case len(t.decode) > 0 && !resolveOnly:
		j, t.decode = t.decode[0], t.decode[1:]
		// One buffer per piece in flight: there is one free.
		ob := t.outs[len(t.outs)-1]
		t.outs = t.outs[:len(t.outs)-1]
		j.ob, j.mbuf, j.spill = ob, ob.mbuf, ob.spill
	default:
		return nil, rtask{}, false
	}
	if len(t.resolve)+len(t.decode) > 0 {
		t.signal() // for another worker
	}
	return j, r, true
}

// giveBack returns j's output buffers, if it holds them, as they are now
// (grown, maybe): its output is read out, or will not be.
func (t *tasks) giveBack(j *job) {
	if j.ob == nil {
		return
	}
	j.ob.mbuf, j.ob.spill = j.mbuf, j.spill
	t.mu.Lock()
	t.outs = append(t.outs, j.ob)
	t.mu.Unlock()
	j.ob, j.mbuf, j.spill, j.marks, j.data = nil, nil, nil, nil, nil
}

// cancel takes back j's decode task, and reports whether no goroutine
// had taken it.
func (t *tasks) cancel(j *job) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, k := range t.decode {
		if k == j {
			t.decode = append(t.decode[:i], t.decode[i+1:]...)
			return true
		}
	}
	return false
}

// close makes the workers return once the tasks are done.
func (t *tasks) close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	close(t.wake)
}

// sliceReader reads a byte slice.
type sliceReader struct{ b []byte }

func (r *sliceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// newParallel starts decoding in parallel from src, whose first byte holds
// the next bit at bit skip, a block boundary with window before it (32 KiB
// at least), after the member's first crc, size bytes.
func newParallel(src io.Reader, threads int, skip uint, window []byte, crc, size uint32, fb *inflate.Inflater, mem *slab, stats *parStats) *parallel {
	p := &parallel{src: src, threads: threads, pos: int64(skip), crc: crc, size: size, fb: fb, mem: mem, stats: stats}
	stats.members++
	p.win = p.winBuf[0][:copy(p.winBuf[0][:], window[len(window)-inflate.MarkerWindow:])]
	n := jobsFor(threads)
	p.tasks.wake = make(chan struct{}, 1)
	p.tasks.helpers = make(chan struct{}, 1)
	// Every piece's buffers and the workers' decoders in one allocation
	// made once, on huge pages where the kernel gives them: a first
	// touch on 4 KiB pages costs a page fault per 4 KiB, and one of a
	// huge page zeroes 2 MiB (on a VM, page by page of the host's), so
	// that the memory touched is packed: the workers' decoders, then the
	// pieces' inputs and windows, then the 16-bit buffers, each touched
	// from its start (the marks, then the output decoded with a known
	// window in the bytes past them) and lent out the last freed first
	// (outBuf). At the default sizes a 16-bit buffer (out symbols, 5 Mi)
	// holds the marker decoder's ring (inflate.MarkerRingLen, 4 Mi), so a
	// piece is decoded in place (decodeOnly); with smaller pieces (the
	// tests') the decoder copies out of a ring of its own.
	in, out := partSize+overrun, outSymbols()
	wm, per := align(threads*workerMem), pieceMem()
	outs, total := slabLayout(threads)
	if len(mem.b) < total {
		mem.alloc(total)
		stats.slabs++
		stats.slabBytes = total
	}
	for i := range n {
		b := mem.b[wm+i*per : wm+(i+1)*per]
		j := &job{done: make(chan struct{}, 1), lo: make(chan struct{}, 1), buf: b[0:0:in]}
		b = b[align(in):]
		j.win = b[:0:inflate.MarkerWindow]
		j.hintBuf.win = (*[inflate.MarkerWindow]byte)(b[inflate.MarkerWindow:])
		p.jobs = append(p.jobs, j)
		// Taken from the end: the first buffer first.
		at := outs + (n-1-i)*2*out
		p.tasks.outs = append(p.tasks.outs, &outBuf{mbuf: symbols(mem.b[at : at+2*out])})
	}
	workers := mem.b[:wm]
	for i := range p.jobs {
		// The free list is taken from its end: the first piece's part,
		// beside the workers' decoders, first.
		p.free = append(p.free, p.jobs[len(p.jobs)-1-i])
	}
	// The goroutine reading the output is one of the threads (see help):
	// with one goroutine per thread, none waits for a processor.
	p.self = newWorker(&p.stop, workers[:workerMem])
	p.wg.Add(threads - 1)
	for i := 1; i < threads; i++ {
		go p.run(newWorker(&p.stop, workers[i*workerMem:(i+1)*workerMem]))
	}
	return p
}

// run is a worker goroutine: it resolves pieces first, as the output
// waits for them, and decodes the others.
func (p *parallel) run(w *worker) {
	defer p.wg.Done()
	for {
		j, r, ok := p.tasks.take(false)
		if !ok {
			p.tasks.mu.Lock()
			closed := p.tasks.closed
			p.tasks.mu.Unlock()
			if closed {
				return
			}
			<-p.tasks.wake
			continue
		}
		switch {
		case j == nil:
			w.resolve(r)
			continue
		case !p.stop.Load():
			w.decode(j, &p.tasks)
		default:
			j.start = -1
		}
		j.done <- struct{}{}
		// The reader waiting for j was made runnable on this thread's
		// queue, where it would wait until this worker blocks or is
		// preempted (milliseconds): let it chain j and hand out the
		// next piece now.
		runtime.Gosched()
	}
}

// decode decodes j, and hints the next piece when j's start was known.
func (w *worker) decode(j *job, t *tasks) {
	j.resolved, j.loPushed, j.split = false, false, 0
	w.decodeOnly(j)
	h := j.hint.Load()
	if h == nil || h.pos != j.start {
		return
	}
	// The next piece's window first (it may be decoding), from the marks
	// before they are resolved in place.
	if n := j.next.Load(); n != nil && !j.final && j.end >= j.ownEnd() {
		n.setHint(j.end, func(win []byte) { windowAfter(win, h.win[:], j.marks, j.plain()) })
	}
	if len(j.marks) > 0 {
		// The window came while j decoded: its markers are resolved
		// now, without waiting for the chain to use j. The first part
		// goes to a task, which the reading goroutine takes while it
		// waits for j; this worker resolves the rest.
		j.rwin, j.split = h.win[:], splitAt(len(j.marks))
		if j.split > 0 {
			j.loPushed = true
			t.pushResolve(rtask{j, true})
		}
		copy(w.lut[inflate.Marker:], h.win[:])
		w.resolveRange(j, false)
		j.resolved = true
	}
}

// splitAt is where marks of length n are cut in two to be resolved by
// two goroutines at once: 0 (one part) when n is small, so that the
// second part always holds the last 32 KiB (see use).
func splitAt(n int) int {
	if n < 4*inflate.MarkerWindow {
		return 0
	}
	return n / 2
}

// decodeOnly finds a block start in j's own bytes and decodes from it.
func (w *worker) decodeOnly(j *job) {
	j.start, j.stored, j.final, j.marks, j.nplain = -1, false, false, j.mbuf[:0], 0
	stop := int64(j.own) * 8 // j-relative bit positions from here on
	if j.last {
		stop = unbounded
	}
	if steal && j.reached.Load() {
		// The reading goroutine is there: it decodes the piece, as
		// when it takes the piece before a worker does.
		j.handed = true
		return
	}
	if h := j.hint.Load(); h != nil {
		if at := h.pos - j.a*8; at >= 0 && at < int64(j.own)*8 {
			j.start, j.end = h.pos, h.pos
			w.decodePlain(j, at, stop, h)
		}
		return
	}
	from := j.from - j.a*8
	var abs int64 // the candidate's position
	w.md.Interrupt = func() bool {
		h := j.hint.Load()
		return h != nil && h.pos >= abs || w.stop.Load()
	}
	defer func() { w.md.Interrupt = nil }()
	for range maxAttempts {
		cand, stored := w.md.FindBlock(j.buf, from, int64(j.own)*8)
		if cand < 0 {
			return
		}
		from = cand + 1
		abs = j.a*8 + cand
		minBlocks := 1
		if stored {
			// Stored blocks are found by 19 bits only: one must be
			// followed by a whole block too.
			minBlocks = 2
		}
		// Into the piece's 16-bit buffer in place: it holds the
		// decoder's ring (inflate.MarkerRingLen). An output that outgrows
		// it comes back in a larger buffer, kept for the piece's next
		// uses.
		res, marks := w.md.Decode(j.mbuf, j.buf, cand, stop, softCap, hardCap, minBlocks)
		if cap(marks) > cap(j.mbuf) {
			j.mbuf = marks
		}
		if res.Blocks < minBlocks && res.Outcome != inflate.Final {
			continue
		}
		j.start, j.stored, j.marks = abs, stored, marks
		j.end, j.final = j.a*8+res.End, res.Outcome == inflate.Final
		switch res.Outcome {
		case inflate.Clean:
			w.decodePlain(j, res.End, stop, nil)
		case inflate.Interrupted:
			if h := j.hint.Load(); h != nil && h.pos == abs && !w.stop.Load() {
				if j.reached.Load() {
					// Handed over: the output so far is used, the
					// reading goroutine decodes the rest.
					j.handed = true
					return
				}
				w.decodePlain(j, res.End, stop, h)
			} else {
				// The output before it ended past this start, or the
				// decode is ending.
				j.start = -1
			}
		}
		return
	}
}

// decodePlain goes on decoding j from bit at with an Inflater, where the
// last 32 KiB of output hold no marker or h gives the window of j's start
// to resolve them.
func (w *worker) decodePlain(j *job, at, stop int64, h *hint) {
	k := min(len(j.marks), inflate.MarkerWindow)
	if h != nil {
		copy(w.win[:], h.win[k:])
	}
	for i, v := range j.marks[len(j.marks)-k:] {
		if v >= inflate.Marker {
			v = uint16(h.win[v-inflate.Marker])
		}
		w.win[inflate.MarkerWindow-k+i] = byte(v)
	}
	base := at / 8
	w.src.b = j.buf[base:]
	w.inf.ResetAt(&w.src, uint(at%8), w.win[:], stop-base*8, int64(softCap-len(j.marks)))
	room := hardCap - len(j.marks)
	j.data = j.pastMarks()
	n, prev := 0, 0
	var err error
	var crc, crcPrev uint32 // the CRC-32 of data[:n], of data[:prev]
	// Until the output ends, or the reading goroutine reaches the piece
	// (looked at after each read).
	for n < room && err == nil && (n == 0 || !j.reached.Load()) {
		if len(j.data) <= n {
			j.data = j.growData(n, min(max(2*len(j.data), n+64<<10), hardCap))
		}
		var m int
		m, err = w.inf.Read(j.data[n:min(len(j.data), room)])
		// The CRC of each read while its bytes are in cache, rather than
		// one more pass over the piece's output from memory.
		prev, crcPrev = n, crc
		crc = verify.UpdateCRC32(crc, j.data[n:n+m])
		n += m
	}
	switch {
	case err == io.EOF:
		j.end = j.a*8 + base*8 + w.inf.BitPos()
		j.final = !w.inf.Stopped()
	default:
		// An error, the output limit, or the reading goroutine is
		// waiting (handed over): keep the whole blocks.
		j.handed = err == nil && n < room
		bit, out := w.inf.LastBoundary()
		if int(out) < prev {
			prev, crcPrev = 0, 0
		}
		crc = verify.UpdateCRC32(crcPrev, j.data[prev:out])
		n = int(out)
		j.end = j.a*8 + base*8 + bit
	}
	j.nplain = n
	j.crcP = crc
}

// resolve does a resolution task: it replaces the markers of one part of
// j's output by the window and computes the CRC-32 of the bytes, then
// reports it done.
func (w *worker) resolve(r rtask) {
	copy(w.lut[inflate.Marker:], r.j.rwin)
	w.resolveRange(r.j, r.lo)
	if r.lo {
		r.j.lo <- struct{}{}
	} else {
		r.j.done <- struct{}{}
	}
}

// resolveRange resolves the markers of marks[:split] (lo) or
// marks[split:] by the window in w.lut, in place (resolvedParts): that
// spares writing another buffer (and faulting it in). Symbol i's byte goes
// to byte i or split+i of the marks' memory, which lies in symbol i/2 or
// (split+i)/2, at most i (split <= i), as lookup goes forward.
func (w *worker) resolveRange(j *job, lo bool) {
	lut := w.lut
	var crc uint32
	// In blocks whose bytes the CRC reads while they are in cache.
	const block = 16 << 10
	all := j.marked()
	from, to, off := j.split, len(j.marks), j.split
	if lo {
		from, to, off = 0, j.split, 0
	}
	for i := from; i < to; i += block {
		marks := j.marks[i:min(i+block, to)]
		out := all[off+i : off+i+len(marks)]
		lookup(out, marks, lut)
		crc = verify.UpdateCRC32(crc, out)
	}
	if lo {
		j.crcLo = crc
	} else {
		j.crcR = crc
	}
}

// lookup writes lut[v] to out for each symbol v of marks (as long),
// sixteen at a time through array views, which need no bounds check per
// symbol. out may be the first half of marks' memory: each group of
// sixteen is read before it is written, and the bytes written belong to
// symbols read before.
func lookup(out []byte, marks []uint16, lut *[1 << 16]byte) {
	out = out[:len(marks)]
	i := 0
	for ; i+16 <= len(marks); i += 16 {
		m, o := (*[16]uint16)(marks[i:]), (*[16]byte)(out[i:])
		o[0], o[1], o[2], o[3] = lut[m[0]], lut[m[1]], lut[m[2]], lut[m[3]]
		o[4], o[5], o[6], o[7] = lut[m[4]], lut[m[5]], lut[m[6]], lut[m[7]]
		o[8], o[9], o[10], o[11] = lut[m[8]], lut[m[9]], lut[m[10]], lut[m[11]]
		o[12], o[13], o[14], o[15] = lut[m[12]], lut[m[13]], lut[m[14]], lut[m[15]]
	}
	for ; i < len(marks); i++ {
		out[i] = lut[marks[i]]
	}
}

// symbols returns b as 16-bit symbols (len(b)/2 of them). The view never
// depends on the byte order: the bytes are written and read as uint16
// only.
func symbols(b []byte) []uint16 {
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/2)
}

// growData returns j.data with room for at least n bytes, its first used
// bytes kept: j.data itself, or j.spill, a buffer at least a quarter
// longer than j.data, kept for the piece's later outputs that outgrow
// the memory past their marks.
func (j *job) growData(used, n int) []byte {
	if len(j.data) >= n {
		return j.data
	}
	old := j.data
	if len(j.spill) < n {
		j.spill = hugemem.Aligned(max(n, len(old)+len(old)/4))
	}
	copy(j.spill, old[:used])
	return j.spill
}

// dispatch reads the next piece and hands it to the workers; it reports
// false when no piece is free or the input has ended.
func (p *parallel) dispatch() bool {
	if len(p.free) == 0 || p.eof && len(p.carry) == 0 {
		return false
	}
	j := p.free[len(p.free)-1]
	if cap(j.buf) < partSize+overrun {
		j.buf = make([]byte, 0, partSize+overrun)
	}
	j.buf = append(j.buf[:0], p.carry...)
	n := len(j.buf)
	if !p.eof {
		want := j.buf[n : partSize+overrun]
		if b, ok := p.src.(interface{ buffered() int }); ok {
			// A piece ends where the source's buffered bytes do, if
			// they are fewer: after them a buffered source (the
			// caller's bufio.Reader, whose bytes the sequential start
			// left) reads whole pieces straight into j.buf rather
			// than through its buffer, a copy of every byte.
			if k := b.buffered(); k > 0 && k < len(want) {
				want = want[:k]
			}
		}
		m, err := io.ReadFull(p.src, want)
		n += m
		if err != nil {
			p.eof = true
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				p.srcErr = err
			}
		}
	}
	if n == 0 {
		return false
	}
	p.free = p.free[:len(p.free)-1]
	j.buf = j.buf[:n]
	j.a, j.own, j.last = p.next, n, p.eof
	p.carry = p.carry[:0]
	if n > partSize {
		j.own, j.last = partSize, false
		p.carry = append(p.carry, j.buf[partSize:]...)
	}
	j.from = max(p.pos, j.a*8)
	p.next += int64(j.own)
	p.queue = append(p.queue, j)
	j.start, j.handed = -1, false
	j.hint.Store(nil)
	j.claim.Store(false)
	j.reached.Store(false)
	j.next.Store(nil)
	if len(p.queue) > 1 {
		p.queue[len(p.queue)-2].next.Store(j)
	}
	p.hintNext()
	j.pending = true
	p.tasks.push(j)
	return true
}

// hintNext tells the next piece to chain, while it may be decoding, where
// the output ends and the window there.
func (p *parallel) hintNext() {
	if p.fbOn || p.final || p.vi >= len(p.queue) {
		return
	}
	j := p.queue[p.vi]
	if p.pos >= j.ownEnd() {
		return
	}
	j.setHint(p.pos, func(win []byte) { copy(win, p.win) })
	if hints {
		j.reached.Store(true)
	}
}

// await receives j's tasks' done (its decode or the resolution of
// marks[split:], then that of marks[:split]), doing the resolutions no
// worker has taken while it waits.
func (p *parallel) await(j *job) {
	for j.pending || j.loPending {
		ch := j.done
		if !j.pending {
			ch = j.lo
		}
		select {
		case <-ch:
			p.received(j, ch)
			continue
		default:
		}
		if !p.help() {
			select {
			case <-ch:
				p.received(j, ch)
			case <-p.tasks.helpers:
			}
		}
	}
}

// received notes that j's task reported on ch.
func (p *parallel) received(j *job, ch chan struct{}) {
	if ch == j.lo {
		j.loPending = false
		return
	}
	j.pending = false
	if j.loPushed {
		j.loPushed, j.loPending = false, true
	}
}

// help resolves a part of a piece's markers no worker has taken, on the
// goroutine reading the output, and reports whether there was one. It
// takes no piece to decode: those are the workers' (this goroutine
// decodes from where the chain is, stream), and one taken here would
// leave a worker idle.
func (p *parallel) help() bool {
	_, r, ok := p.tasks.take(true)
	if !ok {
		return false
	}
	p.self.resolve(r)
	p.stats.helped++
	return true
}

// ready reports whether j's decode is done, without waiting.
func (p *parallel) ready(j *job) bool {
	if !j.pending {
		return true
	}
	select {
	case <-j.done:
		p.received(j, j.done)
		return true
	default:
		return false
	}
}

// release frees the pieces at the front of the queue that are chained
// past or skipped, read out, and whose input lies before bit consumed.
func (p *parallel) release(consumed int64) {
	for len(p.queue) > 0 {
		j := p.queue[0]
		if j.inOutput || j.ownEnd() > consumed {
			return
		}
		p.await(j)
		p.tasks.giveBack(j)
		p.queue = p.queue[1:]
		if p.vi > 0 {
			p.vi--
		}
		if p.walk > 0 {
			p.walk--
		}
		p.free = append(p.free, j)
	}
}

// matches reports whether j's output is the one that follows pos: it
// starts there, or j starts at a stored block whose header pos is.
func (p *parallel) matches(j *job, pos int64) bool {
	if pos == j.start {
		return true
	}
	if !j.stored || pos < j.start-7 || pos > j.start || (pos+3+7)/8*8 != j.start+3 {
		return false
	}
	b, ok := p.bits3(pos)
	return ok && b == 0
}

// bits3 returns the three bits at pos from the pieces in the queue.
func (p *parallel) bits3(pos int64) (uint, bool) {
	var v uint
	for i := range int64(3) {
		bit := pos + i
		found := false
		for _, j := range p.queue {
			if k := bit/8 - j.a; k >= 0 && k < int64(len(j.buf)) {
				v |= uint(j.buf[k]>>(bit%8)&1) << i
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	return v, true
}

// chain extends the output past pos with the pieces whose decoding is
// done, in order, until one is not (waiting for it when block is set and
// nothing else can go on), the output ends, or a break needs a sequential
// decode. It keeps the workers busy.
func (p *parallel) chain(block bool) {
	for !p.fbOn && !p.final {
		p.release(p.pos)
		// A worker's piece that is done is chained before the next
		// piece is read and dispatched: its resolution is a task first,
		// which a worker idle until then takes at once.
		// (Checked again after each piece read: it may be done by then.)
		for (p.vi == len(p.queue) || !p.ready(p.queue[p.vi])) && p.dispatch() {
		}
		if p.vi == len(p.queue) {
			if p.eof && len(p.carry) == 0 {
				// The input ended without the final block: the
				// sequential decode finds the error.
				p.bridge(unbounded)
			}
			return
		}
		j := p.queue[p.vi]
		if steal && j.pending && p.tasks.cancel(j) {
			// No worker has started it: the reading goroutine decodes
			// it (the workers are behind, or have no processor).
			j.pending, j.handed = false, true
		}
		if !p.ready(j) {
			if !block {
				return
			}
			p.await(j)
		}
		switch {
		case j.start >= 0 && p.matches(j, p.pos):
			p.stats.used++
			p.stats.marked += int64(len(j.marks))
			if j.handed && j.nplain > 0 {
				p.stats.handedP++
			} else if j.handed {
				p.stats.handed++
			}
			p.use(j)
			p.vi++
			if j.end < j.ownEnd() {
				// Stopped short: j's input is still needed.
				j.start = -1
				p.vi--
			}
			p.hintNext()
			block = false
		case j.start >= 0 && p.pos < j.target():
			p.bridge(j.target())
			return
		case p.pos >= j.ownEnd():
			p.vi++
			p.hintNext()
		case j.handed:
			// Stolen, or handed over by its worker: the rest of the
			// piece is this goroutine's.
			p.stats.streams++
			p.stream(j.ownEnd())
			return
		default:
			p.bridge(j.ownEnd())
			return
		}
	}
}

// use chains j's output: the window moves past it, its markers are sent
// to be resolved, and it joins the output queue.
func (p *parallel) use(j *job) {
	j.win = j.win[:copy(j.win[:inflate.MarkerWindow], p.win)]
	// The next window: the last 32 KiB of the old window, the markers
	// resolved and the plain output.
	nw := &p.winBuf[0]
	if &p.win[0] == &nw[0] {
		nw = &p.winBuf[1]
	}
	if j.resolved {
		// marks[split:] hold the last 32 KiB of marks (splitAt), and a
		// task may still write marks[:split]'s bytes.
		_, hi := j.resolvedParts()
		windowAfterBytes(nw[:], j.win, hi, j.plain())
	} else {
		windowAfter(nw[:], j.win, j.marks, j.plain())
	}
	p.win = nw[:]
	p.pos, p.final = j.end, j.final
	j.inOutput, j.counted, j.rd = true, false, 0
	p.outq = append(p.outq, j)
	if len(j.marks) > 0 && !j.resolved {
		j.rwin, j.split = j.win, splitAt(len(j.marks))
		j.pending, j.loPending = true, j.split > 0
		if j.split > 0 {
			p.tasks.pushResolve(rtask{j, true}, rtask{j, false})
		} else {
			p.tasks.pushResolve(rtask{j, false})
		}
	}
}

// bridge starts the sequential decode from pos to the first block boundary
// at or past bit target.
func (p *parallel) bridge(target int64) {
	p.stats.bridges++
	p.stream(target)
}

// stream starts the sequential decode from pos to the first block
// boundary at or past bit target: a bridge, or a piece the reading
// goroutine decodes as it gives it out.
func (p *parallel) stream(target int64) {
	p.fbOn, p.fbTgt = true, target
	p.fbBase = p.pos / 8
	p.walk, p.walkOff = 0, p.fbBase
	stop := target - p.fbBase*8
	if target == unbounded {
		stop = unbounded
	}
	p.fb.ResetAt(p, uint(p.pos%8), p.win, stop, unbounded)
}

// Read gives the sequential decode its input: the pieces' own bytes from
// the bridge's start, dispatching pieces as it goes and releasing those
// it has passed.
func (p *parallel) Read(b []byte) (int, error) {
	p.release(p.fbBase*8 + p.fb.BitPos())
	for {
		if p.walk >= len(p.queue) {
			if !p.dispatch() {
				if p.srcErr != nil {
					return 0, p.srcErr
				}
				return 0, io.EOF
			}
			continue
		}
		j := p.queue[p.walk]
		if p.walkOff >= j.a+int64(j.own) {
			p.walk++
			continue
		}
		n := copy(b, j.buf[p.walkOff-j.a:j.own])
		p.walkOff += int64(n)
		return n, nil
	}
}

// give gives out the output in order, at most len(b) bytes: a piece's
// output straight from its buffer, valid until the next call, or what the
// sequential decode bridging a break writes to b; io.EOF after the final
// block.
func (p *parallel) give(b []byte) ([]byte, error) {
	for {
		if len(p.outq) > 0 {
			j := p.outq[0]
			if !j.counted {
				p.await(j)
				if j.split > 0 {
					p.stats.splits++
				}
				p.crc = crcCombine(p.crc, j.crcLo, int64(j.split))
				p.crc = crcCombine(p.crc, j.crcR, int64(len(j.marks)-j.split))
				p.crc = crcCombine(p.crc, j.crcP, int64(j.nplain))
				p.size += uint32(len(j.marks) + j.nplain)
				j.counted = true
			}
			if n := len(j.marks) + j.nplain; j.rd < n {
				var s []byte
				if lo, hi := j.resolvedParts(); j.rd < len(lo) {
					s = lo[j.rd:min(len(lo), j.rd+len(b))]
				} else if j.rd < len(j.marks) {
					k := j.rd - len(lo)
					s = hi[k:min(len(hi), k+len(b))]
				} else {
					k := j.rd - len(j.marks)
					s = j.data[k:min(j.nplain, k+len(b))]
				}
				j.rd += len(s)
				p.count += int64(len(s))
				return s, nil
			}
			j.inOutput = false
			p.outq = p.outq[1:]
			p.tasks.giveBack(j)
			p.release(p.pos)
			p.chain(false)
			continue
		}
		if p.fbOn {
			n, err := p.fb.Read(b)
			if n > 0 {
				p.crc = verify.UpdateCRC32(p.crc, b[:n])
				p.size += uint32(n)
				p.count += int64(n)
				return b[:n], nil
			}
			if err != io.EOF {
				return nil, err
			}
			p.fbOn = false
			p.pos = p.fbBase*8 + p.fb.BitPos()
			p.final = !p.fb.Stopped()
			nw := &p.winBuf[0]
			if &p.win[0] == &nw[0] {
				nw = &p.winBuf[1]
			}
			p.win = nw[:copy(nw[:], p.fb.Window())]
			p.release(p.pos)
			p.hintNext()
		}
		if p.final {
			return nil, io.EOF
		}
		p.chain(true)
	}
}

// finish ends the parallel decode after the final block: it stops the
// workers and returns the member's CRC-32 and size and the input read
// past the final block, which stays valid until the next newParallel.
func (p *parallel) finish(rest []byte) (crc, size uint32, _ []byte) {
	t := (p.pos + 7) / 8
	for _, j := range p.queue {
		if end := j.a + int64(j.own); end > t {
			rest = append(rest, j.buf[max(t-j.a, 0):j.own]...)
		}
	}
	rest = append(rest, p.carry...)
	p.shutdown()
	return p.crc, p.size, rest
}

// shutdown stops the workers once their tasks are done.
func (p *parallel) shutdown() {
	p.stop.Store(true)
	for _, j := range p.queue {
		if j.pending && p.tasks.cancel(j) {
			j.pending = false
		}
		p.await(j)
	}
	p.tasks.close()
	p.wg.Wait()
}
