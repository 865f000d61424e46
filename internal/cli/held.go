package cli

import "github.com/unpack-dev/unpack/internal/archive"

// held tracks the entries of one archive that a sink keeps uncommitted
// because they were Pending: the check covering their data comes later in
// the stream (a tar inside gzip, xz, zstd, lz4, bzip2 or lzip; a zip read
// from a pipe, whose central directory confirms each entry). Each is
// reported, and committed or discarded through settle, when the reader's
// verdict on it arrives.
type held struct {
	r      *runner
	path   string
	settle settleFunc      // the sink's Settle
	from   archive.Settler // nil: the reader settles nothing
	list   []heldEntry     // in archive order
}

// heldEntry is an entry whose report waits: for its own verdict, or for
// those of held entries before it (reports stay in archive order).
type heldEntry struct {
	e       *archive.Entry
	size    int64
	decided bool
	err     error
}

// newHeld returns the tracker of reader's entries; settle nil means
// nothing is held (the command writes nothing a verdict could undo).
func newHeld(r *runner, path string, reader archive.Reader, settle settleFunc) *held {
	h := &held{r: r, path: path, settle: settle}
	h.from, _ = reader.(archive.Settler)
	return h
}

// put records the outcome of an entry the sink was given: a Pending entry
// the sink took is held, its report deferred to its verdict; any other is
// reported now, or after the held entries before it.
func (h *held) put(e *archive.Entry, size int64, err error) {
	switch {
	case err == nil && e.Pending && h.settle != nil:
		h.list = append(h.list, heldEntry{e: e, size: size})
	case len(h.list) > 0:
		h.list = append(h.list, heldEntry{e: e, size: size, decided: true, err: err})
	default:
		h.r.report(h.path, e, size, err)
	}
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
	if len(vs) < 2 {
		for _, v := range vs {
			h.verdict(v.Entry, v.Err)
		}
		return
	}
	var todo []archive.Verdict
	var at []int // their places in h.list
	next := 0    // verdicts come in archive order: look there first
	for _, v := range vs {
		for k := range h.list {
			i := (next + k) % len(h.list)
			if x := &h.list[i]; x.e == v.Entry && !x.decided {
				todo, at = append(todo, v), append(at, i)
				if v.Err != nil {
					h.r.sums.drop(v.Entry.Name)
				}
				next = i + 1
				break
			}
		}
	}
	if len(todo) > 0 {
		for k, err := range h.settle(todo) {
			h.list[at[k]].decided, h.list[at[k]].err = true, err
		}
	}
	h.report()
}

// report reports the decided entries at the head of the list.
func (h *held) report() {
	for len(h.list) > 0 && h.list[0].decided {
		x := h.list[0]
		h.list = h.list[1:]
		h.r.report(h.path, x.e, x.size, x.err)
	}
}

// fail settles every entry still held with err: the archive ended
// before their checks (a read error, an interruption).
func (h *held) fail(err error) {
	h.drain()
	for _, x := range h.list {
		if !x.decided {
			h.verdict(x.e, err)
		}
	}
}

// verdict settles e, if it is held, and reports what can be reported.
func (h *held) verdict(e *archive.Entry, err error) {
	for i := range h.list {
		x := &h.list[i]
		if x.e != e || x.decided {
			continue
		}
		if err != nil {
			h.r.sums.drop(e.Name)
		}
		x.decided, x.err = true, h.settle([]archive.Verdict{{Entry: e, Err: err}})[0]
		break
	}
	h.report()
}

// errUnsettled fails an entry still held when its archive ended without
// an error: the reader never decided on it, so it was never verified.
var errUnsettled = archive.Corruptf("the check covering its data was never reached")
