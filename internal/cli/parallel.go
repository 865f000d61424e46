package cli

import (
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/formats"
)

// folderer is implemented by random-access readers whose entries come in
// groups (7z solid folders) that one goroutine must read in order.
type folderer interface{ Folders() [][]int }

// parallel processes a seekable, indexed archive on several cores: entries
// (or solid groups of them) are opened independently and given to put from
// a pool of goroutines. Directories go first and links last, in archive
// order, so the result is the same as a sequential run. It returns false,
// having done nothing, when the archive does not allow it; then the caller
// reads sequentially.
func (r *runner) parallel(path string, a *formats.Archive, put func(e *archive.Entry, data io.Reader) error) bool {
	ra, ok := a.Reader.(archive.RandomAccess)
	threads := r.opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	// One thread still reads an image's stored files in runs (readStored).
	_, runs := ra.(storedReader)
	if !ok || threads < 2 && !(runs && r.discardRuns) || a.Size < 0 {
		return false
	}
	entries, err := ra.Entries()
	if err != nil {
		return false // the sequential path reports it with the entry it concerns
	}
	if !independent(entries) || r.lim.entry(len(entries)) != nil {
		return false // the sequential path reports the limit at the right entry
	}
	results := make([]error, len(entries))
	sizes := make([]int64, len(entries))
	done := make([]bool, len(entries))
	one := func(i int, m *entryMeter) {
		e := entries[i]
		rc, err := ra.Open(i)
		if err == nil {
			r.setEntry(e.Name)
			err = put(e, m.reader(rc))
			sizes[i] = m.n
			if cerr := rc.Close(); err == nil && cerr != nil {
				err = cerr
			}
		}
		results[i] = err
	}
	// Directories first, in order.
	for i, e := range entries {
		if e.Type == archive.TypeDir {
			results[i], done[i] = put(e, strings.NewReader("")), true
		}
	}
	// Data read only to be discarded: stored files in long runs of the
	// archive file, not one by one.
	if s, _ := ra.(storedReader); runs && r.discardRuns {
		for i, read := range r.readStored(s, len(entries), threads) {
			if read {
				sizes[i], done[i] = entries[i].Size, true
			}
		}
	}
	left := false // file data still to read
	for i, e := range entries {
		if e.Type == archive.TypeFile && !done[i] {
			left = true
			break
		}
	}
	var groups [][]int
	if f, ok := ra.(folderer); ok && left {
		groups = f.Folders()
	} else if left {
		for i, e := range entries {
			if e.Type == archive.TypeFile && !done[i] {
				groups = append(groups, []int{i})
			}
		}
	}
	// File data on all cores, one group per goroutine at a time.
	work := make(chan []int)
	var wg sync.WaitGroup
	for w := 0; w < threads && w < len(groups); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := r.newMeter()
			for g := range work {
				for _, i := range g {
					if err := r.f.Context.Err(); err != nil {
						results[i] = err
						continue
					}
					one(i, m)
				}
			}
		}()
	}
	for _, g := range groups {
		g = slices.DeleteFunc(g, func(i int) bool { return done[i] })
		if len(g) == 0 {
			continue
		}
		for _, i := range g {
			done[i] = true
		}
		work <- g
	}
	close(work)
	wg.Wait()
	// Then the rest (empty files, links, specials) in order.
	m := r.newMeter()
	for i := range entries {
		if !done[i] {
			one(i, m)
		}
	}
	for i, e := range entries {
		r.entries++
		r.bytes += sizes[i]
		size := e.Size
		if size < 0 && results[i] == nil {
			size = sizes[i]
		}
		r.report(path, e, size, results[i])
	}
	return true
}

// independent reports whether entries can be written in any order: no name
// appears twice and no entry lies below a symlink of the archive.
func independent(entries []*archive.Entry) bool {
	seen := make(map[string]bool, len(entries))
	links := map[string]bool{}
	for _, e := range entries {
		n := strings.TrimSuffix(strings.TrimPrefix(e.Name, "./"), "/")
		if seen[n] {
			return false
		}
		seen[n] = true
		if e.Type == archive.TypeSymlink {
			links[n] = true
		}
	}
	if len(links) == 0 {
		return true
	}
	for n := range seen {
		for p := n; ; {
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
			if links[p] {
				return false
			}
		}
	}
	return true
}
