package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
)

// A file replaced by an exchange of names (see replace) is left under the
// temporary name and removed here, off the caller's path: freeing its
// blocks is the cost of a replacement (on a file system mounted with
// discard, a synchronous discard of each extent), and those waits overlap
// when several removals are in flight. Until removed it has a temporary
// name, which Abort removes like any other, and Close waits for it.

// reapers is how many removals run at once: they wait on the device, not
// the CPU.
const reapers = 8

// reaper removes the files replaced.
type reaper struct {
	mu     sync.Mutex // held to queue a name, and to close the queue
	closed bool
	names  chan string
	wg     sync.WaitGroup
	err    error // the first removal that failed (set by its goroutines)
	errMu  sync.Mutex
}

// reap removes tmp, the file a path had before it was replaced, which
// d.old lists until then: queued, or here once Close stopped the reaper.
func (d *Dir) reap(tmp string) {
	r := &d.reaper
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		r.remove(d, tmp)
		return
	}
	if r.names == nil {
		r.names = make(chan string, 256)
		r.wg.Add(reapers)
		for range reapers {
			go func() {
				defer r.wg.Done()
				for tmp := range r.names {
					r.remove(d, tmp)
				}
			}()
		}
	}
	r.names <- tmp
	r.mu.Unlock()
}

// remove unlinks tmp (gone already if Abort took it) and records a failure.
func (r *reaper) remove(d *Dir, tmp string) {
	err := d.unlink(tmp)
	d.mu.Lock()
	delete(d.old, tmp)
	d.mu.Unlock()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.errMu.Lock()
		if r.err == nil {
			r.err = fmt.Errorf("a file replaced is left as %s: %w", tmp, err)
		}
		r.errMu.Unlock()
	}
}

// stopReaper waits for the removals queued and returns the first error.
func (d *Dir) stopReaper() error {
	r := &d.reaper
	r.mu.Lock()
	if !r.closed && r.names != nil {
		close(r.names)
	}
	r.closed = true
	r.mu.Unlock()
	r.wg.Wait()
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err
}
