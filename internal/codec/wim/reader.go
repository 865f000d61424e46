// Package wim reads Windows Imaging files (.wim, split .swm sets, .esd)
// as an archive.Reader: the header, the blob table (the lookup table of
// every stored resource and its SHA-1), the metadata resource of each
// image (security data, then the directory tree of UTF-16 names,
// attributes, times, hard link groups and reparse points), and the file
// data in raw, chunked (XPRESS, LZX, LZMS) or solid (LZMS, version 3584)
// resources.
//
// Every image is read: into a folder N/ per image when there are several,
// at the top when there is one or Options.Image picks one. Every blob's
// SHA-1 is verified as it is read (metadata and reparse data included),
// and the integrity table, when there is one, before the first entry.
// Symbolic links and junctions become symbolic links (an absolute target
// fixed on capture is made relative to the image's root); hard link
// groups become hard links; alternate data streams, encrypted files and
// other reparse points are skipped with a warning.
//
// The format is Microsoft's ("Windows Imaging File Format", WIMGAPI) as
// wimlib documents it (header.h, blob_table.c, dentry.c, resource.c).
//
// # Security concerns
//
// Resources must lie within their part, chunk tables within their
// resource, blobs within their solid resource; metadata and chunks are
// sized from the file and bounded by the memory limit. A directory listed
// twice (a loop), nesting deeper than 1024, a name that is empty, "." or
// "..", holds a slash or comes twice in one directory, are corrupt.
package wim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Reader reads the images of a WIM. It implements archive.Reader and
// archive.Commenter (the images' names).
type Reader struct {
	parts  []*part
	opt    *archive.Options
	limit  int64
	blobs  map[[20]byte]*blob
	meta   []*blob  // metadata resource of each image, in order
	image  int      // next image to read (index in meta)
	last   int      // last image to read
	single bool     // images at the top, not in N/ folders
	names  []string // of the images, from the XML data, once read
	check  bool     // the integrity tables are still to be verified

	items []item
	next  int
	cur   io.Reader
	cache chunkCache
	vr    verify.Reader

	closers []io.Closer
}

// Open reads the WIM in in.RA; a split set is opened from its first part,
// the others found beside it (NAME2.swm, NAME3.swm…).
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if in.RA == nil {
		return nil, archive.Unsupportedf("wim: a WIM cannot be read from a pipe; give it as a file")
	}
	r, err := NewReader(in.RA, in.Size, in.Path, opt)
	if err != nil {
		return nil, err
	}
	// A listing reads no data, and does not read the whole file either.
	r.check = !in.Listing
	return r, nil
}

// NewReader reads the header, blob table and image list of the WIM of
// size bytes in ra; path (may be empty) locates the other parts of a
// split WIM.
func NewReader(ra io.ReaderAt, size int64, path string, opt *archive.Options) (*Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	r := &Reader{opt: opt, limit: opt.Limit(), blobs: map[[20]byte]*blob{}, check: true}
	r.cache.threads = opt.Threads
	r.cache.liveMin = liveMin
	if r.cache.threads <= 0 {
		r.cache.threads = runtime.GOMAXPROCS(0)
	}
	h, err := readHeader(ra, size)
	if err != nil {
		return nil, err
	}
	first := &part{ra: ra, size: size, hdr: h, name: path}
	if h.part != 1 {
		return nil, archive.Unsupportedf("wim: this is part %d of %d of a split WIM; open the first part", h.part, h.totalParts)
	}
	r.parts = []*part{first}
	if h.totalParts > 1 {
		if err := r.openParts(first); err != nil {
			r.Close()
			return nil, err
		}
	}
	for _, p := range r.parts {
		if err := r.readBlobTable(p); err != nil {
			r.Close()
			return nil, err
		}
	}
	if uint32(len(r.meta)) != h.images {
		r.Close()
		return nil, archive.Corruptf("wim: %d images, %d metadata resources", h.images, len(r.meta))
	}
	r.last = len(r.meta) - 1
	r.single = len(r.meta) == 1
	if opt.Image != 0 {
		if opt.Image < 0 || opt.Image > len(r.meta) {
			r.Close()
			return nil, archive.Unsupportedf("wim: no image %d (the WIM has %d)", opt.Image, len(r.meta))
		}
		r.image, r.last, r.single = opt.Image-1, opt.Image-1, true
	}
	return r, nil
}

// openParts opens NAME2.swm… beside the first part NAME.swm.
func (r *Reader) openParts(first *part) error {
	if first.name == "" {
		return archive.Unsupportedf("wim: a split WIM must be opened by name to find its other parts")
	}
	ext := filepath.Ext(first.name)
	base := strings.TrimSuffix(first.name, ext)
	for n := 2; n <= int(first.hdr.totalParts); n++ {
		name := base + strconv.Itoa(n) + ext
		f, err := r.opt.Open(name)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return archive.Errorf(archive.ErrMissingVolume, "wim: part %d of %d (%s) is missing", n, first.hdr.totalParts, name)
			}
			return err
		}
		r.closers = append(r.closers, f)
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		h, err := readHeader(f, fi.Size())
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if h.guid != first.hdr.guid || int(h.part) != n || h.totalParts != first.hdr.totalParts {
			return archive.Corruptf("wim: %s is not part %d of this split WIM", name, n)
		}
		r.parts = append(r.parts, &part{ra: f, size: fi.Size(), hdr: h, name: name})
	}
	return nil
}

// readAll reads a whole resource that is not solid (the blob table).
func (r *Reader) readResource(p *part, h reshdr, what string) ([]byte, error) {
	res, err := r.resource(p, h)
	if err != nil {
		return nil, err
	}
	if res.usize > r.limit {
		return nil, archive.Limitf("wim: %s of %d bytes exceeds the memory limit", what, res.usize)
	}
	b := &blob{res: res, size: res.usize}
	buf := make([]byte, res.usize)
	if _, err := readFull(&blobReader{b: b, cache: &r.cache, limit: r.limit}, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// resource makes the resource a non-solid header describes.
func (r *Reader) resource(p *part, h reshdr) (*resource, error) {
	if h.offset > p.size || h.size > p.size-h.offset {
		return nil, archive.Corruptf("wim: resource at %d of %d bytes outside %s", h.offset, h.size, p.name)
	}
	res := &resource{p: p, h: h, usize: int64(h.usize)}
	if h.usize > 1<<62 {
		return nil, archive.Corruptf("wim: resource of %d bytes", h.usize)
	}
	if h.flags&resCompressed == 0 {
		if h.size != res.usize {
			return nil, archive.Corruptf("wim: raw resource at %d stores %d bytes for %d", h.offset, h.size, h.usize)
		}
		return res, nil
	}
	ct, err := p.hdr.compression()
	if err != nil {
		return nil, err
	}
	if ct == compNone {
		return nil, archive.Corruptf("wim: compressed resource in an uncompressed WIM")
	}
	if err := checkChunkSize(ct, p.hdr.chunkSize, r.limit); err != nil {
		return nil, err
	}
	if res.usize == 0 {
		return nil, archive.Corruptf("wim: empty compressed resource at %d", h.offset)
	}
	res.ctype, res.chunkSize = ct, int64(p.hdr.chunkSize)
	res.setUnit(r.limit)
	return res, nil
}

// readBlobTable adds the blobs of part p: its own, and the metadata
// resources (from the first part).
func (r *Reader) readBlobTable(p *part) error {
	tab, err := r.readResource(p, p.hdr.blobTable, "blob table")
	if err != nil {
		return err
	}
	n := len(tab) / blobEntrySize
	// Solid resources are described by runs of entries with the solid
	// flag: the resources (size solidMagic) and the blobs in them, at
	// offsets in the run's resources taken end to end.
	var run []*resource
	for i := 0; i < n; i++ {
		e := tab[i*blobEntrySize:]
		h := parseReshdr(e)
		partNo := uint16(e[24]) | uint16(e[25])<<8
		refs := uint32(e[26]) | uint32(e[27])<<8 | uint32(e[28])<<16 | uint32(e[29])<<24
		var hash [20]byte
		copy(hash[:], e[30:50])
		if p.hdr.version != versionSolid {
			h.flags &^= resSolid
		}
		if h.flags&resSolid == 0 {
			run = nil
		} else if run == nil {
			if run, err = r.solidRun(p, tab[i*blobEntrySize:n*blobEntrySize]); err != nil {
				return err
			}
		}
		if h.flags&resSolid != 0 && h.usize == solidMagic {
			continue
		}
		// A solid blob's size is in the size field, its uncompressed size
		// field is zero.
		empty := h.usize == 0
		if h.flags&resSolid != 0 {
			empty = h.size == 0
		}
		if hash == ([20]byte{}) || empty || partNo != p.hdr.part {
			continue
		}
		var b *blob
		if h.flags&resSolid != 0 {
			if h.flags&resMetadata != 0 {
				return archive.Unsupportedf("wim: image metadata in a solid resource")
			}
			if b, err = placeInRun(run, h, hash); err != nil {
				return err
			}
		} else {
			res, err := r.resource(p, h)
			if err != nil {
				return err
			}
			b = &blob{res: res, size: res.usize, hash: hash}
		}
		if h.flags&resMetadata != 0 {
			if refs == 0 || p.hdr.part != 1 || uint32(len(r.meta)) == p.hdr.images {
				continue
			}
			r.meta = append(r.meta, b)
			continue
		}
		if _, dup := r.blobs[hash]; !dup {
			r.blobs[hash] = b
		}
	}
	return nil
}

// solidRun reads the resources of the solid run that starts at entries.
func (r *Reader) solidRun(p *part, entries []byte) ([]*resource, error) {
	var run []*resource
	for i := 0; i+blobEntrySize <= len(entries); i += blobEntrySize {
		h := parseReshdr(entries[i:])
		if h.flags&resSolid == 0 {
			break
		}
		if h.usize != solidMagic {
			continue
		}
		if h.offset > p.size || h.size > p.size-h.offset {
			return nil, archive.Corruptf("wim: solid resource at %d of %d bytes outside %s", h.offset, h.size, p.name)
		}
		res, err := openSolid(p, h, r.limit)
		if err != nil {
			return nil, err
		}
		run = append(run, res)
	}
	return run, nil
}

// placeInRun finds the solid resource of a blob: its offset counts
// through the run's resources end to end.
func placeInRun(run []*resource, h reshdr, hash [20]byte) (*blob, error) {
	off, size := h.offset, h.size
	for _, res := range run {
		if off <= res.usize && size <= res.usize-off {
			return &blob{res: res, off: off, size: size, hash: hash}, nil
		}
		off -= res.usize
		if off < 0 {
			break
		}
	}
	return nil, archive.Corruptf("wim: blob of %d bytes outside its solid resources", size)
}

// blob finds the blob of hash, for the entry name.
func (r *Reader) blob(hash [20]byte, name string) (*blob, error) {
	b, ok := r.blobs[hash]
	if !ok {
		if len(r.parts) < int(r.parts[0].hdr.totalParts) {
			return nil, archive.Errorf(archive.ErrMissingVolume, "wim: %s: data %x not in the parts read", name, hash)
		}
		return nil, archive.Corruptf("wim: %s: data %x not in the blob table", name, hash)
	}
	return b, nil
}

// open returns a reader of b's bytes that checks its SHA-1 at the end.
func (r *Reader) open(b *blob) io.Reader {
	r.vr.Reset(&blobReader{b: b, cache: &r.cache, limit: r.limit}, verify.SHA1, b.hash[:])
	return &r.vr
}

func readFull(r io.Reader, buf []byte) (int, error) {
	n, err := io.ReadFull(r, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return n, archive.Corruptf("wim: resource shorter than its blob table entry says")
	}
	if err != nil {
		return n, err
	}
	// Read to the end for the check.
	var one [1]byte
	if m, err := r.Read(one[:]); m != 0 || err != io.EOF {
		if err != nil && err != io.EOF {
			return n, err
		}
		return n, archive.Corruptf("wim: resource longer than its blob table entry says")
	}
	return n, nil
}

// loadImage reads the metadata of image i into r.items.
func (r *Reader) loadImage(i int) error {
	b := r.meta[i]
	if b.size > r.limit {
		return archive.Limitf("wim: image %d metadata of %d bytes exceeds the memory limit", i+1, b.size)
	}
	md := make([]byte, b.size)
	if _, err := readFull(r.open(b), md); err != nil {
		return err
	}
	im := &image{r: r, md: md, entered: map[int64]bool{}, links: map[uint64]string{}}
	if !r.single {
		im.prefix = strconv.Itoa(i+1) + "/"
	}
	if err := im.walk(); err != nil {
		return err
	}
	r.items = im.order()
	r.next = 0
	return nil
}

// Next returns the next entry. The first call verifies the integrity
// tables, before any entry, as wimlib-imagex apply --check does.
func (r *Reader) Next() (*archive.Entry, error) {
	r.cur = nil
	if r.check {
		r.check = false
		for _, p := range r.parts {
			if err := r.checkIntegrity(p); err != nil {
				r.image = r.last + 1
				return nil, err
			}
		}
	}
	for r.next >= len(r.items) {
		if r.image > r.last {
			return nil, io.EOF
		}
		r.items = nil
		if err := r.loadImage(r.image); err != nil {
			r.image = r.last + 1
			return nil, err
		}
		r.image++
	}
	it := r.items[r.next]
	r.items[r.next] = item{}
	r.next++
	if it.b != nil {
		r.cur = r.open(it.b)
	}
	return it.e, nil
}

// Read reads the current entry's data; a SHA-1 mismatch is returned at
// its end.
func (r *Reader) Read(p []byte) (int, error) {
	if r.cur == nil {
		return 0, io.EOF
	}
	return r.cur.Read(p)
}

// Close closes the other parts of a split WIM.
func (r *Reader) Close() error {
	var first error
	for _, c := range r.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	r.closers = nil
	return first
}
