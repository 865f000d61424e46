package xar

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"sort"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Reader is an archive.Reader over a XAR archive. Entries come in heap
// order, so that a pipe is read forward: first those without data
// (directories, links, empty files) in the TOC's order, then the files by
// their data's offset, then hard links to them.
type Reader struct {
	opt   *archive.Options
	heap  heap
	items []*item
	i     int
	cur   io.Reader   // the current entry's data
	data  *dataReader // its decoder, to close
	sub   *tree       // a .pkg member read as a tree
	dec   decoders
	done  []archive.Verdict
	err   error
}

// item is a file of the TOC and the entry made of it.
type item struct {
	f    *file
	e    *archive.Entry
	x    *extent // the data read for it: the file's, or an extended attribute's
	ea   bool    // an extended attribute's data: checked, not given out
	tree bool    // a .pkg Payload or Scripts, a .xip Content: maybe a cpio tree
}

// Open reads a XAR archive's header and TOC from in, verifying the TOC's
// checksum.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	return NewReader(in, opt)
}

// NewReader is Open with its concrete type.
func NewReader(in *archive.Input, opt *archive.Options) (*Reader, error) {
	r := &Reader{opt: opt}
	var br *bufio.Reader
	if in.RA != nil {
		size := in.Size
		if size < 0 {
			size = 1<<63 - 1
		}
		br = bufio.NewReaderSize(io.NewSectionReader(in.RA, 0, size), 64<<10)
		r.heap = heap{ra: in.RA, size: in.Size}
	} else {
		var ok bool
		if br, ok = in.R.(*bufio.Reader); !ok || br.Size() < maxHeaderSize {
			br = bufio.NewReaderSize(in.R, 64<<10)
		}
		r.heap = heap{r: br, size: -1}
	}
	head, _ := br.Peek(maxHeaderSize)
	h, err := parseHeader(head)
	if err != nil {
		if len(head) < headerSize && string(head) == Magic[:min(len(head), 4)] {
			return nil, ErrTruncated
		}
		return nil, err
	}
	if _, err := br.Discard(int(h.size)); err != nil {
		return nil, truncated(err)
	}
	// The limit, and what an allocation can be on a 32-bit target.
	limit := min(uint64(opt.Limit()), uint64(^uint(0)>>2))
	if h.tocCompressed > limit || h.tocUncompressd > limit {
		return nil, archive.Limitf("xar: a table of contents of %d bytes (%d compressed) exceeds the memory limit", h.tocUncompressd, h.tocCompressed)
	}
	r.heap.base = h.size + int64(h.tocCompressed)
	if in.Size >= 0 && r.heap.base > in.Size {
		return nil, ErrTruncated
	}
	t, err := readTOC(br, h, opt.Limit(), &r.dec.zlib)
	if err != nil {
		return nil, err
	}
	if err := r.checkTOC(h, t); err != nil {
		return nil, err
	}
	if err := r.build(t); err != nil {
		return nil, err
	}
	return r, nil
}

// readTOC reads the compressed TOC and parses it; h.check's digest of the
// compressed bytes is left in the toc for checkTOC.
func readTOC(br *bufio.Reader, h *header, limit int64, z *zlibReader) (*toc, error) {
	var hs hashing
	hs.r, hs.h = &section{r: br, left: int64(h.tocCompressed)}, verify.New(h.check)
	if err := z.reset(&hs); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(z, int64(h.tocUncompressd)+1))
	if err != nil {
		return nil, truncated(err)
	}
	if uint64(n) != h.tocUncompressd {
		return nil, archive.Corruptf("xar: the table of contents is %d bytes, not %d", n, h.tocUncompressd)
	}
	if _, err := io.Copy(io.Discard, &hs); err != nil {
		return nil, err
	}
	t, err := parseTOC(buf.Bytes(), limit)
	if err != nil {
		return nil, err
	}
	if hs.h != nil {
		t.digest = hs.h.Sum(nil)
	}
	return t, nil
}

// checkTOC compares the TOC's digest with the checksum stored in the heap.
func (r *Reader) checkTOC(h *header, t *toc) error {
	if h.check == verify.None {
		return nil
	}
	if t.checkSize != int64(h.check.Size()) {
		return archive.Corruptf("xar: the TOC checksum is %d bytes, not the %d of %s", t.checkSize, h.check.Size(), h.checkName)
	}
	src, err := r.heap.open(t.checkOffset, t.checkSize)
	if err != nil {
		return err
	}
	want := make([]byte, t.checkSize)
	if _, err := io.ReadFull(src, want); err != nil {
		return truncated(err)
	}
	if !bytes.Equal(t.digest, want) {
		return fmt.Errorf("xar: table of contents: %w", &verify.MismatchError{Kind: h.check, Want: want, Got: t.digest})
	}
	return nil
}

// build makes the entries of the TOC's files, in reading order.
func (r *Reader) build(t *toc) error {
	byID := make(map[string]*file, len(t.files))
	for _, f := range t.files {
		if f.id != "" {
			byID[f.id] = f
		}
	}
	var plain, withData, links []*item
	for _, f := range t.files {
		it := &item{f: f}
		e, err := entryOf(f, byID)
		if err != nil {
			return err
		}
		it.e = e
		switch {
		case e.Type == archive.TypeHardlink:
			links = append(links, it)
		case f.data != nil && e.Type == archive.TypeFile:
			it.x = f.data
			base := path.Base(f.name)
			it.tree = (base == "Payload" || base == "Scripts") && f.depth <= 2 || base == "Content" && f.depth == 1
			withData = append(withData, it)
		default:
			plain = append(plain, it)
		}
		for _, x := range f.eas {
			if err := checkExtent(f, x); err != nil {
				return err
			}
			withData = append(withData, &item{f: f, e: it.e, x: x, ea: true})
		}
	}
	sort.SliceStable(withData, func(i, j int) bool { return withData[i].x.offset < withData[j].x.offset })
	// Extents may be shared (xar stores duplicate data once) but not
	// overlap in part.
	for i := 1; i < len(withData); i++ {
		a, b := withData[i-1].x, withData[i].x
		if a.offset == b.offset && a.length == b.length || a.length == 0 || b.length == 0 {
			continue
		}
		if b.offset < a.offset+a.length {
			return ErrExtent
		}
	}
	r.items = append(append(plain, withData...), links...)
	return nil
}

// entryOf makes the entry of a TOC file.
func entryOf(f *file, byID map[string]*file) (*archive.Entry, error) {
	e := &archive.Entry{Name: f.name, Size: 0, PackedSize: 0, Mode: f.mode, ModTime: f.mtime, AccessTime: f.atime}
	if x := f.data; x != nil {
		if err := checkExtent(f, x); err != nil {
			return nil, err
		}
		e.Size, e.PackedSize = x.size, x.length
		m, ok := methods[x.encoding]
		if !ok {
			m = x.encoding
		}
		e.Method = m
		c := x.extracted
		if c.kind == verify.None {
			c = x.archived
		}
		e.Checksum, e.ChecksumValue = c.kind, c.want
	}
	switch f.typ {
	case "file", "":
		e.Type = archive.TypeFile
	case "directory":
		e.Type = archive.TypeDir
	case "symlink":
		e.Type, e.Linkname = archive.TypeSymlink, f.link
		e.Size = int64(len(f.link))
	case "hardlink":
		e.Type = archive.TypeFile
		if f.linkTo != "original" && f.linkTo != "" && f.data == nil {
			o, ok := byID[f.linkTo]
			if !ok || o == f {
				return nil, archive.Corruptf("xar: %s: a hard link to the unknown file %q", f.name, f.linkTo)
			}
			e.Type, e.Linkname = archive.TypeHardlink, o.name
		}
	case "fifo", "character special", "block special", "socket":
		e.Type, e.Device = archive.TypeOther, f.typ
	default:
		e.Type, e.Device = archive.TypeOther, f.typ
	}
	if !f.hasMode {
		e.Mode = 0o644
		if e.Type == archive.TypeDir {
			e.Mode = 0o755
		}
	}
	if e.Type != archive.TypeFile && e.Type != archive.TypeSymlink {
		e.Size = 0
	}
	return e, nil
}

// checkExtent checks that an extent has its numbers, in range.
func checkExtent(f *file, x *extent) error {
	if x.length < 0 || x.offset < 0 || x.size < 0 {
		return archive.Corruptf("xar: %s: data without their length, offset or size", f.name)
	}
	if x.offset > 1<<62 || x.length > 1<<62 {
		return ErrExtent
	}
	return nil
}

// Next returns the next entry, or io.EOF after the last.
func (r *Reader) Next() (*archive.Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	e, err := r.next()
	if err != nil {
		r.err = err
		r.closeData()
		if r.sub != nil {
			r.sub.fail(err, &r.done)
			r.sub = nil
		}
	}
	return e, err
}

func (r *Reader) next() (*archive.Entry, error) {
	if r.sub != nil {
		e, err := r.sub.next()
		if err != io.EOF {
			if err == nil {
				r.cur = r.sub
			}
			return e, err
		}
		r.sub.settle(&r.done)
		r.sub = nil
	}
	r.closeData()
	if r.i >= len(r.items) {
		return nil, io.EOF
	}
	it := r.items[r.i]
	r.i++
	for it.ea {
		// An extended attribute (not extracted): its checks, in heap order.
		d, err := r.open(it)
		if err == nil {
			_, err = io.Copy(io.Discard, d)
			d.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("xar: %s: extended attribute: %w", it.f.name, err)
		}
		if r.i >= len(r.items) {
			return nil, io.EOF
		}
		it = r.items[r.i]
		r.i++
	}
	if it.e.Type != archive.TypeFile || it.x == nil {
		r.cur = eofReader{}
		return it.e, nil
	}
	d, err := r.open(it)
	if err != nil {
		r.cur = errReader{err}
		return it.e, nil
	}
	r.data, r.cur = d, d
	if it.tree {
		return r.startTree(it, d)
	}
	return it.e, nil
}

// open returns the decoder of an item's data; an error is the entry's.
func (r *Reader) open(it *item) (*dataReader, error) {
	src, err := r.heap.open(it.x.offset, it.x.length)
	if err != nil {
		return nil, err
	}
	return newDataReader(src, it.x, r.opt, &r.dec)
}

func (r *Reader) closeData() {
	if r.data != nil {
		r.data.Close()
		r.data = nil
	}
	r.cur = nil
}

// Read reads the current entry's data; its checks are verified at the end.
func (r *Reader) Read(p []byte) (int, error) {
	if r.cur == nil {
		return 0, io.EOF
	}
	return r.cur.Read(p)
}

// Settled returns the verdicts on Pending entries decided since the last
// call (the entries of a .pkg member read as a tree).
func (r *Reader) Settled() []archive.Verdict {
	v := r.done
	r.done = nil
	return v
}

// Close releases the decoders; the caller owns the input.
func (r *Reader) Close() error {
	r.closeData()
	if r.sub != nil {
		r.sub.close()
		r.sub = nil
	}
	return nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
