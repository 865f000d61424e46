package iso9660

import (
	"io"
	"slices"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
)

// maxDepth bounds directory nesting (Rock Ridge lifts ECMA-119's limit of
// 8; real trees stay far below this).
const maxDepth = 1024

// extent is one contiguous run of a file's data.
type extent struct {
	start int64 // byte offset in the image
	size  int64
}

// file is an entry and where its data are.
type file struct {
	entry   archive.Entry
	extents []extent
	zf      *zisofsInfo
	boot    bool // an El Torito boot image: a view of the image
}

// Reader reads an ISO 9660 image. It implements archive.Reader and
// archive.RandomAccess: entries come in directory order, parents first.
type Reader struct {
	*archive.ListReader
	ra    io.ReaderAt
	size  int64
	opt   *archive.Options
	files []*file

	// stored are the extents of the files read as they are (neither
	// zisofs nor boot images), by offset, none overlapping another.
	stored []archive.Span

	// byStart are the files with data, as linkShared sorted them:
	// first extent's sector << 31 | index.
	byStart []uint64
}

// Open reads the directory tree of the image in in.RA. An image cannot be
// read from a pipe: its directories point anywhere in it.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if in.RA == nil {
		return nil, archive.Unsupportedf("iso9660: an image cannot be read from a pipe; give it as a file")
	}
	return NewReader(in.RA, in.Size, opt)
}

// NewReader reads the volume descriptors and the directory tree of the
// image of size bytes in ra.
func NewReader(ra io.ReaderAt, size int64, opt *archive.Options) (*Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	primary, joliet, catalog, err := descriptors(ra, size)
	if err != nil {
		return nil, err
	}
	r := &Reader{ra: ra, size: size, opt: opt}
	w := walker{r: r, dirs: map[uint32]bool{}}
	// Rock Ridge names and modes when the primary volume has them, else the
	// Joliet tree, else the plain ISO 9660 names.
	vol := primary
	if rr, skip, err := w.rockRidgeRoot(primary.root); err != nil {
		return nil, err
	} else if rr {
		w.rr = &susp{ra: ra, size: size, skip: skip}
	} else if joliet != nil {
		vol = joliet
	}
	w.joliet = vol.joliet
	if err := w.dir(vol.root, "", 0); err != nil {
		return nil, err
	}
	if err := r.linkShared(); err != nil {
		return nil, err
	}
	if catalog != 0 {
		if err := w.boot(catalog); err != nil {
			return nil, err
		}
	}
	if err := r.checkOverlap(); err != nil {
		return nil, err
	}
	list := make([]*archive.Entry, len(r.files))
	for i, f := range r.files {
		list[i] = &f.entry
	}
	r.ListReader = archive.NewListReader("iso9660", list, func(i int) (io.ReadCloser, error) { return r.data(r.files[i]) })
	return r, nil
}

// walker builds the entry list from the directory tree.
type walker struct {
	r      *Reader
	rr     *susp // nil without Rock Ridge
	joliet bool
	dirs   map[uint32]bool // directory extents entered (loops)
	links  map[uint64]int  // Rock Ridge serial number → first file (made at the first)

	// Files (with their entries) and extents are carved from slabs: one
	// allocation per slabSize files rather than two per file, and the list
	// of files grows by pointers.
	slab    []file
	extents []extent

	dirBufs   [][]byte // by nesting depth (see dirChunk)
	name      []byte   // a Joliet name decoded
	path      []byte   // an entry's name being put together
	sectorBuf [sectorSize]byte
}

// slabSize is how many files (and extents) one slab holds.
const slabSize = 256

// newFile returns a zeroed file from the current slab.
func (w *walker) newFile() *file {
	if len(w.slab) == cap(w.slab) {
		w.slab = make([]file, 0, slabSize)
	}
	w.slab = w.slab[:len(w.slab)+1]
	return &w.slab[len(w.slab)-1]
}

// extentList returns multi followed by last, in a slice of its own (the
// full slice expression keeps appends from running into the next file's).
func (w *walker) extentList(multi []extent, last extent) []extent {
	n := len(multi) + 1
	if n > slabSize {
		return append(slices.Clone(multi), last)
	}
	if cap(w.extents)-len(w.extents) < n {
		w.extents = make([]extent, 0, slabSize)
	}
	i := len(w.extents)
	w.extents = append(append(w.extents, multi...), last)
	return w.extents[i : i+n : i+n]
}

// rockRidgeRoot reports whether the root directory's "." record starts
// with a SUSP SP entry, and the bytes it says to skip in every system use
// area.
func (w *walker) rockRidgeRoot(root record) (bool, int, error) {
	b, err := w.read(w.sectorBuf[:], root.extent, int64(root.extent)*sectorSize, min(root.size, sectorSize))
	if err != nil {
		return false, 0, err
	}
	if len(b) == 0 || b[0] == 0 {
		return false, 0, nil
	}
	dot, _, err := parseRecord(b)
	if err != nil {
		return false, 0, err
	}
	sua := dot.sua
	if len(sua) >= 7 && string(sua[:2]) == "SP" && sua[4] == 0xBE && sua[5] == 0xEF {
		return true, int(sua[6]), nil
	}
	return false, 0, nil
}

// read reads n bytes (at most dirChunk) at byte off, in sector lba (for
// errors), into buf, grown to n when shorter.
func (w *walker) read(buf []byte, lba uint32, off int64, n uint32) ([]byte, error) {
	if off+int64(n) > w.r.size {
		return nil, archive.Corruptf("iso9660: directory at sector %d runs past the end of the image", lba)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	b := buf[:n]
	if _, err := w.r.ra.ReadAt(b, off); err != nil {
		return nil, readErr(err)
	}
	return b, nil
}

// sector reads the one sector lba into a buffer the walk reuses.
func (w *walker) sector(lba uint32) ([]byte, error) {
	return w.read(w.sectorBuf[:], lba, int64(lba)*sectorSize, sectorSize)
}

// dirChunk is how much of a directory is read at once: a large directory
// goes through one buffer per nesting depth, reused by every directory at
// that depth, rather than a buffer of its size each.
const dirChunk = 16 * sectorSize

// dir adds the entries of the directory d, whose path is prefix, and
// descends into its subdirectories.
func (w *walker) dir(d record, prefix string, depth int) error {
	if depth > maxDepth {
		return archive.Corruptf("iso9660: directories nested more than %d deep", maxDepth)
	}
	if w.dirs[d.extent] {
		return archive.Corruptf("%w at sector %d", errDirLoop, d.extent)
	}
	w.dirs[d.extent] = true
	if int64(d.size) > w.r.opt.Limit() {
		return archive.Limitf("iso9660: a directory of %d bytes exceeds the memory limit", d.size)
	}
	if int64(d.extent)*sectorSize+int64(d.size) > w.r.size {
		return archive.Corruptf("iso9660: directory at sector %d runs past the end of the image", d.extent)
	}
	for len(w.dirBufs) <= depth {
		w.dirBufs = append(w.dirBufs, nil)
	}
	var multi []extent // extents of a multi-extent file so far
	for start := int64(0); start < int64(d.size); start += dirChunk {
		// Chunks end on sectors, which records do not cross.
		data, err := w.read(w.dirBufs[depth], d.extent, int64(d.extent)*sectorSize+start, uint32(min(dirChunk, int64(d.size)-start)))
		if err != nil {
			return err
		}
		w.dirBufs[depth] = data
		// Every directory starts with its "." record.
		if start == 0 && (len(data) < minRecord || data[0] < minRecord || data[32] != 1 || data[33] != 0) {
			return archive.Corruptf("iso9660: the directory at sector %d does not start with its own record", d.extent)
		}
		for pos := 0; pos < len(data); {
			if data[pos] == 0 {
				// Records do not cross sectors: the rest of this one is padding.
				pos = (pos/sectorSize + 1) * sectorSize
				continue
			}
			end := min((pos/sectorSize+1)*sectorSize, len(data))
			rec, n, err := parseRecord(data[pos:end])
			if err != nil {
				return err
			}
			pos += n
			if len(rec.name) == 1 && (rec.name[0] == 0 || rec.name[0] == 1) {
				continue // "." and ".."
			}
			if rec.flags&flagAssociated != 0 {
				continue // a Macintosh resource fork or the like
			}
			if rec.flags&flagMultiExtent != 0 && !rec.dir() {
				multi = append(multi, extent{int64(rec.extent) * sectorSize, int64(rec.size)})
				continue
			}
			exts := w.extentList(multi, extent{int64(rec.extent) * sectorSize, int64(rec.size)})
			multi = multi[:0]
			if err := w.entry(rec, exts, prefix, depth); err != nil {
				return err
			}
		}
	}
	if len(multi) > 0 {
		return archive.Corruptf("iso9660: %s: a multi-extent file has no last extent", prefix)
	}
	return nil
}

// entry adds the entry of one record (with all its extents).
func (w *walker) entry(rec record, exts []extent, prefix string, depth int) error {
	f := w.newFile()
	e := &f.entry
	e.Type, e.PackedSize, e.Mode = archive.TypeFile, -1, 0o644
	var rr rockRidge
	if w.rr != nil {
		var err error
		if rr, err = w.rr.parse(rec.sua); err != nil {
			return err
		}
		if rr.relocated {
			return nil // listed where its CL entry is
		}
	}
	name := rr.name
	switch {
	case rr.hasName:
	case w.joliet:
		w.name = appendUCS2(w.name[:0], rec.name)
		name = isoName(w.name)
	default:
		name = isoName(rec.name)
	}
	if len(name) == 0 || string(name) == "." || string(name) == ".." {
		return archive.Corruptf("iso9660: %s: a record names %q", prefix, name)
	}
	w.path = append(append(w.path[:0], prefix...), name...)
	e.Name = string(w.path) // one allocation, not the name's and the sum's
	if rec.dir() || rr.hasChild {
		e.Type, e.Mode, e.Size = archive.TypeDir, 0o755, 0
	}
	if rr.hasMode {
		typ, mode, dev := posixMode(rr.mode)
		e.Mode, e.Device = mode, dev
		if !rec.dir() && !rr.hasChild {
			e.Type = typ
		}
	}
	// The record's own date only where Rock Ridge gives none.
	if e.ModTime = rr.mtime; e.ModTime.IsZero() {
		e.ModTime = shortTime(rec.date)
	}
	e.AccessTime = rr.atime
	if rr.isLink {
		e.Type, e.Linkname = archive.TypeSymlink, rr.link
	}
	if e.Type == archive.TypeDir {
		w.add(f)
		d := rec
		if rr.hasChild {
			d = record{extent: rr.childLink}
			b, err := w.sector(rr.childLink)
			if err != nil {
				return err
			}
			dot, _, err := parseRecord(b)
			if err != nil {
				return err
			}
			d.size = dot.size
		}
		return w.dir(d, e.Name+"/", depth+1)
	}
	if e.Type != archive.TypeFile {
		e.Size = 0
		w.add(f)
		return nil
	}
	var size int64
	for _, x := range exts {
		size += x.size
	}
	e.Size, e.PackedSize = size, size
	f.extents, f.zf = exts, rr.zf
	if rr.zf != nil {
		e.Size, e.Method = int64(rr.zf.size), "zisofs"
	}
	// One file under several names: the same Rock Ridge serial number
	// here, the same first extent in linkShared. It is a hard link to the
	// first, so that its data are neither read again nor counted again.
	if size > 0 && rr.serial != 0 {
		if first, seen := w.links[rr.serial]; seen && sameData(w.r.files[first], f) {
			e.Type, e.Linkname, e.Size = archive.TypeHardlink, w.r.files[first].entry.Name, 0
			f.extents, f.zf = nil, nil
			w.add(f)
			return nil
		}
		if w.links == nil {
			w.links = map[uint64]int{}
		}
		w.links[rr.serial] = len(w.r.files)
	}
	w.add(f)
	return nil
}

// linkShared makes every file whose data are those of an earlier file
// (the same extents, the first shared) a hard link to the earliest. Files
// sharing a first extent with different data stay: checkOverlap refuses
// them. Past 2^31 entries (half a terabyte of them) it refuses the image.
func (r *Reader) linkShared() error {
	// By first extent, then list order: the owner of each run comes first.
	// A first extent starts on a sector (a uint32) and an index below 2^31
	// fits in 31 bits, so both go in one number, sorted without a
	// comparison function.
	if uint64(len(r.files)) > 1<<31 {
		return archive.Limitf("iso9660: more than 2^31 entries")
	}
	keys := make([]uint64, 0, len(r.files))
	for i, f := range r.files {
		if f.entry.Type == archive.TypeFile && len(f.extents) > 0 && f.entry.PackedSize > 0 {
			keys = append(keys, uint64(f.extents[0].start/sectorSize)<<31|uint64(i))
		}
	}
	slices.Sort(keys)
	r.byStart = keys
	at := func(k uint64) *file { return r.files[k&(1<<31-1)] }
	for k := 0; k < len(keys); {
		owner := at(keys[k])
		j := k + 1
		for ; j < len(keys) && keys[j]>>31 == keys[k]>>31; j++ {
			f := at(keys[j])
			if f.extents[0] == owner.extents[0] && sameData(owner, f) {
				e := &f.entry
				e.Type, e.Linkname, e.Size = archive.TypeHardlink, owner.entry.Name, 0
				f.extents, f.zf, f.boot = nil, nil, false
			}
		}
		k = j
	}
	return nil
}

func sameData(a, b *file) bool {
	if len(a.extents) != len(b.extents) || (a.zf == nil) != (b.zf == nil) {
		return false
	}
	for i := range a.extents {
		if a.extents[i] != b.extents[i] {
			return false
		}
	}
	return true
}

func (w *walker) add(f *file) { w.r.files = append(w.r.files, f) }

// checkOverlap refuses files whose extents overlap another file's in part
// (files sharing one are hard links by then), as an image built to make a
// small extent count many times over: a file's extents overlapping each
// other count too.
func (r *Reader) checkOverlap() error {
	// The files with data, in the order of their first extents (files
	// with none have only empty extents, which overlap nothing), so that
	// Overlap's sort finds the spans mostly in order.
	n := 0
	for _, k := range r.byStart {
		if f := r.files[k&(1<<31-1)]; f.entry.Type == archive.TypeFile && !f.boot {
			n += len(f.extents)
		}
	}
	spans := make([]archive.Span, 0, n)
	for _, k := range r.byStart {
		i := int(k & (1<<31 - 1))
		f := r.files[i]
		if f.entry.Type != archive.TypeFile || f.boot {
			continue
		}
		for _, x := range f.extents {
			spans = append(spans, archive.Span{Off: x.start, Len: x.size, Entry: i})
		}
	}
	if a, b, ok := archive.Overlap(spans, true); ok {
		return &archive.OverlapError{Format: "iso9660", A: r.files[a].entry.Name, B: r.files[b].entry.Name}
	}
	// Sorted by Overlap: what StoredSpans gives, zisofs files left out.
	r.stored = slices.DeleteFunc(spans, func(s archive.Span) bool { return s.Len <= 0 || r.files[s.Entry].zf != nil })
	return nil
}

func (r *Reader) data(f *file) (io.ReadCloser, error) {
	if f.zf != nil {
		return newZisofs(r.ra, f.extents, *f.zf, r.opt.Limit())
	}
	x := extentReaders.Get().(*extentReader)
	*x = extentReader{ra: r.ra, rest: f.extents}
	return x, nil
}

// extentReaders are reused from file to file: Close gives one back.
var extentReaders = sync.Pool{New: func() any { return new(extentReader) }}

// extentReader reads a file's extents in order, each to its last byte: an
// image ending before one does is errTruncated.
type extentReader struct {
	ra   io.ReaderAt
	cur  extent   // what is left of the extent being read
	rest []extent // the extents after it
}

func (x *extentReader) Read(p []byte) (int, error) {
	for x.cur.size == 0 {
		if len(x.rest) == 0 {
			return 0, io.EOF
		}
		x.cur, x.rest = x.rest[0], x.rest[1:]
	}
	if int64(len(p)) > x.cur.size {
		p = p[:x.cur.size]
	}
	n, err := x.ra.ReadAt(p, x.cur.start)
	x.cur.start += int64(n)
	x.cur.size -= int64(n)
	switch {
	case n == len(p):
		return n, nil
	case err == nil || err == io.EOF:
		if n == 0 {
			return 0, errTruncated
		}
		return n, nil
	}
	return n, err
}

// WriteTo hands each extent to w as a byte range of the image when w is
// an archive.RangeWriter and the image an archive.RangeSource (the kernel
// may then copy it to w's file), else copies through a buffer.
func (x *extentReader) WriteTo(w io.Writer) (int64, error) {
	rw, ok := w.(archive.RangeWriter)
	src, ok2 := x.ra.(archive.RangeSource)
	if !ok || !ok2 {
		return archive.Copy(w, struct{ io.Reader }{x})
	}
	var done int64
	for {
		for x.cur.size == 0 {
			if len(x.rest) == 0 {
				return done, nil
			}
			x.cur, x.rest = x.rest[0], x.rest[1:]
		}
		k, err := src.SendRange(rw, x.cur.start, x.cur.size)
		x.cur.start += k
		x.cur.size -= k
		done += k
		if err != nil {
			return done, err
		}
		if x.cur.size > 0 {
			return done, errTruncated
		}
	}
}

// Close gives x back for another file; x is not used again.
func (x *extentReader) Close() error {
	if x.ra != nil {
		*x = extentReader{}
		extentReaders.Put(x)
	}
	return nil
}
