package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
)

// maxParked bounds the decoders (each with its window) kept between Open
// calls: one per goroutine working through a folder, plus a few folders
// whose symlinks are still to be opened.
func maxParked() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// randomState is what RandomAccess shares between goroutines.
type randomState struct {
	mu     sync.Mutex            // guards parked and the entries' Linkname
	parked map[int]*folderStream // folder → a stream stopped between entries
	links  map[int][]int         // folder → its symlink entries, by offset
}

// Entries returns every entry (anti-items left out) without decoding
// anything. A symlink's target is its data: Linkname is set once that has
// been decoded — while Open reads the folder for other entries (targets are
// captured on the way), or by Open of the symlink itself, which does it
// before returning. Read Linkname after Open(i) returned.
func (r *Reader) Entries() ([]*archive.Entry, error) {
	return r.entries, nil
}

// linkAt returns the first symlink entry of folder idx at or after offset
// pos whose target is not known yet, or -1.
func (r *Reader) linkAt(idx int, pos uint64) int {
	links := r.ra.links[idx]
	j := sort.Search(len(links), func(k int) bool { return r.db.files[r.fileOf[links[k]]].offset >= pos })
	for ; j < len(links); j++ {
		r.ra.mu.Lock()
		known := r.entries[links[j]].Linkname != ""
		r.ra.mu.Unlock()
		if !known {
			return links[j]
		}
	}
	return -1
}

// advance decodes fs up to offset to, capturing the targets of the
// symlinks it passes so that they need no decoding pass of their own.
func (r *Reader) advance(fs *folderStream, to uint64, buf []byte) error {
	for fs.err == nil && fs.pos < to {
		next := to
		li := r.linkAt(fs.idx, fs.pos)
		if li >= 0 {
			next = min(next, r.db.files[r.fileOf[li]].offset)
		}
		if fs.pos < next {
			if err := fs.skip(next-fs.pos, buf); err != nil {
				return err
			}
			continue
		}
		if _, err := r.captureLink(fs, li, buf); err != nil && fs.err == nil {
			// Left unknown; step over its bytes.
			fl := &r.db.files[r.fileOf[li]]
			if end := fl.offset + fl.size; fs.pos < end {
				if err := fs.skip(end-fs.pos, buf); err != nil {
					return err
				}
			}
		}
	}
	return fs.err
}

// captureLink reads symlink entry i's target from fs, which is at its
// start; a target that fails its CRC is left unknown (Open reports it).
func (r *Reader) captureLink(fs *folderStream, i int, buf []byte) (string, error) {
	fl := &r.db.files[r.fileOf[i]]
	var er entryReader
	er.reset(fs, fl, func() []string { return r.folderNames(fl.folder) })
	target, err := readLink(&er, buf)
	if err == nil {
		// Set once: a caller may read Linkname, unlocked, once an Open
		// has seen it set; a second capture (two passes over the same
		// folder at once) must not write it again.
		r.ra.mu.Lock()
		if r.entries[i].Linkname == "" {
			r.entries[i].Linkname = target
		}
		r.ra.mu.Unlock()
	}
	return target, err
}

// Folders lists, for each folder, the indexes of its regular-file entries
// in decoding order. All entries of a solid folder come from one decoding
// pass: a caller working on several cores should give each folder to one
// goroutine, which opens its entries in this order, reading each to the
// end and closing it before opening the next; Open then continues the same
// pass instead of decoding the folder again from its start. Symlinks are
// left out: their targets are captured as the folder is decoded, so that
// opening them afterwards decodes nothing. Folders without regular files
// are left out.
func (r *Reader) Folders() [][]int {
	out := make([][]int, len(r.db.si.folders))
	for i, fi := range r.fileOf {
		if fl := &r.db.files[fi]; fl.hasStream && r.entries[i].Type == archive.TypeFile {
			out[fl.folder] = append(out[fl.folder], i)
		}
	}
	groups := out[:0]
	for _, g := range out {
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

// Open returns a reader of entry i's data that verifies its CRC at the end
// (a mismatch is returned instead of io.EOF). It is safe for concurrent
// use. Entries of different folders decode independently; for entries of
// one solid folder see Folders.
func (r *Reader) Open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(r.entries) {
		return nil, fmt.Errorf("7z: no entry %d", i)
	}
	fl := &r.db.files[r.fileOf[i]]
	if !fl.hasStream {
		return io.NopCloser(eofReader{}), nil
	}
	fs := (*folderStream)(nil)
	if e := r.entries[i]; e.Type == archive.TypeSymlink {
		r.ra.mu.Lock()
		target := e.Linkname
		r.ra.mu.Unlock()
		if target == "" {
			if fs = r.unpark(fl); fs == nil {
				fs = r.openFolderStream(fl.folder)
			}
			buf := discardPool.Get().(*[32 << 10]byte)
			err := r.advance(fs, fl.offset, buf[:])
			if err == nil {
				target, err = r.captureLink(fs, i, buf[:])
			}
			discardPool.Put(buf)
			if err != nil {
				fs.release()
				return nil, err
			}
			r.park(fs)
		}
		// Decoded and CRC-checked.
		return io.NopCloser(strings.NewReader(target)), nil
	}
	if fs = r.unpark(fl); fs == nil {
		fs = r.openFolderStream(fl.folder)
	}
	e := &raEntry{r: r}
	e.er.reset(fs, fl, func() []string { return r.folderNames(fl.folder) })
	return e, nil
}

// unpark takes a parked stream of fl's folder that has not passed fl.
func (r *Reader) unpark(fl *file) *folderStream {
	r.ra.mu.Lock()
	defer r.ra.mu.Unlock()
	fs := r.ra.parked[fl.folder]
	if fs == nil || fs.pos > fl.offset {
		return nil
	}
	delete(r.ra.parked, fl.folder)
	return fs
}

// park keeps a healthy stream for the folder's next entry.
func (r *Reader) park(fs *folderStream) {
	if fs.err != nil || fs.pos >= fs.f.unpackSize() {
		fs.release()
		return
	}
	r.ra.mu.Lock()
	defer r.ra.mu.Unlock()
	if r.ra.parked == nil {
		r.ra.parked = make(map[int]*folderStream)
	}
	if old := r.ra.parked[fs.idx]; old != nil {
		old.release()
	} else if len(r.ra.parked) >= maxParked() {
		for k, old := range r.ra.parked {
			old.release()
			delete(r.ra.parked, k)
			break
		}
	}
	r.ra.parked[fs.idx] = fs
}

// raEntry is an entry opened by Open.
type raEntry struct {
	r      *Reader
	er     entryReader
	buf    []byte
	closed bool
}

var discardPool = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func (e *raEntry) Read(p []byte) (int, error) {
	if e.closed {
		return 0, errReadAfterClose
	}
	if e.er.err == nil {
		if at := e.er.fl.offset + e.er.fl.size - e.er.remain; e.er.fs.pos < at {
			buf := discardPool.Get().(*[32 << 10]byte)
			err := e.r.advance(e.er.fs, at, buf[:])
			discardPool.Put(buf)
			if err != nil {
				e.er.err = err
			}
		}
	}
	return e.er.Read(p)
}

// Close parks the folder's decoder when the entry was read to its end, so
// that opening the folder's next entry continues from here.
func (e *raEntry) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if e.er.remain == 0 && e.er.err == io.EOF {
		e.r.park(e.er.fs)
	} else {
		e.er.fs.release()
	}
	return nil
}

var errReadAfterClose = errors.New("7z: read after close")

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
