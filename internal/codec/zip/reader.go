package zip

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// maxEndCandidates bounds how many end record signatures are tried.
const maxEndCandidates = 4

// maxLinkLen bounds a symbolic link's target, which is read into memory.
const maxLinkLen = 64 << 10

// Open opens a zip archive. A seekable input is read through its central
// directory (the result is a *Reader, which also implements
// archive.RandomAccess); standard input and pipes are streamed from the
// local headers (a *StreamReader).
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	if in.RA == nil {
		return NewStreamReader(in.R, opt), nil
	}
	r, err := NewReader(in, opt)
	if errors.Is(err, errNoEnd) && startsWithLocal(in.RA) {
		// A zip cut short, or written by a tool that never finished it:
		// read what the local headers describe, as from a pipe.
		opt.Tolerate(archive.WarnNoCentralDirectory, "zip: no end of central directory record: reading the entries by their local headers")
		return NewStreamReader(in.R, opt), nil
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// startsWithLocal reports whether ra begins with a local header (after the
// marker of a split set that fit on one disk).
func startsWithLocal(ra io.ReaderAt) bool {
	var b [8]byte
	n, _ := ra.ReadAt(b[:], 0)
	if n >= 4 && binary.LittleEndian.Uint32(b[:]) == sigLocal {
		return true
	}
	return n == 8 && binary.LittleEndian.Uint32(b[:]) == sigSpanMarker && binary.LittleEndian.Uint32(b[4:]) == sigLocal
}

// maskedLocal reports whether the first local header has its fields masked,
// as PKWARE's central directory encryption leaves them.
func maskedLocal(ra io.ReaderAt) bool {
	var b [8]byte
	if n, _ := ra.ReadAt(b[:], 0); n < 8 || binary.LittleEndian.Uint32(b[:]) != sigLocal {
		return false
	}
	return binary.LittleEndian.Uint16(b[6:])&flagMasked != 0
}

// Reader reads a zip archive through its central directory. Entries come
// in central directory order; Open(i) gives concurrent access to any.
type Reader struct {
	opt     *archive.Options
	ra      io.ReaderAt
	vols    *volumeSet
	dir     *directory
	limit   int64
	entries []*archive.Entry

	pwOnce sync.Once
	pw     []string
	pwErr  error

	next int // index of the next entry Next returns
	cur  int // index of the current entry, -1 before the first
	data io.Reader
	err  error // the current entry's error, returned by Read
	pipe *pipeline
}

// NewReader reads the central directory of the seekable input in (in.RA,
// in.Size), joining the other parts of a split or spanned set found
// beside in.Path.
func NewReader(in *archive.Input, opt *archive.Options) (*Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	r := &Reader{opt: opt, ra: in.RA, limit: opt.Limit(), cur: -1}
	size := in.Size
	vols, err := findVolumes(in, opt)
	if err != nil {
		return nil, err
	}
	if vols != nil {
		r.vols, r.ra, size = vols, vols.ra, vols.ra.size()
	}
	// Try the last end record first, then earlier candidates.
	var firstErr error
	for skip := 0; skip < maxEndCandidates && r.dir == nil; skip++ {
		e, err := findEnd(r.ra, size, skip)
		if err == nil && e.encryptedDir {
			err = errEncryptedDir
		}
		if err == nil {
			r.dir, err = readDirectory(r.ra, size, e, vols.diskStarts(), r.limit)
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			if !errors.Is(err, archive.ErrCorrupt) {
				break
			}
		}
	}
	if r.dir == nil && errors.Is(firstErr, archive.ErrCorrupt) && maskedLocal(r.ra) {
		firstErr = errEncryptedDir
	}
	if r.dir == nil {
		r.Close()
		return nil, firstErr
	}
	if r.dir.duplicates > 0 {
		opt.Warnf(fmt.Sprintf("zip: %d repeated central directory records ignored", r.dir.duplicates))
	}
	// The entries and their CRC values in two allocations, not two per
	// entry.
	r.entries = make([]*archive.Entry, len(r.dir.files))
	slab := make([]archive.Entry, len(r.dir.files))
	sums := make([]byte, 4*len(r.dir.files))
	for i, h := range r.dir.files {
		h.fillEntry(&slab[i], sums[4*i:4*i:4*i+4])
		r.entries[i] = &slab[i]
	}
	return r, nil
}

// entry builds the archive.Entry of h (without a symlink's target).
func (h *header) entry() *archive.Entry {
	e := new(archive.Entry)
	h.fillEntry(e, nil)
	return e
}

// fillEntry sets e to the archive.Entry of h (without a symlink's
// target), appending the CRC value to sum.
func (h *header) fillEntry(e *archive.Entry, sum []byte) {
	t, mode := h.typeAndMode()
	*e = archive.Entry{
		Name: h.name, Type: t, Size: int64(h.usize), PackedSize: int64(h.csize),
		Mode: mode, ModTime: h.modTime, AccessTime: h.accessTime,
		Method: methodName(h.realMethod()), Encrypted: h.encrypted(), Comment: h.comment,
	}
	if h.usizeUnknown {
		e.Size, e.PackedSize = -1, -1
	}
	if h.hasCRC() && !h.usizeUnknown {
		e.Checksum = verify.CRC32
		e.ChecksumValue = binary.BigEndian.AppendUint32(sum, h.crc)
	}
	if t == archive.TypeDir || t == archive.TypeOther {
		e.Size = 0
	}
}

// Comment returns the archive comment.
func (r *Reader) Comment() string { return r.dir.comment }

// passwords returns the candidate passwords, asking once.
func (r *Reader) passwords() ([]string, error) {
	r.pwOnce.Do(func() { r.pw, r.pwErr = r.opt.PasswordList() })
	return r.pw, r.pwErr
}

// Next returns the next entry. A symbolic link's target is read (and
// verified) here; if that fails, Next returns the error and the entry
// after it is returned by the following call.
func (r *Reader) Next() (*archive.Entry, error) {
	r.pipe.finishIfAny()
	r.data, r.err = nil, nil
	if r.next >= len(r.dir.files) {
		r.cur = len(r.dir.files)
		return nil, io.EOF
	}
	r.cur = r.next
	r.next++
	e := r.entries[r.cur]
	if e.Type == archive.TypeSymlink && e.Linkname == "" {
		target, err := r.readLink(r.cur)
		if err != nil {
			r.err = err
			return nil, err
		}
		e.Linkname = target
	}
	return e, nil
}

func (p *pipeline) finishIfAny() {
	if p != nil {
		p.finish()
	}
}

// readLink reads entry i's data as a link target.
func (r *Reader) readLink(i int) (string, error) {
	h := r.dir.files[i]
	if h.usize > maxLinkLen {
		return "", archive.Corruptf("zip: symbolic link %q has a %d-byte target", h.name, h.usize)
	}
	rc, err := r.Open(i)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	buf := make([]byte, h.usize)
	if _, err := io.ReadFull(rc, buf); err != nil {
		return "", dataError(h, err)
	}
	// Read to the end so the checks run.
	var one [1]byte
	if n, err := rc.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = archive.Errorf(ErrSize, "zip: %q is longer than its header says", h.name)
		}
		return "", err
	}
	return string(buf), nil
}

// Read reads the current entry's data, verified at its end.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.cur < 0 || r.cur >= len(r.dir.files) {
		return 0, io.EOF
	}
	if r.data == nil {
		if t := r.entries[r.cur].Type; t != archive.TypeFile {
			return 0, io.EOF
		}
		if r.pipe == nil {
			r.pipe = newPipeline()
		}
		r.pipe.opt = r.opt
		d, err := r.pipe.open(r.ra, r.dir.files[r.cur], r.passwords, r.limit)
		if err != nil {
			r.err = err
			return 0, err
		}
		r.data = d
	}
	n, err := r.data.Read(p)
	if err != nil {
		r.err = err
	}
	return n, err
}

// Close releases the other volumes of a set.
func (r *Reader) Close() error {
	r.pipe.finishIfAny()
	if r.vols != nil {
		return r.vols.Close()
	}
	return nil
}

// Entries returns every entry of the archive, with symbolic links'
// targets read. It implements archive.RandomAccess.
func (r *Reader) Entries() ([]*archive.Entry, error) {
	for i, e := range r.entries {
		if e.Type == archive.TypeSymlink && e.Linkname == "" {
			target, err := r.readLink(i)
			if err != nil {
				return nil, &archive.EntryError{Entry: e.Name, Err: err}
			}
			e.Linkname = target
		}
	}
	return r.entries, nil
}

var pipelines = sync.Pool{New: func() any { return newPipeline() }}

// Open returns a reader of entry i's verified data. It is safe for
// concurrent use; each reader must be closed.
func (r *Reader) Open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(r.dir.files) {
		return nil, archive.Errorf(archive.ErrCorrupt, "zip: no entry %d", i)
	}
	p := pipelines.Get().(*pipeline)
	p.opt = r.opt
	d, err := p.open(r.ra, r.dir.files[i], r.passwords, r.limit)
	if err != nil {
		p.finish()
		pipelines.Put(p)
		return nil, err
	}
	return &entryReader{r: d, p: p}, nil
}

// entryReader is what Open returns; Close gives its pipeline back. It is
// allocated per Open (not kept in the pooled pipeline) so that a second
// Close cannot release a pipeline someone else holds.
type entryReader struct {
	r io.Reader
	p *pipeline
}

func (e *entryReader) Read(b []byte) (int, error) {
	if e.p == nil {
		return 0, io.ErrClosedPipe
	}
	return e.r.Read(b)
}

func (e *entryReader) Close() error {
	if p := e.p; p != nil {
		e.p = nil
		p.finish()
		p.opt = nil
		pipelines.Put(p)
	}
	return nil
}

var (
	_ archive.RandomAccess = (*Reader)(nil)
	_ archive.Commenter    = (*Reader)(nil)
)
