package cli

import (
	"github.com/unpack-dev/unpack/internal/archive"
)

// held tracks the entries of one archive that a sink keeps uncommitted
// because they were Pending: the check covering their data comes later in
// the stream (a tar inside gzip, xz, zstd, lz4, bzip2 or lzip; a zip read
// from a pipe, whose central directory confirms each entry). Each is
// reported, and committed or discarded through settle, when the reader's
// verdict on it arrives.
//
// A one-frame tar.zst holds every entry to the frame's end, so what is
// kept of each is small and has no pointer for the garbage collector to
// follow: its Hold, its size and its name in an arena; the entry itself
// only when a report or the settle function needs more than its name
// (--json, -v) or the verdict names it by pointer (no Hold).
type held struct {
	r      *runner
	path   string
	settle settleFunc      // the sink's Settle
	from   archive.Settler // nil: the reader settles nothing
	keep   bool            // keep every entry (--json, -v)

	list  heldList         // in archive order
	ents  []*archive.Entry // beside list once an entry is kept (nil for the others)
	errs  map[uint64]error // the outcomes that failed, by list.seq
	names nameArena        // the names in list
}

// heldEntry is an entry whose report waits: for its own verdict, or for
// those of held entries before it (reports stay in archive order).
type heldEntry struct {
	hold    uint64 // its Hold (0: its verdict names the entry kept in ents)
	size    int64
	name    nameRef // its name in the arena (none when the entry is kept)
	decided bool
	failed  bool // its outcome is in errs
}

// newHeld returns the tracker of reader's entries; settle nil means
// nothing is held (the command writes nothing a verdict could undo).
func newHeld(r *runner, path string, reader archive.Reader, settle settleFunc) *held {
	h := &held{r: r, path: path, settle: settle, keep: r.json != nil || r.o.Verbose}
	h.from, _ = reader.(archive.Settler)
	return h
}

// put records the outcome of an entry the sink was given: a Pending entry
// the sink took is held, its report deferred to its verdict; any other is
// reported now, or after the held entries before it.
func (h *held) put(e *archive.Entry, size int64, err error) {
	switch {
	case err == nil && e.Pending && h.settle != nil:
		h.add(e, size, false, nil)
	case h.list.Len() > 0:
		h.add(e, size, true, err)
	default:
		h.r.report(h.path, e, size, err)
	}
}

// add appends e to the list: decided with its outcome err, or waiting
// for its verdict.
func (h *held) add(e *archive.Entry, size int64, decided bool, err error) {
	if h.list.Len() == 0 {
		h.names.reset()
		h.ents = h.ents[:0]
	}
	x := heldEntry{hold: e.Hold, size: size, decided: decided}
	keep := !e.Pending || e.Hold == 0 || h.keep || len(e.Name) > maxArenaName
	if keep {
		if len(h.ents) < h.list.Len() {
			h.ents = append(h.ents, make([]*archive.Entry, h.list.Len()-len(h.ents))...)
		}
		h.ents = append(h.ents, e)
	} else {
		x.name = h.names.add(e.Name)
		if len(h.ents) > 0 {
			h.ents = append(h.ents, nil)
		}
	}
	h.list.Push(x)
	if err != nil {
		h.fail1(h.list.Len()-1, err)
	}
}

// fail1 records err as the outcome of list[i].
func (h *held) fail1(i int, err error) {
	if h.errs == nil {
		h.errs = map[uint64]error{}
	}
	h.list.At(i).failed = true
	h.errs[h.list.seq(i)] = err
}

// entry returns the entry of list[i]: the one kept, or one with only its
// name.
func (h *held) entry(i int) *archive.Entry {
	if i < len(h.ents) && h.ents[i] != nil {
		return h.ents[i]
	}
	x := h.list.At(i)
	return &archive.Entry{Name: h.names.str(x.name), Hold: x.hold, Pending: true}
}

// name returns the name of list[i].
func (h *held) name(i int) string {
	if i < len(h.ents) && h.ents[i] != nil {
		return h.ents[i].Name
	}
	return h.names.str(h.list.At(i).name)
}

// is reports whether the verdict v is on list[i], still undecided.
func (h *held) is(i int, v *archive.Verdict) bool {
	x := h.list.At(i)
	if x.decided {
		return false
	}
	if v.Hold != 0 {
		return x.hold == v.Hold
	}
	return x.hold == 0 && i < len(h.ents) && h.ents[i] == v.Entry
}

// find returns the index in the list of the undecided entry the verdict v
// is on, looking from from on (verdicts come in archive order), or -1.
// Holds grow in archive order: one is looked for up to the first larger
// one, so that the verdicts of entries never put (not selected) cost
// no search of the whole list each.
func (h *held) find(from int, v *archive.Verdict) int {
	if v.Hold != 0 {
		for i := from; i < h.list.Len(); i++ {
			switch x := h.list.At(i); {
			case x.hold == v.Hold:
				if x.decided {
					return -1
				}
				return i
			case x.hold > v.Hold:
				return -1
			}
		}
		return -1
	}
	for k := range h.list.Len() {
		if i := (from + k) % h.list.Len(); h.is(i, v) {
			return i
		}
	}
	return -1
}

// settleFunc settles held entries with their verdicts, in order, and
// returns each one's result (a sink's SettleAll: the commits of
// independent files may go in parallel).
type settleFunc func([]archive.Verdict) []error

// drain applies the verdicts the reader has decided, all at once.
func (h *held) drain() {
	if h.from == nil {
		return
	}
	vs := h.from.Settled()
	if len(vs) == 0 {
		return
	}
	// Settled in runs of at most drainRun, through the same two slices:
	// at the end of a one-frame stream every entry is settled at once,
	// and slices of them all would be fresh memory, a page fault a page.
	n := min(len(vs), drainRun)
	todo := make([]archive.Verdict, 0, n)
	at := make([]int, 0, n) // their places in h.list
	next := 0               // verdicts come in archive order: look there first
	for _, v := range vs {
		i := h.find(next, &v)
		if i < 0 {
			continue // an entry not put (not selected)
		}
		if v.Entry == nil && i < len(h.ents) {
			v.Entry = h.ents[i] // for a settle function that reports it (-v)
		}
		if v.Err != nil && h.r.sums != nil {
			h.r.sums.drop(h.name(i))
		}
		todo, at = append(todo, v), append(at, i)
		next = i + 1
		if len(todo) == drainRun {
			h.apply(todo, at)
			todo, at = todo[:0], at[:0]
		}
	}
	h.apply(todo, at)
	h.report()
}

// drainRun is the most verdicts drain hands to settle at once.
const drainRun = 1024

// apply settles todo, the verdicts of the entries at at in the list.
func (h *held) apply(todo []archive.Verdict, at []int) {
	if len(todo) == 0 {
		return
	}
	for k, err := range h.settle(todo) {
		h.list.At(at[k]).decided = true
		if err != nil {
			h.fail1(at[k], err)
		}
	}
	clear(todo) // no entry or error kept alive by the next run's slack
}

// report reports the decided entries at the head of the list.
func (h *held) report() {
	n := 0
	for n < h.list.Len() && h.list.At(n).decided {
		x := h.list.At(n)
		var err error
		if x.failed {
			err = h.errs[h.list.seq(n)]
			delete(h.errs, h.list.seq(n))
		}
		if err != nil || h.keep || n < len(h.ents) && h.ents[n] != nil {
			h.r.report(h.path, h.entry(n), x.size, err)
		}
		n++
	}
	if n == 0 {
		return
	}
	h.list.drop(n)
	if len(h.ents) > 0 {
		clear(h.ents[:min(n, len(h.ents))])
		h.ents = h.ents[min(n, len(h.ents)):]
	}
	if h.list.Len() == 0 {
		h.ents = h.ents[:0]
	}
}

// fail settles every entry still held with err: the archive ended
// before their checks (a read error, an interruption).
func (h *held) fail(err error) {
	h.drain()
	var todo []archive.Verdict
	var at []int
	for i := range h.list.Len() {
		x := h.list.At(i)
		if x.decided {
			continue
		}
		if h.r.sums != nil {
			h.r.sums.drop(h.name(i))
		}
		v := archive.Verdict{Hold: x.hold, Err: err}
		if i < len(h.ents) {
			v.Entry = h.ents[i]
		}
		todo, at = append(todo, v), append(at, i)
	}
	if len(todo) > 0 {
		for k, serr := range h.settle(todo) {
			h.list.At(at[k]).decided = true
			if serr != nil {
				h.fail1(at[k], serr)
			}
		}
	}
	h.report()
}

// errUnsettled fails an entry still held when its archive ended without
// an error: the reader never decided on it, so it was never verified.
var errUnsettled = archive.Corruptf("the check covering its data was never reached")
