package udf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/unpack-dev/unpack/internal/archive"
)

// maxDepth bounds directory nesting.
const maxDepth = 1024

// maxLink bounds a symbolic link's recorded path.
const maxLink = 64 << 10

// file is an entry and where its data are.
type file struct {
	entry    *archive.Entry
	spans    []span
	embedded []byte
}

// icb names a file entry: a block of a partition.
type icb struct {
	part  uint16
	block uint32
}

// key is at as one number, for the walk's maps: a struct with padding is
// hashed through the general path, a uint64 through the 64-bit one.
func (at icb) key() uint64 { return uint64(at.part)<<32 | uint64(at.block) }

// Reader reads a UDF file system. It implements archive.Reader and
// archive.RandomAccess: entries come in directory order, parents first.
type Reader struct {
	*archive.ListReader
	img   *image
	limit int64
	files []file

	// stored are the recorded spans of the regular files, by offset, none
	// overlapping another (see StoredSpans).
	stored []archive.Span
}

// Open reads the UDF file system of the image in in.RA.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if in.RA == nil {
		return nil, archive.Unsupportedf("udf: an image cannot be read from a pipe; give it as a file")
	}
	return NewReader(in.RA, in.Size, opt)
}

// NewReader reads the volume and the directory tree of the image of size
// bytes in ra.
func NewReader(ra io.ReaderAt, size int64, opt *archive.Options) (*Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	v, err := readVolume(ra, size)
	if err != nil {
		return nil, err
	}
	r := &Reader{img: &image{ra: ra, size: size, v: v}, limit: opt.Limit()}
	b, id, err := r.img.block(v.fileSet.part, v.fileSet.block)
	if err != nil {
		return nil, err
	}
	if id != tagFileSet {
		return nil, archive.Corruptf("udf: no file set descriptor at block %d", v.fileSet.block)
	}
	root := readLongAd(b[400:])
	w := walker{r: r, dirs: map[uint64]bool{}, seen: map[uint64]int{}}
	if err := w.dir(icb{root.part, root.block}, "", 0); err != nil {
		return nil, err
	}
	if err := r.checkOverlap(); err != nil {
		return nil, err
	}
	list := make([]*archive.Entry, len(r.files))
	for i := range r.files {
		list[i] = r.files[i].entry
	}
	r.ListReader = archive.NewListReader("udf", list, func(i int) (io.ReadCloser, error) {
		f := &r.files[i]
		return io.NopCloser(r.reader(f.spans, f.embedded, f.entry.Size)), nil
	})
	return r, nil
}

type walker struct {
	r    *Reader
	dirs map[uint64]bool // directories entered, by icb.key
	seen map[uint64]int  // file entries given, for hard links, by icb.key
	path []byte          // an entry's name being put together

	// Entries and spans are carved from slabs: one allocation per
	// slabSize of them rather than one or two per file.
	entries []archive.Entry
	spans   []span
}

// slabSize is how many entries (and spans) one slab holds.
const slabSize = 256

// add adds the file f with a copy of the entry e and of its spans (which
// are the image's, reused by the next file entry read).
func (w *walker) add(e *archive.Entry, f file) {
	if len(w.entries) == cap(w.entries) {
		w.entries = make([]archive.Entry, 0, slabSize)
	}
	w.entries = append(w.entries, *e)
	f.entry = &w.entries[len(w.entries)-1]
	f.spans = w.keepSpans(f.spans)
	w.r.files = append(w.r.files, f)
}

// keepSpans returns a copy of s carved from the current slab (the full
// slice expression keeps appends from running into the next file's).
func (w *walker) keepSpans(s []span) []span {
	if len(s) == 0 {
		return nil
	}
	if len(s) > slabSize {
		return slices.Clone(s)
	}
	if cap(w.spans)-len(w.spans) < len(s) {
		w.spans = make([]span, 0, slabSize)
	}
	i := len(w.spans)
	w.spans = append(w.spans, s...)
	return w.spans[i : i+len(s) : i+len(s)]
}

// dir adds the entries of the directory whose file entry is at at.
func (w *walker) dir(at icb, prefix string, depth int) error {
	if depth > maxDepth {
		return archive.Corruptf("udf: directories nested more than %d deep", maxDepth)
	}
	if w.dirs[at.key()] {
		return archive.Corruptf("%w at block %d", errDirLoop, at.block)
	}
	w.dirs[at.key()] = true
	fe, err := w.r.img.entry(at.part, at.block)
	if err != nil {
		return err
	}
	if fe.typ != ftDirectory {
		return archive.Corruptf("udf: %s is no directory (file type %d)", strings.TrimSuffix(prefix, "/"), fe.typ)
	}
	if fe.size > w.r.limit {
		return archive.Limitf("udf: a directory of %d bytes exceeds the memory limit", fe.size)
	}
	data, err := io.ReadAll(w.r.reader(fe.spans, fe.embedded, fe.size))
	if err != nil {
		return err
	}
	for len(data) > 0 {
		if len(data) < 38 {
			return archive.Corruptf("udf: %s: file identifier cut short", prefix)
		}
		id, err := tag(data, 0, false)
		if err != nil {
			return err
		}
		if id != tagFileID {
			return archive.Corruptf("udf: %s: descriptor %d among the file identifiers", prefix, id)
		}
		chars, nameLen := data[18], int(data[19])
		child := readLongAd(data[20:])
		iuLen := int(binary.LittleEndian.Uint16(data[36:]))
		n := (38 + iuLen + nameLen + 3) &^ 3
		if 38+iuLen+nameLen > len(data) {
			return archive.Corruptf("udf: %s: file identifier runs past the directory", prefix)
		}
		rawName := data[38+iuLen : 38+iuLen+nameLen]
		data = data[min(n, len(data)):]
		if chars&0x0C != 0 { // deleted, or the parent's entry
			continue
		}
		w.path, err = appendDstring(append(w.path[:0], prefix...), rawName)
		if err != nil {
			return fmt.Errorf("udf: %s: %w", prefix, err)
		}
		if err := w.entry(icb{child.part, child.block}, string(w.path), depth); err != nil {
			return err
		}
	}
	return nil
}

// entry adds the entry named name whose file entry is at at.
func (w *walker) entry(at icb, name string, depth int) error {
	if first, ok := w.seen[at.key()]; ok {
		f := w.r.files[first].entry
		if f.Type == archive.TypeDir {
			return archive.Corruptf("%w: %s and %s", errDirTwice, f.Name, name)
		}
		w.add(&archive.Entry{Name: name, Type: archive.TypeHardlink, Linkname: f.Name,
			Mode: f.Mode, ModTime: f.ModTime, PackedSize: -1}, file{})
		return nil
	}
	fe, err := w.r.img.entry(at.part, at.block)
	if err != nil {
		return err
	}
	e := archive.Entry{Name: name, ModTime: fe.mtime, AccessTime: fe.atime, Mode: mode(fe), PackedSize: -1}
	switch fe.typ {
	case ftDirectory:
		e.Type = archive.TypeDir
		w.seen[at.key()] = len(w.r.files)
		w.add(&e, file{})
		return w.dir(at, name+"/", depth+1)
	case ftFile:
		e.Type, e.Size, e.PackedSize = archive.TypeFile, fe.size, fe.size
	case ftSymlink:
		if fe.size > maxLink {
			return archive.Corruptf("udf: %s: a link of %d bytes", name, fe.size)
		}
		p, err := io.ReadAll(w.r.reader(fe.spans, fe.embedded, fe.size))
		if err != nil {
			return err
		}
		if e.Linkname, err = linkPath(p); err != nil {
			return fmt.Errorf("udf: %s: %w", name, err)
		}
		e.Type = archive.TypeSymlink
	case ftBlock:
		e.Type, e.Device = archive.TypeOther, "block device"
	case ftChar:
		e.Type, e.Device = archive.TypeOther, "char device"
	case ftFIFO:
		e.Type, e.Device = archive.TypeOther, "fifo"
	case ftSocket:
		e.Type, e.Device = archive.TypeOther, "socket"
	default:
		return nil // stream directories, metadata files: not entries
	}
	w.seen[at.key()] = len(w.r.files)
	w.add(&e, file{spans: fe.spans, embedded: fe.embedded})
	return nil
}

// mode turns UDF permissions (other, group, owner in 5-bit groups) and the
// ICB flags into a file mode.
func mode(fe *fileEntry) fs.FileMode {
	p := fe.perm
	m := fs.FileMode(p&7 | (p>>5&7)<<3 | (p>>10&7)<<6)
	if fe.flags&0x40 != 0 {
		m |= fs.ModeSetuid
	}
	if fe.flags&0x80 != 0 {
		m |= fs.ModeSetgid
	}
	if fe.flags&0x100 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// dstring decodes an OSTA compressed Unicode name: 8 bits a character (ID
// 8 or 254) or 16 bits big-endian (16 or 255).
func dstring(b []byte) (string, error) {
	s, err := appendDstring(nil, b)
	return string(s), err
}

// appendDstring appends the name b decodes to (see dstring) to dst in
// UTF-8, as string([]rune) and utf16.Decode would give it (a lone
// surrogate is U+FFFD), and refuses an empty name, "." and "..", and names
// holding '/' or NUL.
func appendDstring(dst, b []byte) ([]byte, error) {
	if len(b) == 0 {
		return dst, archive.Corruptf("empty name")
	}
	start := len(dst)
	switch b[0] {
	case 8, 254:
		for _, c := range b[1:] {
			if c < utf8.RuneSelf {
				dst = append(dst, c)
			} else {
				dst = utf8.AppendRune(dst, rune(c))
			}
		}
	case 16, 255:
		n := (len(b) - 1) / 2
		for i := 0; i < n; i++ {
			r := rune(binary.BigEndian.Uint16(b[1+2*i:]))
			if utf16.IsSurrogate(r) {
				if i+1 < n {
					r2 := rune(binary.BigEndian.Uint16(b[1+2*(i+1):]))
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						dst = utf8.AppendRune(dst, d)
						i++
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		}
	default:
		return dst, archive.Corruptf("name in compression %d", b[0])
	}
	s := dst[start:]
	if len(s) == 0 || string(s) == "." || string(s) == ".." || bytes.IndexByte(s, '/') >= 0 || bytes.IndexByte(s, 0) >= 0 {
		return dst, archive.Corruptf("name %q", s)
	}
	return dst, nil
}

// linkPath decodes a symbolic link's path components (ECMA-167 4/14.16).
func linkPath(p []byte) (string, error) {
	var parts []string
	abs := false
	for len(p) > 0 {
		if len(p) < 4 || 4+int(p[1]) > len(p) {
			return "", archive.Corruptf("link path component cut short")
		}
		typ, id := p[0], p[4:4+int(p[1])]
		p = p[4+int(p[1]):]
		switch typ {
		case 1, 2:
			abs, parts = true, nil
		case 3:
			parts = append(parts, "..")
		case 4:
			parts = append(parts, ".")
		case 5:
			name, err := dstring(id)
			if err != nil {
				return "", err
			}
			parts = append(parts, name)
		default:
			return "", archive.Corruptf("link path component of type %d", typ)
		}
	}
	s := strings.Join(parts, "/")
	if abs {
		s = "/" + s
	}
	return s, nil
}

// checkOverlap refuses files whose recorded data overlap another file's
// (names sharing one file entry are hard links by then).
func (r *Reader) checkOverlap() error {
	var spans []archive.Span
	for i, f := range r.files {
		for _, s := range f.spans {
			if s.off >= 0 {
				spans = append(spans, archive.Span{Off: s.off, Len: s.length, Entry: i})
			}
		}
	}
	if a, b, ok := archive.Overlap(spans, false); ok {
		return &archive.OverlapError{Format: "udf", A: r.files[a].entry.Name, B: r.files[b].entry.Name}
	}
	r.stored = storedSpans(spans, r.files)
	return nil
}

// storedSpans returns the spans (sorted by offset, no two entries'
// overlapping) of the regular files, less those of a file whose own spans
// overlap each other: the rest are apart, as StoredSpans promises.
func storedSpans(spans []archive.Span, files []file) []archive.Span {
	var own map[int]bool // files whose spans overlap each other
	end, last := int64(0), -1
	for _, s := range spans {
		if s.Len <= 0 {
			continue
		}
		if last >= 0 && s.Off < end {
			if own == nil {
				own = map[int]bool{}
			}
			own[s.Entry] = true // the same file as last's: Overlap allowed no other
		}
		if last < 0 || s.Off+s.Len > end {
			end, last = s.Off+s.Len, s.Entry
		}
	}
	return slices.DeleteFunc(spans, func(s archive.Span) bool {
		return s.Len <= 0 || own[s.Entry] || files[s.Entry].entry.Type != archive.TypeFile
	})
}

// reader reads a file's data: its spans (zeros where not recorded), or the
// bytes embedded in its entry, size bytes in all.
func (r *Reader) reader(spans []span, embedded []byte, size int64) io.Reader {
	if embedded != nil || spans == nil {
		return bytes.NewReader(embedded)
	}
	return &spanReader{ra: r.img.ra, spans: spans, left: size}
}

// spanReader reads the size bytes of a file from its spans in order, each
// read to the last byte needed: an image ending before it, or spans ending
// before size bytes, is errTruncated. An unrecorded span reads as zeros.
type spanReader struct {
	ra    io.ReaderAt
	spans []span // after cur
	cur   span   // what is left of the span being read
	left  int64  // bytes of the file left
}

// next makes cur a span with bytes left, if there is one.
func (s *spanReader) next() bool {
	for s.cur.length == 0 {
		if len(s.spans) == 0 {
			return false
		}
		s.cur, s.spans = s.spans[0], s.spans[1:]
	}
	return true
}

// advance moves past n bytes of cur.
func (s *spanReader) advance(n int64) {
	if s.cur.off >= 0 {
		s.cur.off += n
	}
	s.cur.length -= n
	s.left -= n
}

func (s *spanReader) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	if !s.next() {
		return 0, errTruncated
	}
	p = p[:min(int64(len(p)), s.cur.length, s.left)]
	if s.cur.off < 0 {
		clear(p)
		s.advance(int64(len(p)))
		return len(p), nil
	}
	n, err := s.ra.ReadAt(p, s.cur.off)
	s.advance(int64(n))
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

// WriteTo hands each recorded span to w as a byte range of the image when
// w is an archive.RangeWriter and the image an archive.RangeSource (the
// kernel may then copy it to w's file), else copies through a buffer.
func (s *spanReader) WriteTo(w io.Writer) (int64, error) {
	rw, ok := w.(archive.RangeWriter)
	src, ok2 := s.ra.(archive.RangeSource)
	if !ok || !ok2 {
		return archive.Copy(w, struct{ io.Reader }{s})
	}
	var done int64
	for s.left > 0 {
		if !s.next() {
			return done, errTruncated
		}
		n := min(s.cur.length, s.left)
		var k int64
		var err error
		if s.cur.off < 0 {
			if err = archive.WriteHole(w, n); err == nil {
				k = n
			}
		} else {
			k, err = src.SendRange(rw, s.cur.off, n)
		}
		s.advance(k)
		done += k
		if err != nil {
			return done, err
		}
		if k < n {
			return done, errTruncated
		}
	}
	return done, nil
}
