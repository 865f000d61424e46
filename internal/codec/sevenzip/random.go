package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
)

// maxParked bounds the decoders kept between Open calls.
const maxParked = 16

// randomState is what RandomAccess shares between goroutines.
type randomState struct {
	mu     sync.Mutex
	links  bool                  // symlink targets resolved
	parked map[int]*folderStream // folder → a stream stopped between entries
}

// Entries returns every entry (anti-items left out), with symlink targets
// read. It decodes the folders that hold symlinks up to their last one.
func (r *Reader) Entries() ([]*archive.Entry, error) {
	r.ra.mu.Lock()
	defer r.ra.mu.Unlock()
	if r.ra.links {
		return r.entries, nil
	}
	var buf []byte
	var fs *folderStream
	for i, e := range r.entries {
		fl := &r.db.files[r.fileOf[i]]
		if e.Type != archive.TypeSymlink || e.Linkname != "" {
			continue
		}
		if fs == nil || fs.idx != fl.folder || fs.pos > fl.offset {
			fs.release()
			fs = r.openFolderStream(fl.folder)
		}
		if buf == nil {
			buf = make([]byte, 32<<10)
		}
		var er entryReader
		er.reset(fs, fl, func() string { return r.folderNames(fl.folder) })
		target, err := readLink(&er, buf)
		if err != nil {
			fs.release()
			return nil, err
		}
		e.Linkname = target
	}
	fs.release()
	r.ra.links = true
	return r.entries, nil
}

// Folders lists, for each folder, the indexes of its regular-file entries
// in decoding order. All entries of a solid folder come from one decoding
// pass: a caller working on several cores should give each folder to one
// goroutine, which opens its entries in this order, reading each to the
// end and closing it before opening the next; Open then continues the same
// pass instead of decoding the folder again from its start. Symlinks are
// left out: once Entries has read their targets, opening them decodes
// nothing. Folders without regular files are left out.
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
	if e := r.entries[i]; e.Type == archive.TypeSymlink {
		r.ra.mu.Lock()
		resolved := r.ra.links
		r.ra.mu.Unlock()
		if resolved {
			// Read (and CRC-checked) by Entries.
			return io.NopCloser(strings.NewReader(e.Linkname)), nil
		}
	}
	fs := r.unpark(fl)
	if fs == nil {
		fs = r.openFolderStream(fl.folder)
	}
	e := &raEntry{r: r}
	e.er.reset(fs, fl, func() string { return r.folderNames(fl.folder) })
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
	} else if len(r.ra.parked) >= maxParked {
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
			err := e.er.position(buf[:])
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
