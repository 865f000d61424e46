package cli

import (
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/extract"
)

// storedReader is implemented by random-access readers whose files are
// (mostly) byte ranges of the archive file, as they are: ISO 9660 and UDF
// images. StoredSpans gives those ranges by entry, sorted by offset and
// not overlapping; OpenSpan reads one range as a file's data is read.
type storedReader interface {
	StoredSpans() []archive.Span
	OpenSpan(off, n int64) io.ReadCloser
}

// stretch is a run of the archive file read at once: spans[lo:hi] are the
// entries' spans that meet it, data the bytes of theirs it holds (not the
// gaps between them).
type stretch struct {
	off, n int64
	lo, hi int
	data   int64
}

// maxGap is the longest gap between two spans that a run reads through
// (sector padding, a directory between two files): reading it costs less
// than another call.
const maxGap = 64 << 10

// readStored reads the stored files' data when it is only to be discarded
// (t without --manifest): the spans that follow each other are joined into
// runs, cut into one share of bytes per thread, each share read on its own
// goroutine with a kernel copy per run, instead of file by file. It
// returns which entries were read whole without an error; an entry of a
// run that failed is not, and is left to the per-entry path, which names
// the failure and the entry it hit. Nil: nothing was read.
func (r *runner) readStored(s storedReader, nEntries, threads int) []bool {
	spans := s.StoredSpans()
	if len(spans) == 0 {
		return nil
	}
	shares := shareRuns(spans, threads)
	failed := make([][]stretch, len(shares))
	done := make(chan int, len(shares))
	for w := range shares {
		read := func() {
			for _, q := range shares[w] {
				if r.f.Context.Err() != nil || !r.sendRun(s, q) {
					failed[w] = append(failed[w], q)
				}
			}
			done <- w
		}
		if w == len(shares)-1 {
			read() // this goroutine takes the last share
		} else {
			go read()
		}
	}
	for range shares {
		<-done
	}
	ok := make([]bool, nEntries)
	for _, sp := range spans {
		ok[sp.Entry] = true
	}
	for _, f := range failed {
		for _, q := range f {
			for _, sp := range spans[q.lo:q.hi] {
				ok[sp.Entry] = false
			}
		}
	}
	return ok
}

// storedEntry stands for the entries of a run given to the discard sink.
var storedEntry = archive.Entry{Type: archive.TypeFile}

// sendRun reads run q into the discard sink and counts it as output (once
// read, as the per-entry path does, so that --max-ratio sees it read). On a
// failure it takes its count back: the entries are read again one by one.
func (r *runner) sendRun(s storedReader, q stretch) bool {
	rc := s.OpenSpan(q.off, q.n)
	err := extract.Discard{}.Put(&storedEntry, rc)
	rc.Close()
	if err == nil {
		if err = r.lim.add(q.data); err != nil {
			r.lim.add(-q.data)
		}
	}
	if err != nil {
		return false
	}
	r.out.Add(q.data)
	return true
}

// shareRuns joins the spans (sorted, not overlapping) that follow each
// other, up to maxGap apart, into runs and cuts them into at most threads
// shares of about as many bytes each, in file order.
func shareRuns(spans []archive.Span, threads int) [][]stretch {
	var runs []stretch
	var total int64
	for i, sp := range spans {
		if sp.Len <= 0 {
			continue
		}
		if k := len(runs) - 1; k >= 0 && sp.Off-(runs[k].off+runs[k].n) <= maxGap {
			end := sp.Off + sp.Len
			total += end - (runs[k].off + runs[k].n)
			runs[k].n = end - runs[k].off
			runs[k].hi = i + 1
			continue
		}
		total += sp.Len
		runs = append(runs, stretch{off: sp.Off, n: sp.Len, lo: i, hi: i + 1})
	}
	threads = max(threads, 1)
	target := total/int64(threads) + 1
	shares := make([][]stretch, 0, threads)
	var cur []stretch
	var used int64
	for _, q := range runs {
		for q.n > 0 {
			take := q.n
			if len(shares) < threads-1 {
				take = min(take, target-used)
			}
			part := stretch{off: q.off, n: take, lo: q.lo, hi: q.hi}
			// The spans that meet part: those ending after its start and
			// starting before its end.
			for part.lo < part.hi && spans[part.lo].Off+spans[part.lo].Len <= part.off {
				part.lo++
			}
			for part.hi > part.lo && spans[part.hi-1].Off >= part.off+part.n {
				part.hi--
			}
			for _, sp := range spans[part.lo:part.hi] {
				part.data += min(sp.Off+sp.Len, part.off+part.n) - max(sp.Off, part.off)
			}
			cur = append(cur, part)
			q.off, q.n, q.lo = q.off+take, q.n-take, part.hi-1
			if used += take; used >= target && len(shares) < threads-1 {
				shares, cur, used = append(shares, cur), nil, 0
			}
		}
	}
	if len(cur) > 0 {
		shares = append(shares, cur)
	}
	return shares
}
