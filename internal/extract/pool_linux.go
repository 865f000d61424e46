package extract

import (
	"io"
	"io/fs"
	"path"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/unpack-dev/unpack/internal/archive"
)

// A Pending file (held until the stream check that covers it) is written
// by a small pool of writer goroutines while the decoder goes on: the
// kernel's file creation, not the decoding, is most of the time of a
// many-file tar to disk.
//
// Only the system calls of the one file go to the pool: creating it
// (unnamed, O_TMPFILE, kept open until its commit links it under its
// name: one directory operation, and nothing left by a SIGKILL; past
// maxHeldFDs, or without O_TMPFILE, under its temporary name, unique,
// O_EXCL), in a directory handle that stays that directory, its data,
// mode and times, and closing it when named. Every
// decision (the path and its directory, the policy, supersession by a
// later entry of the name, hard links, the commit) stays on the goroutine
// that calls Put and Settle, in archive order, and whatever needs the
// temporary file on disk (a hard link to it, the commit, its removal)
// waits for its write first (Dir.wait).

// maxQueued is the largest file buffered for the pool; larger ones are
// written on the caller's goroutine as before.
const maxQueued = 1 << 20

// defaultBuffer is the bound on the bytes buffered for the pool at once
// when DirOptions.Buffer is not set.
const defaultBuffer = 16 << 20

// writeJob is one held file for the pool to write: what stays with its
// hold until the verdict (a one-frame tar.zst holds every file to the
// end, so this is kept small), and the task, dropped once written.
type writeJob struct {
	task *writeTask // the write to do; nil once finished
	err  error      // set before finished
	fd   int32      // once written: its open descriptor when unnamed, else -1
	// finished is set (under w.mu, with a w.cond broadcast) once the
	// write is over: a flag, not a channel, for what a held file keeps
	// until its verdict is small.
	finished bool
}

// run writes j (the writers' job for it), then gives back its
// directory's handle.
func (j *writeJob) run() {
	t := j.task
	w := t.w // t is the next file's once done
	j.err = t.d.writeHeld(j)
	t.d.release(t.dir)
	w.done(j)
	w.pending.Add(-1)
}

// poolJob is a job of the writers: a held file's write (*writeJob, with
// no allocation of its own) or a function (jobFunc).
type poolJob interface{ run() }

// jobFunc is a function run as a poolJob.
type jobFunc func()

func (f jobFunc) run() { f() }

// writeTask is what a writer needs to write a held file, and the
// buffering of its data before (mem). Only putQueued, before queueing it,
// and then its writer use it; once written, it goes to the next file
// (writers.tasks).
type writeTask struct {
	mem     memFile
	d       *Dir
	w       *writers
	dir     *dirHandle
	unnamed bool   // to be created unnamed (O_TMPFILE), counted in heldFDs
	tmp     string // its temporary name (a resolved path in dir), if named
	name    string // the path it goes to, for errors
	data    []byte
	perm    fs.FileMode
	times   bool // set at and mt
	at      time.Time
	mt      time.Time
	held    *hold // the entry held (direct and tmp change under d.mu only)
}

// writers is the pool: its goroutines and the bound on buffered bytes.
type writers struct {
	jobs chan []poolJob // in batches: one hand-over (a wake-up) per batch
	wg   sync.WaitGroup

	mu    sync.Mutex
	cond  *sync.Cond
	bytes int64 // buffered now
	limit int64
	free  bufs // buffers written out, for the next files (under mu)
	// tasks written out, for the next files (under mu): else every
	// held file's task would be garbage once written.
	tasks []*writeTask

	pending atomic.Int64 // held files queued and not yet written

	sendMu sync.Mutex // held to queue a job, and to close the queue
	closed bool       // Close ended the pool
	batch  []poolJob  // queued, not yet handed over
	// batchJobs is the most jobs of a batch: more for the one writer
	// beside Put (see toWriter), each hand-over a wake-up.
	batchJobs int
	held      int64 // bytes buffered in batch
}

// A batch is handed over at this many jobs (splitBatch for the one
// writer beside Put) or bytes, or when anything waits for a job in it.
const (
	batchJobs  = 32
	splitBatch = 128
	batchBytes = 256 << 10
)

// queueable reports whether e is written by the pool: a held file not
// known to be large, without KeepBroken (a broken one is kept from what
// was written) and with no attributes but mode and times; after
// WriteHeldInline, only a small one in a directory given to the writer
// (toWriter).
func (d *Dir) queueable(p string, e *archive.Entry) bool {
	if !e.Pending || e.Sparse != nil || e.Size > maxQueued || d.opt.KeepBroken || len(d.opt.Quarantine) > 0 {
		return false
	}
	return !d.inline.Load() || e.Size <= splitMax && d.toWriter(parent(p))
}

// toWriter decides, for a held file in the resolved directory dir when
// WriteHeldInline was called, whether the one writer writes it or Put
// does: each directory goes to one of the two, the writer's while it
// keeps up, so that the two never create files in one directory at once
// (each creation takes the directory's lock) and both cores create
// files. Put's caller is the one goroutine of a stream, so the last
// directory's owner is kept without a lock.
func (d *Dir) toWriter(dir string) bool {
	s := &d.split
	if s.dir == dir && s.valid {
		return s.writer
	}
	h, err := d.dirFD(dir)
	if err != nil {
		return false
	}
	switch h.owner.Load() {
	case ownerWriter:
		s.writer = true
	case ownerPut:
		s.writer = false
	default:
		var backlog int64
		if w := d.pool.Load(); w != nil {
			backlog = w.pending.Load()
		}
		s.writer = backlog < splitBacklog
		if testSplitOwner != nil {
			s.writer = testSplitOwner(dir)
		}
		o := int32(ownerPut)
		if s.writer {
			o = ownerWriter
		}
		h.owner.Store(o)
	}
	d.release(h)
	if !s.writer {
		d.flushWriters() // the writer works on what it has meanwhile
	}
	s.dir, s.valid = dir, true
	return s.writer
}

// The owners of a directory's held files (dirHandle.owner) when split.
const (
	ownerWriter = 1
	ownerPut    = 2
)

// splitBacklog is the most files queued for the writer when a directory
// is given to it.
const splitBacklog = 64

// splitMax is the largest held file the one writer beside Put writes: a
// larger one costs its copy more than its system calls, and Put writes it
// wherever its directory went.
const splitMax = 8 << 10

// testSplitOwner, when set, decides whether a directory's held files go to
// the writer, for the tests, in place of the backlog.
var testSplitOwner func(dir string) bool

// splitState is the last directory toWriter decided.
type splitState struct {
	dir    string
	valid  bool
	writer bool
}

// writers returns the pool, started on first use.
func (d *Dir) writers() *writers {
	d.poolOnce.Do(func() {
		n, batch := max(2, runtime.GOMAXPROCS(0)), batchJobs
		if d.inline.Load() {
			n, batch = 1, splitBatch // beside Put (see toWriter)
		}
		d.pool.Store(d.newWriters(n, batch))
	})
	return d.pool.Load()
}

// newWriters makes the pool with n goroutines (none: closed, Close came
// first), handed batches of up to batch jobs.
func (d *Dir) newWriters(n, batch int) *writers {
	start := n > 0
	w := &writers{jobs: make(chan []poolJob, 16), limit: d.opt.Buffer, closed: !start, batchJobs: batch}
	if w.limit <= 0 {
		w.limit = defaultBuffer
	}
	w.cond = sync.NewCond(&w.mu)
	if !start {
		return w
	}
	w.wg.Add(n)
	for range n {
		go func() {
			defer w.wg.Done()
			for batch := range w.jobs {
				for _, job := range batch {
					job.run()
				}
			}
		}()
	}
	return w
}

// acquire waits until n more bytes may be buffered (at once if none are).
func (w *writers) acquire(n int64) {
	w.mu.Lock()
	w.acquireLocked(n)
	w.mu.Unlock()
}

// acquireLocked is acquire with w.mu held.
func (w *writers) acquireLocked(n int64) {
	if w.bytes > 0 && w.bytes+n > w.limit {
		w.mu.Unlock()
		w.flush() // what it waits for may be in the batch
		w.mu.Lock()
	}
	for w.bytes > 0 && w.bytes+n > w.limit {
		w.cond.Wait()
	}
	w.bytes += n
}

// take returns a task, empty, and an empty buffer of at least n bytes
// (n <= maxQueued), its capacity counted as buffered (acquire): one lock
// for all. The buffer is given back with giveBack unless a write's done
// releases it.
func (w *writers) take(n int64) (*writeTask, []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var t *writeTask
	if k := len(w.tasks); k > 0 {
		t = w.tasks[k-1]
		w.tasks[k-1] = nil
		w.tasks = w.tasks[:k-1]
	} else {
		t = new(writeTask)
	}
	if n <= 0 {
		return t, nil
	}
	b := w.free.get(n)
	w.acquireLocked(int64(cap(b)))
	return t, b
}

// giveBack returns the n bytes counted by take for a buffer that will not
// be queued, and keeps b for a later file if it is that buffer.
func (w *writers) giveBack(b []byte, n int64) {
	if n == 0 {
		return
	}
	w.mu.Lock()
	w.bytes -= n
	if int64(cap(b)) == n {
		w.free.put(b, w.limit/4)
	}
	w.mu.Unlock()
	w.cond.Broadcast()
}

// done ends the write j: its buffer is released, for a later file.
func (w *writers) done(j *writeJob) {
	w.mu.Lock()
	t := j.task
	w.bytes -= int64(cap(t.data))
	w.free.put(t.data, w.limit/4)
	j.task = nil
	j.finished = true
	if len(w.tasks) < maxTasks {
		*t = writeTask{}
		w.tasks = append(w.tasks, t)
	}
	w.mu.Unlock()
	w.cond.Broadcast()
}

// maxTasks is the most tasks kept for the next files.
const maxTasks = 1024

// waitDone waits for the write j to be over (queued: see Dir.wait).
func (w *writers) waitDone(j *writeJob) {
	w.mu.Lock()
	for !j.finished {
		w.cond.Wait()
	}
	w.mu.Unlock()
}

// isDone reports whether the write j is over.
func (w *writers) isDone(j *writeJob) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return j.finished
}

// bufs keeps the buffers of files written out, by size class (powers of
// two from minBuf to maxQueued), so that the next files are read into
// memory already touched: fresh memory for every file costs a page fault
// per page, and the garbage collector's work on each.
type bufs struct {
	class [bufClasses][][]byte
	bytes int64 // kept
}

const (
	minBufShift = 10
	bufClasses  = 21 - minBufShift // 1 KiB … 1 MiB (maxQueued)
)

// bufClass is the class of a buffer of n bytes (n <= maxQueued).
func bufClass(n int64) int {
	c := 0
	for int64(1)<<(c+minBufShift) < n {
		c++
	}
	return c
}

// get returns an empty buffer of at least n bytes: a kept one of its
// class, else a new one of the class's size (none for n = 0).
func (f *bufs) get(n int64) []byte {
	if n <= 0 {
		return nil
	}
	c := bufClass(n)
	if k := len(f.class[c]); k > 0 {
		b := f.class[c][k-1]
		f.class[c] = f.class[c][:k-1]
		f.bytes -= int64(cap(b))
		return b[:0]
	}
	return make([]byte, 0, 1<<(c+minBufShift))
}

// put keeps b for a later get if it is of a class's size and at most
// limit bytes are kept with it.
func (f *bufs) put(b []byte, limit int64) {
	n := int64(cap(b))
	if n < 1<<minBufShift || n > maxQueued || n&(n-1) != 0 || f.bytes+n > limit {
		return
	}
	c := bufClass(n)
	f.class[c] = append(f.class[c], b[:0])
	f.bytes += n
}

// queue adds job, of n buffered bytes, to the batch, handed over when
// full; it returns false if Close ended the pool. Jobs run in the order
// queued, a batch by one writer.
func (w *writers) queue(job poolJob, n int64) bool {
	w.sendMu.Lock()
	defer w.sendMu.Unlock()
	if w.closed {
		return false
	}
	if w.batch == nil {
		w.batch = make([]poolJob, 0, w.batchJobs)
	}
	w.batch = append(w.batch, job)
	w.held += n
	if len(w.batch) >= w.batchJobs || w.held >= batchBytes {
		w.handOver()
	}
	return true
}

// flush hands over the batch (before waiting for a job in it).
func (w *writers) flush() {
	w.sendMu.Lock()
	defer w.sendMu.Unlock()
	if !w.closed {
		w.handOver()
	}
}

// handOver sends the batch to the writers; sendMu is held.
func (w *writers) handOver() {
	if len(w.batch) > 0 {
		w.jobs <- w.batch
		w.batch, w.held = nil, 0
	}
}

// stopWriters waits for every queued write and ends the pool (Close, which
// an interrupt may call while entries are still put).
func (d *Dir) stopWriters() {
	d.poolOnce.Do(func() { d.pool.Store(d.newWriters(0, batchJobs)) })
	w := d.pool.Load()
	w.sendMu.Lock()
	if !w.closed {
		w.handOver()
		w.closed = true
		close(w.jobs)
	}
	w.sendMu.Unlock()
	w.wg.Wait()
}

// putQueued reads the held file e for the resolved path p into memory and
// queues it for the pool; it returns once the entry is held (its data
// read to the end, so verified as far as its reader can). Data beyond
// the bound (e.Size is only a hint) is written here, as any held file.
func (d *Dir) putQueued(p string, e *archive.Entry, r io.Reader, perm fs.FileMode) error {
	h, err := d.dirFD(parent(p))
	if err != nil {
		return err
	}
	w := d.writers()
	// The buffering and then the task the writer gets: one record, the
	// writers' again once written.
	limit := min(maxQueued, w.limit)
	t, b := w.take(min(max(e.Size, 0), limit))
	m := &t.mem
	*m = memFile{d: d, w: w, p: p, perm: perm, b: b, took: int64(cap(b)), max: limit}
	_, err = archive.Copy(m, r)
	if m.f != nil {
		d.release(h)
		return d.finishFile(p, e, m.f, perm, m.exact, err)
	}
	if err != nil {
		d.release(h)
		w.giveBack(m.b, m.took)
		return err
	}
	if c := int64(cap(m.b)); c != m.took {
		// Grown past its size's hint: the first buffer is garbage.
		w.giveBack(nil, m.took)
		w.acquire(c)
	}
	// The job and its hold live as long as each other: one allocation.
	hj := &struct {
		h hold
		j writeJob
	}{j: writeJob{fd: -1, task: t}}
	j := &hj.j
	data := m.b // t.mem is done with
	*t = writeTask{d: d, w: w, dir: h, tmp: p, name: p, data: data, perm: perm}
	var mtime time.Time
	if !e.ModTime.IsZero() && !d.opt.NoTimes {
		t.times, t.at, t.mt = true, e.AccessTime, e.ModTime
		if t.at.IsZero() {
			t.at = e.ModTime
		}
		mtime = e.ModTime
	}
	held := &hj.h
	*held = hold{name: p, tmp: p, info: written(h.dev, int64(len(data)), mtime), job: j, direct: true}
	t.held = held
	// In a stage, under its own name (see staged.go): claimed and held
	// under one lock.
	direct := false
	if d.staged() {
		d.mu.Lock()
		if direct = !d.aborted.Load() && d.recs.claimHeld(p, held); direct {
			d.held.put(keyOf(e), held)
		}
		d.mu.Unlock()
	}
	if !direct {
		// Under a temporary name (drawn only now: it costs a random
		// read).
		t.tmp = tempName(p)
		if !h.noTmpfile.Load() {
			if d.heldFDs.Add(1) <= maxHeldFDs() {
				t.unnamed = true
			} else {
				d.heldFDs.Add(-1)
			}
		}
		held.tmp, held.direct = t.tmp, false
		d.mu.Lock()
		d.temps[t.tmp] = struct{}{}
		d.held.put(keyOf(e), held)
		d.recs.setHeld(p, held)
		d.mu.Unlock()
	}
	// The job's handle is given back once written: a commit opens its
	// directory again (the handles a writer holds stay few).
	w.pending.Add(1)
	if !w.queue(j, int64(cap(data))) {
		d.release(h)
		j.err = errAborted
		w.done(j)
		w.pending.Add(-1)
	}
	return nil
}

// memFile buffers a held file's data up to max bytes; beyond, it creates
// the file under its temporary name and writes there from then on.
type memFile struct {
	d     *Dir
	w     *writers // gives back the buffer once spilled
	p     string
	perm  fs.FileMode
	b     []byte
	took  int64 // the bytes counted for b by take (see giveBack)
	max   int64
	f     *wfile // the file, once spilled
	exact bool   // f has its mode
}

func (m *memFile) Write(p []byte) (int, error) {
	if m.f == nil && int64(len(m.b))+int64(len(p)) <= m.max {
		m.b = append(m.b, p...)
		return len(p), nil
	}
	if m.f == nil {
		f, exact, err := m.d.create(m.p, m.perm, true)
		if err != nil {
			return 0, err
		}
		m.f, m.exact = f, exact
		m.d.track(f.tmp, true)
		if _, err := f.Write(m.b); err != nil {
			return 0, err
		}
		m.w.giveBack(m.b, m.took)
		m.b, m.took = nil, 0
	}
	return m.f.Write(p)
}

// writeHeld is a writer's work: the file j under its temporary name, or,
// when anything fails, nothing.
func (d *Dir) writeHeld(j *writeJob) error {
	t := j.task
	if testBeforeWrite != nil {
		testBeforeWrite(t.name)
	}
	create, exact := uint32(0o600), false
	if t.perm&^fs.ModePerm == 0 && t.perm&realUmask() == 0 {
		create, exact = uint32(t.perm), true
	}
	base := path.Base(t.tmp)
	fd := -1
	var err error
	if t.unnamed {
		fd, err = openat(t.dir.fd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, create)
		if err == unix.EOPNOTSUPP || err == unix.EISDIR || err == unix.EINVAL {
			// The file system cannot: named, here and from now on.
			t.dir.noTmpfile.Store(true)
			t.unnamed = false
			d.heldFDs.Add(-1)
		} else if err != nil {
			t.unnamed = false
			d.heldFDs.Add(-1)
			return &fs.PathError{Op: "openat", Path: t.name, Err: err}
		}
	}
	if !t.unnamed {
		fd, err = openat(t.dir.fd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, create)
		if err == unix.EEXIST && t.held.direct {
			// Its own name is taken (staged, see staged.go): held
			// under a temporary name then, for the policy to decide
			// at its commit.
			base = d.unstage(t)
			fd, err = openat(t.dir.fd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, create)
		}
		if err != nil {
			if t.held.direct {
				d.track(t.tmp, false) // nothing of it is there
			}
			return &fs.PathError{Op: "openat", Path: t.tmp, Err: err}
		}
	}
	f := &wfile{fd: fd, dir: t.dir, tmp: t.tmp, name: t.name}
	_, err = f.Write(t.data)
	if err == nil && !exact {
		err = f.Chmod(t.perm)
	}
	if err == nil && t.times {
		err = f.setTimes(t.at, t.mt)
	}
	if t.unnamed && err == nil {
		j.fd = int32(fd) // open until its commit links it (see linkHeld)
	} else if err != nil {
		f.Close()
	} else {
		err = d.closeFile(f)
	}
	// Abort sets aborted before it looks for what to remove: a file made
	// before this load is seen by it, one it missed sees aborted here
	// (no lock on the way of every file: Put holds it meanwhile).
	if err == nil && d.aborted.Load() {
		err = errAborted
	}
	if err != nil {
		// Nothing of it stays (Abort may have looked for it before it
		// was made).
		d.mu.Lock()
		if t.unnamed {
			d.closeHeld(j)
		} else {
			unlinkat(t.dir.fd, base, 0)
		}
		d.mu.Unlock()
	}
	return err
}

// unstage moves the write t, claimed under its own name, to a temporary
// name (its base returned): the name was taken after all.
func (d *Dir) unstage(t *writeTask) string {
	tmp := tempName(t.name)
	d.mu.Lock()
	if m, _ := d.recs.made(t.name); m.claimed { // not what an entry made there since
		d.recs.unmake(t.name)
	}
	delete(d.temps, t.name)
	d.temps[tmp] = struct{}{}
	t.tmp = tmp
	t.held.tmp, t.held.direct = tmp, false
	d.mu.Unlock()
	return path.Base(tmp)
}

// maxHeldFDs bounds the held files kept open unnamed: half the
// descriptors allowed (the directory handles have a quarter), at most
// 65536 (a held file of a single-member tar.gz waits for the end of the
// stream, so a tree's every file may be held at once). Beyond it, held
// files are written under temporary names.
var maxHeldFDs = sync.OnceValue(func() int64 {
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) != nil {
		return 256
	}
	return int64(min(65536, r.Cur/2))
})

// closeHeld closes the unnamed held file of j, if open: it goes with its
// descriptor.
func (d *Dir) closeHeld(j *writeJob) {
	if j != nil && j.fd >= 0 {
		unix.Close(int(j.fd))
		j.fd = -1
		d.heldFDs.Add(-1)
	}
}

// nameHeld gives the held file h, if still unnamed, its temporary name:
// what a hard link to it, or a commit that the policy decides, needs. Its
// descriptor is closed either way.
func (d *Dir) nameHeld(h *hold) error {
	j := h.job
	if j == nil || j.fd < 0 {
		return nil
	}
	err := d.linkHeldAs(j, h.tmp)
	d.closeHeld(j)
	if err == nil {
		d.track(h.tmp, true)
	}
	return err
}

// linkHeldAs links the unnamed file of j as the resolved path p, through
// its directory's handle as it is now (the job's may have been closed
// since: see evictFDs).
func (d *Dir) linkHeldAs(j *writeJob, p string) error {
	h, err := d.dirFD(parent(p))
	if err != nil {
		return err
	}
	defer d.release(h)
	return d.linkAs(&wfile{fd: int(j.fd), dir: h}, p)
}

// linkHeld commits the unnamed held file h by linking it under its name,
// which fails if the name exists; then, or on any failure, the file is
// named (nameHeld) for the policy to decide (place). It returns the
// link's error, or nameHeld's as werr (nothing on disk then).
func (d *Dir) linkHeld(h *hold) (err, werr error) {
	j := h.job
	if err = d.linkHeldAs(j, h.name); err == nil {
		d.closeHeld(j)
		return nil, nil
	}
	return err, d.nameHeld(h)
}

// testBeforeWrite, when set, is called by a writer before it writes the
// file for the resolved path name (the tests' slow writes).
var testBeforeWrite func(name string)

// wait waits for the pool's write of the held entry h, if any, and
// returns its error.
func (d *Dir) wait(h *hold) error {
	j := h.job
	if j == nil {
		return nil
	}
	w := d.pool.Load() // the pool that has a job: started (see putQueued)
	w.flush()
	w.waitDone(j)
	return j.err
}

// fastCommit is the commit of a held file the pool renames into place.
type fastCommit struct {
	h    *hold
	done chan struct{} // nil: done when made
	werr error         // its write failed (nothing is on disk)
	err  error         // the rename failed: the policy decides (place)
	// recorded: written at its name already, and recorded as made by
	// commitQueued.
	recorded bool
}

// commitQueued starts the commit of the entry k names, with its verdict
// err, on the pool when it is a held file written by the pool, that passed, keeps its name
// and has no hard links: its commit is a rename to a name of its own,
// independent of every other such commit; c (the caller's: SettleAll
// makes them all at once) is then filled in. Else it returns false.
func (d *Dir) commitQueued(k heldKey, err error, c *fastCommit) bool {
	if err != nil || d.pool.Load() == nil {
		// No pool started (see putQueued): no held file has a job.
		return false
	}
	d.mu.Lock()
	h := d.held.get(k)
	if h == nil || h.job == nil || h.name == "" || h.link != nil || d.aborted.Load() {
		d.mu.Unlock()
		return false
	}
	// Written at its name already (so it stays direct): its commit is
	// only recorded, with no hand-over to the pool; when its write
	// passed, here, as settleDirect would, under the lock taken for its
	// hold (no writers' lock is held where Dir.mu is taken).
	w := d.pool.Load()
	written := h.direct && w.isDone(h.job)
	if written && h.job.err == nil {
		if !d.recs.commitHeldIf(h.name, h) {
			d.mu.Unlock()
			return false
		}
		delete(d.links, h.name)
		d.held.take(k)
		d.mu.Unlock()
		h.state = committed
		*c = fastCommit{h: h, recorded: true}
		return true
	}
	if !d.recs.unholdIf(h.name, h) {
		d.mu.Unlock()
		return false
	}
	d.held.take(k)
	d.mu.Unlock()
	h.state = committed
	if written {
		*c = fastCommit{h: h, werr: h.job.err}
		return true
	}
	*c = fastCommit{h: h, done: make(chan struct{})}
	run := func() {
		// Its write was queued before it: done, or being done by
		// another writer.
		w.waitDone(h.job)
		switch c.werr = h.job.err; {
		case c.werr != nil:
		case h.direct: // at its name already
		case h.job.fd >= 0:
			c.err, c.werr = d.linkHeld(h)
		default:
			c.err = d.renameNew(h.tmp, h.name)
		}
		close(c.done)
	}
	if !w.queue(jobFunc(run), 0) {
		run()
	}
	return true
}

// finishCommit waits for the commit c and records it, or, when the rename
// failed, leaves it to the policy as any commit.
func (d *Dir) finishCommit(c *fastCommit) error {
	if c.done != nil {
		<-c.done
	}
	h := c.h
	switch {
	case c.recorded:
		return d.recheck(h.name)
	case c.werr != nil:
		h.fail(c.werr)
		if h.direct {
			d.unclaim(h.name, false) // removed by its writer, if made
		} else {
			d.track(h.tmp, false)
		}
		return c.werr
	case h.direct:
		return d.settleDirect(h.name, h.info)
	case c.err != nil:
		return d.placeOver(h.tmp, h.name, h.info)
	}
	d.mu.Lock()
	d.recs.setMade(h.name, h.info)
	delete(d.links, h.name)
	delete(d.temps, h.tmp)
	d.mu.Unlock()
	return d.recheck(h.name)
}

// flushWriters hands over what is queued, if there is a pool.
func (d *Dir) flushWriters() {
	if w := d.pool.Load(); w != nil {
		w.flush()
	}
}
