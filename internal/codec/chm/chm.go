// Package chm reads Microsoft Compiled HTML Help files (.chm, the ITSF
// format, as libmspack's chmd, chmlib's extract_chmLib and 7-Zip read
// them): the ITSF header, the ITSP directory's PMGL listing chunks, content
// section 0 (stored) and section 1 ("MSCompressed": LZX whose state is
// reset every reset interval, as its ControlData and ResetTable say).
//
// Every file whose name starts with '/' is given, the '/' dropped: the
// help pages and the viewer's own tables (/#SYSTEM, /$FIftiMain, …), as
// extract_chmLib and 7-Zip extract them; the "::DataSpace/…" storage
// streams that hold the sections themselves are not. CHM carries no
// checksums: the data is unverifiable.
//
// A CHM file is read through random access; from a pipe it is spooled to
// a temporary file first.
package chm

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzx"
	"github.com/unpack-dev/unpack/internal/spool"
)

// Errors. Each errors.Is its archive category.
var (
	ErrMagic     = archive.Corruptf("chm: not an ITSF file")
	ErrTruncated = archive.Corruptf("chm: truncated file")
	ErrHeader    = archive.Corruptf("chm: invalid header")
	ErrDirectory = archive.Corruptf("chm: invalid directory chunk")
	ErrSection   = archive.Unsupportedf("chm: content section other than 0 and 1")
	ErrControl   = archive.Corruptf("chm: invalid LZX control data or reset table")
	ErrBeyond    = archive.Corruptf("chm: file data beyond its section's end")
	ErrMissing   = archive.Corruptf("chm: compressed section without its content, control data or reset table")
)

const (
	maxChunkSize = 1 << 20
	nameContent  = "::DataSpace/Storage/MSCompressed/Content"
	nameControl  = "::DataSpace/Storage/MSCompressed/ControlData"
	nameReset    = "::DataSpace/Storage/MSCompressed/Transform/{7FC28940-9D31-11D0-9B27-00A0C91E9C7C}/InstanceData/ResetTable"
)

// dirEntry is a PMGL entry.
type dirEntry struct {
	name    string
	section uint64
	off     uint64
	size    uint64
}

// Reader is an archive.Reader over a CHM file.
type Reader struct {
	ra      io.ReaderAt
	size    int64
	content int64 // section 0's start in the file
	entries []dirEntry
	i       int
	cur     *dirEntry
	remain  int64
	placed  bool
	s0      *io.SectionReader
	s1      *section
	s1err   error // why section 1 cannot be read
	opt     *archive.Options
	closers []io.Closer
}

// Open reads the CHM file in in (spooled first when it is not seekable).
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	ra, size, tmp, err := spool.RandomAccess(in, opt)
	if err != nil {
		return nil, err
	}
	var closers []io.Closer
	if tmp != nil {
		closers = append(closers, tmp)
	}
	r, err := NewReader(ra, size, opt)
	if err != nil {
		for _, c := range closers {
			c.Close()
		}
		return nil, err
	}
	r.closers = closers
	return r, nil
}

// NewReader reads the CHM file in ra, size bytes long.
func NewReader(ra io.ReaderAt, size int64, opt *archive.Options) (*Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	r := &Reader{ra: ra, size: size, opt: opt}
	var h [0x60]byte
	if n, _ := ra.ReadAt(h[:], 0); n < 0x58 {
		if n >= 4 && string(h[:4]) != "ITSF" {
			return nil, ErrMagic
		}
		return nil, ErrTruncated
	}
	if string(h[:4]) != "ITSF" {
		return nil, ErrMagic
	}
	ver := binary.LittleEndian.Uint32(h[4:])
	dirOff := binary.LittleEndian.Uint64(h[0x48:])
	dirLen := binary.LittleEndian.Uint64(h[0x50:])
	content := dirOff + dirLen
	if ver >= 3 {
		if binary.LittleEndian.Uint32(h[8:]) < 0x60 {
			return nil, ErrHeader
		}
		content = binary.LittleEndian.Uint64(h[0x58:])
	}
	if dirOff > uint64(size) || dirLen > uint64(size) || content > uint64(size) || dirOff+dirLen < dirOff {
		return nil, ErrTruncated
	}
	r.content = int64(content)
	if err := r.readDirectory(int64(dirOff), int64(dirLen)); err != nil {
		return nil, err
	}
	r.s0 = io.NewSectionReader(ra, r.content, size-r.content)
	// Files, then their data in section order: each section is decoded
	// once, front to back.
	var files []dirEntry
	var content1, control, reset *dirEntry
	for i := range r.entries {
		e := &r.entries[i]
		switch e.name {
		case nameContent:
			content1 = e
		case nameControl:
			control = e
		case nameReset:
			reset = e
		}
		if len(e.name) > 1 && e.name[0] == '/' {
			files = append(files, *e)
		}
	}
	r.entries = files
	slices.SortStableFunc(r.entries, func(a, b dirEntry) int {
		return cmp.Or(cmp.Compare(a.section, b.section), cmp.Compare(a.off, b.off))
	})
	if content1 == nil || control == nil || reset == nil {
		r.s1err = ErrMissing
	} else {
		r.s1, r.s1err = r.openSection1(content1, control, reset)
	}
	return r, nil
}

// readDirectory walks the PMGL chunks of the ITSP directory at off.
func (r *Reader) readDirectory(off, n int64) error {
	var h [0x54]byte
	if k, _ := r.ra.ReadAt(h[:], off); k < len(h) {
		return ErrTruncated
	}
	if string(h[:4]) != "ITSP" {
		return ErrHeader
	}
	hlen := int64(binary.LittleEndian.Uint32(h[8:]))
	chunk := int64(binary.LittleEndian.Uint32(h[0x10:]))
	nchunks := int64(binary.LittleEndian.Uint32(h[0x2C:]))
	if chunk < 0x20 || chunk > maxChunkSize || hlen < 0 || hlen > n {
		return ErrHeader
	}
	if nchunks > (n-hlen)/chunk {
		nchunks = (n - hlen) / chunk
	}
	base := off + hlen
	buf := make([]byte, chunk)
	// Every PMGL chunk of the directory, in order, as 7-Zip reads them:
	// not the list from the header's first PMGL chunk (chmlib) or its
	// first..last range (libmspack), which Free Pascal's chmcmd writes
	// wrong (first = last), losing all but the last chunk's files. Index
	// (PMGI) chunks are skipped; a chunk that is neither is corrupt.
	for c := int64(0); c < nchunks; c++ {
		if k, _ := r.ra.ReadAt(buf, base+c*chunk); int64(k) < chunk {
			return ErrTruncated
		}
		switch string(buf[:4]) {
		case "PMGI":
			continue
		case "PMGL":
		default:
			return ErrDirectory
		}
		free := int64(binary.LittleEndian.Uint32(buf[4:]))
		if free > chunk-0x14 {
			return ErrDirectory
		}
		if err := r.parseChunk(buf[0x14 : chunk-free]); err != nil {
			return err
		}
	}
	return nil
}

// parseChunk reads the entries of one PMGL chunk.
func (r *Reader) parseChunk(b []byte) error {
	for len(b) > 0 {
		nlen, k := encint(b)
		if k == 0 || nlen > uint64(len(b)-k) {
			return ErrDirectory
		}
		b = b[k:]
		name := string(b[:nlen])
		b = b[nlen:]
		var v [3]uint64
		for i := range v {
			if v[i], k = encint(b); k == 0 {
				return ErrDirectory
			}
			b = b[k:]
		}
		if name == "" {
			continue // chmlib and libmspack skip blank names
		}
		r.entries = append(r.entries, dirEntry{name: name, section: v[0], off: v[1], size: v[2]})
	}
	return nil
}

// encint decodes a CHM variable-length integer: 7 bits a byte, most
// significant first, the high bit set on all but the last. It returns the
// bytes used, 0 when b ends first or the value passes 63 bits.
func encint(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		if v>>56 != 0 {
			return 0, 0
		}
		v = v<<7 | uint64(c&0x7F)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// Next returns the next file or directory, or io.EOF after the last.
func (r *Reader) Next() (*archive.Entry, error) {
	if r.i >= len(r.entries) {
		r.cur = nil
		return nil, io.EOF
	}
	d := &r.entries[r.i]
	r.i++
	r.cur, r.placed = d, false
	name := d.name[1:]
	e := &archive.Entry{Name: name, Type: archive.TypeFile, Size: int64(d.size), PackedSize: -1, Mode: 0o644}
	if strings.HasSuffix(name, "/") {
		e.Type, e.Size, e.Mode = archive.TypeDir, 0, 0o755
		r.remain = 0
		return e, nil
	}
	if d.size > 1<<62 {
		return nil, ErrBeyond
	}
	r.remain = int64(d.size)
	switch d.section {
	case 0:
		e.Method = "stored"
	case 1:
		e.Method = "LZX"
	}
	return e, nil
}

// Read reads the current file's data.
func (r *Reader) Read(p []byte) (int, error) {
	if r.cur == nil || r.remain == 0 {
		return 0, io.EOF
	}
	d := r.cur
	if int64(len(p)) > r.remain {
		p = p[:r.remain]
	}
	var n int
	var err error
	switch d.section {
	case 0:
		off := int64(d.off) + int64(d.size) - r.remain
		if d.off > 1<<62 || off < 0 {
			return 0, ErrBeyond
		}
		n, err = r.s0.ReadAt(p, off)
		if n == len(p) {
			err = nil
		} else if err == io.EOF || err == nil {
			err = ErrBeyond
		}
	case 1:
		if r.s1err != nil {
			return 0, r.s1err
		}
		if !r.placed {
			if err := r.s1.seek(int64(min(d.off, 1<<62))); err != nil {
				r.remain = 0
				return 0, err
			}
			r.placed = true
		}
		n, err = r.s1.Read(p)
		if err == io.EOF {
			err = ErrBeyond
		}
	default:
		err = ErrSection
	}
	r.remain -= int64(n)
	if err != nil {
		r.remain = 0
	}
	return n, err
}

// Close stops the decoding ahead and closes the spool, if any.
func (r *Reader) Close() error {
	if r.s1 != nil {
		r.s1.close()
	}
	for _, c := range r.closers {
		c.Close()
	}
	r.closers = nil
	return nil
}

// readEntry reads a small section-0 file whole.
func (r *Reader) readEntry(e *dirEntry, max int) ([]byte, error) {
	if e.section != 0 || e.size > uint64(max) || e.off > uint64(r.size) {
		return nil, ErrControl
	}
	b := make([]byte, e.size)
	if n, _ := r.s0.ReadAt(b, int64(e.off)); n < len(b) {
		return nil, ErrTruncated
	}
	return b, nil
}

// openSection1 reads the LZX parameters of section 1.
func (r *Reader) openSection1(content, control, reset *dirEntry) (*section, error) {
	cd, err := r.readEntry(control, 1024)
	if err != nil {
		return nil, err
	}
	if len(cd) < 0x18 || !bytes.Equal(cd[4:8], []byte("LZXC")) {
		return nil, ErrControl
	}
	ver := binary.LittleEndian.Uint32(cd[8:])
	interval := uint64(binary.LittleEndian.Uint32(cd[0x0C:]))
	window := uint64(binary.LittleEndian.Uint32(cd[0x10:]))
	if ver == 2 {
		interval *= lzx.FrameSize
		window *= lzx.FrameSize
	}
	bits := 0
	for bits < 32 && uint64(1)<<bits < window {
		bits++
	}
	if uint64(1)<<bits != window || bits < lzx.MinWindowBits || bits > lzx.MaxWindowBits {
		return nil, lzx.ErrWindow
	}
	if lzx.BufferSize(bits, lzx.CAB) > r.opt.Limit() {
		return nil, archive.Limitf("chm: LZX window of %d bytes is over the memory limit", window)
	}
	if interval == 0 || interval%lzx.FrameSize != 0 {
		return nil, ErrControl
	}
	var rt [0x28]byte
	if reset.section != 0 || reset.size < 0x28 || reset.off > uint64(r.size) {
		return nil, ErrControl
	}
	if n, _ := r.s0.ReadAt(rt[:], int64(reset.off)); n < len(rt) {
		return nil, ErrTruncated
	}
	ulen := binary.LittleEndian.Uint64(rt[0x10:])
	if content.section != 0 || content.off > uint64(r.size) || content.size > uint64(r.size) ||
		int64(content.off)+int64(content.size) > r.size-r.content || ulen > 1<<62 {
		return nil, ErrControl
	}
	s := &section{
		src:      io.NewSectionReader(r.s0, int64(content.off), int64(content.size)),
		clen:     int64(content.size),
		ulen:     int64(ulen),
		interval: int64(interval),
		bits:     bits,
		next:     -1,
		pg:       -1,
	}
	s.starts = r.resetStarts(reset, rt[:], s)
	for i := range r.entries {
		if e := &r.entries[i]; e.section == 1 && e.off < uint64(s.ulen) {
			s.need = max(s.need, int64(min(e.off+e.size, uint64(s.ulen))))
		}
	}
	// Decoding ahead: a job for each thread but the reading goroutine's,
	// each a decoder and its group's output, as the memory limit allows.
	threads := r.opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if s.starts != nil && threads > 1 && s.interval <= maxAheadInterval {
		s.group = max(1, groupTarget/s.interval) * s.interval
		per := s.group + lzx.BufferSize(bits, lzx.CAB) + inWindow
		own := lzx.BufferSize(bits, lzx.CAB) + inWindow + lzx.FrameSize
		s.ahead = int(min(int64(threads-1), (r.opt.Limit()-own)/per-1))
		if s.ahead < 1 || s.need <= s.group {
			s.group, s.ahead = 0, 0
		}
	}
	return s, nil
}

// resetStarts returns the compressed offset of each of s's reset
// intervals from the reset table (its header rt), or nil where the table
// does not list them all, rising and within the section: entries of 8
// bytes, one for each 32 KiB frame.
func (r *Reader) resetStarts(reset *dirEntry, rt []byte, s *section) []int64 {
	nint := (s.ulen + s.interval - 1) / s.interval
	count := uint64(binary.LittleEndian.Uint32(rt[4:]))
	esize := binary.LittleEndian.Uint32(rt[8:])
	toff := uint64(binary.LittleEndian.Uint32(rt[0x0C:]))
	bsize := binary.LittleEndian.Uint64(rt[0x20:])
	if nint == 0 || esize != 8 || bsize != lzx.FrameSize || toff < 0x28 || toff > reset.size {
		return nil
	}
	per := uint64(s.interval / lzx.FrameSize)
	if per > 1<<20 {
		return nil
	}
	have := min(count, (reset.size-toff)/8)
	if uint64(nint-1) > have/per || uint64(nint-1)*per >= have || nint > r.opt.Limit()/8 {
		return nil
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r.s0, int64(reset.off+toff), int64((uint64(nint-1)*per+1)*8)), 1<<14)
	starts := make([]int64, nint)
	var e [8]byte
	for i := range starts {
		if i > 0 {
			if _, err := br.Discard(int(per-1) * 8); err != nil {
				return nil
			}
		}
		if _, err := io.ReadFull(br, e[:]); err != nil {
			return nil
		}
		v := binary.LittleEndian.Uint64(e[:])
		if v >= uint64(s.clen) || (i == 0 && v != 0) || (i > 0 && int64(v) <= starts[i-1]) {
			return nil
		}
		starts[i] = int64(v)
	}
	return starts
}
