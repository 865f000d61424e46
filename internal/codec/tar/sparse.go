package tar

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
)

// A sparse file is stored as its data regions alone, with a map of where
// they go: in the header and extension blocks that follow it (old GNU and
// star, type 'S'), in pax records (GNU 0.0 and 0.1) or at the start of the
// data (GNU 1.0). A map that cannot be parsed fails its entry alone: the
// stored data is skipped and the next entry read.

// regionSize is what one region of a map costs in memory, against the
// memory limit.
const regionSize = 16

// errSparseMap is the error of a sparse map that cannot be used.
func errSparseMap(why string) error { return archive.Corruptf("malformed sparse map: %s", why) }

// sparseMapper collects a sparse map's regions, checking them against the
// file's size and the memory limit as they come.
type sparseMapper struct {
	size    int64 // the file's (expanded) size
	max     int   // regions within the memory limit
	regions []archive.Region
	err     error // the first problem; later regions are ignored
}

func newMapper(size int64, opt *archive.Options) *sparseMapper {
	return &sparseMapper{size: size, max: int(min(opt.Limit()/regionSize, math.MaxInt32)), regions: []archive.Region{}}
}

// add appends a region, which must follow the previous one (GNU tar writes
// them in order) and end within the file.
func (m *sparseMapper) add(off, n int64) {
	if m.err != nil {
		return
	}
	end := int64(0)
	if k := len(m.regions); k > 0 {
		end = m.regions[k-1].Offset + m.regions[k-1].Length
	}
	switch {
	case off < 0 || n < 0 || off > m.size-n:
		m.err = errSparseMap(fmt.Sprintf("region %d+%d is outside the file's %d bytes", off, n, m.size))
	case off < end:
		m.err = errSparseMap(fmt.Sprintf("region at %d overlaps or precedes the previous one", off))
	case len(m.regions) >= m.max:
		m.err = archive.Limitf("a sparse map of more than %d regions is above the memory limit", m.max)
	default:
		m.regions = append(m.regions, archive.Region{Offset: off, Length: n})
	}
}

// oldSparse reads the map of an old GNU or star sparse header (type 'S'):
// four regions in the header, more in extension blocks while the
// "isextended" byte is set. The extension blocks are read in any case,
// so that the next header is found after a map that fails.
func (r *Reader) oldSparse(e *archive.Entry, f format) error {
	b := &r.blk
	var realsize []byte
	var first []byte // the regions in the header
	extended := true // star may put its whole map in extension blocks
	switch f {
	case formatGNU:
		realsize, first, extended = b[offGNURealsize:offGNURealsize+12], b[offGNUSparse:offGNUSparse+4*24], b[offGNUExtended] != 0
	case formatStar:
		realsize = b[offStarInRealsize : offStarInRealsize+12]
		if b[offPrefix] == 0 && b[offStarInSparse+10] != 0 {
			first, extended = b[offStarInSparse:offStarInSparse+4*24], b[offStarInExtended] != 0
		}
	default:
		e.Sparse = []archive.Region{}
		r.failEntry(errSparseMap("a sparse header in neither GNU nor star format"))
		return nil
	}
	size, ok := parseNumeric(realsize, false)
	if !ok || size < 0 {
		size = 0
	}
	m := newMapper(size, r.opt)
	if !ok || size < 0 {
		m.err = errSparseMap("invalid real size")
	}
	done := !m.oldRegions(first)
	for extended {
		if err := r.readBlock(); err != nil {
			if err == io.EOF {
				err = errTruncated
			}
			return err
		}
		if !done {
			done = !m.oldRegions(r.blk[:21*24])
		}
		extended = r.blk[504] != 0
	}
	e.Size, e.Sparse = size, m.regions
	r.useMap(m)
	return nil
}

// oldRegions adds the (offset, numbytes) pairs of 24 bytes each in b, up
// to the first whose numbytes field is empty (GNU tar's end of the map);
// it reports whether the map may go on.
func (m *sparseMapper) oldRegions(b []byte) bool {
	for ; len(b) >= 24; b = b[24:] {
		if b[12] == 0 {
			return false
		}
		off, ok1 := parseNumeric(b[:12], false)
		n, ok2 := parseNumeric(b[12:24], false)
		if !ok1 || !ok2 {
			m.err = errSparseMap("a region field cannot be parsed")
			return false
		}
		m.add(off, n)
	}
	return true
}

// useMap makes the entry sparse with m's regions, or fails it.
func (r *Reader) useMap(m *sparseMapper) {
	var total int64
	for _, g := range m.regions {
		total += g.Length
	}
	if m.err == nil && total > r.left {
		m.err = errSparseMap(fmt.Sprintf("its regions hold %d bytes, the entry %d", total, r.left))
	}
	if m.err != nil {
		r.failEntry(m.err)
		return
	}
	r.sp = &sparseRun{regions: m.regions, size: m.size}
}

// paxSparse reads the map of a GNU pax sparse file, if the entry is one.
// The error is the input's: a map that cannot be parsed fails the entry
// alone.
func (r *Reader) paxSparse(e *archive.Entry) error {
	p := &r.pax
	major, hasMajor := p.get(sparseMajor)
	minor, hasMinor := p.get(sparseMinor)
	_, hasMap := p.get(sparseMap)
	_, hasBlocks := p.get(sparseNumblocks)
	v10 := major == "1" && (minor == "0" || !hasMinor)
	if !v10 && !hasMajor && !hasMinor && !hasMap && !hasBlocks && len(p.sparse00) == 0 {
		return nil
	}
	if name, ok := p.get(sparseName); ok {
		e.Name = name
	}
	// 0.x name the size GNU.sparse.size, 1.0 GNU.sparse.realsize; GNU tar
	// writes one of them.
	if v, ok := p.get(sparseSize); ok {
		e.Size, _ = parseDecimal(v)
	} else if v, ok := p.get(sparseRealsize); ok {
		e.Size, _ = parseDecimal(v)
	}
	e.Sparse = []archive.Region{}
	m := newMapper(e.Size, r.opt)
	switch {
	case v10:
		if err := r.dataMap(m); err != nil {
			return err
		}
	case hasMajor && major != "0" || hasMinor && minor != "0" && minor != "1":
		r.failEntry(archive.Unsupportedf("GNU sparse format %s.%s", major, minor))
		return nil
	case len(p.sparse00) > 0:
		s := p.sparse00
		if len(s)%4 != 0 {
			m.err = errSparseMap("GNU.sparse.offset and GNU.sparse.numbytes do not pair")
		}
		for i := 0; i+3 < len(s) && m.err == nil; i += 4 {
			off, ok1 := parseDecimal(s[i+1])
			n, ok2 := parseDecimal(s[i+3])
			if s[i] != sparseOffset || s[i+2] != sparseNumbytes || !ok1 || !ok2 {
				m.err = errSparseMap("GNU.sparse.offset and GNU.sparse.numbytes do not pair")
				break
			}
			m.add(off, n)
		}
	default:
		v, _ := p.get(sparseMap)
		var fields []string
		if v != "" {
			fields = strings.Split(v, ",")
		}
		if len(fields)%2 != 0 {
			m.err = errSparseMap("GNU.sparse.map has an odd number of fields")
		}
		for i := 0; i+1 < len(fields) && m.err == nil; i += 2 {
			off, ok1 := parseDecimal(fields[i])
			n, ok2 := parseDecimal(fields[i+1])
			if !ok1 || !ok2 {
				m.err = errSparseMap("a GNU.sparse.map field is not a number")
				break
			}
			m.add(off, n)
		}
	}
	if v, ok := p.get(sparseNumblocks); ok && m.err == nil && !v10 {
		if n, _ := parseDecimal(v); n != int64(len(m.regions)) {
			m.err = errSparseMap(fmt.Sprintf("GNU.sparse.numblocks is %d, the map has %d regions", n, len(m.regions)))
		}
	}
	r.useMap(m)
	return nil
}

// dataMap reads a GNU 1.0 sparse map from the start of the entry's data:
// decimal numbers, each ended by a newline — the count of regions, then an
// offset and a size for each — padded to a whole block. A map that cannot
// be parsed leaves m.err set; the error returned is the input's.
func (r *Reader) dataMap(m *sparseMapper) error {
	var buf []byte // the unread part of the current block
	// number reads the next number; ok false with m.err set when there is
	// none.
	number := func() (v int64, ok bool, err error) {
		var digits [20]byte
		n := 0
		for {
			if len(buf) == 0 {
				if r.left < blockSize {
					m.err = errSparseMap("the map runs past the entry's data")
					return 0, false, nil
				}
				if err := r.readBlock(); err != nil {
					if err == io.EOF {
						err = errTruncated
					}
					return 0, false, err
				}
				r.left -= blockSize
				buf = r.blk[:]
			}
			c := buf[0]
			buf = buf[1:]
			if c == '\n' {
				break
			}
			if n == len(digits) {
				m.err = errSparseMap("a number is too long")
				return 0, false, nil
			}
			digits[n] = c
			n++
		}
		v, ok = parseDecimal(string(digits[:n]))
		if !ok {
			m.err = errSparseMap("a field is not a number")
		}
		return v, ok, nil
	}
	count, ok, err := number()
	for ; ok && count > 0 && m.err == nil; count-- {
		var off, n int64
		if off, ok, err = number(); !ok {
			break
		}
		if n, ok, err = number(); !ok {
			break
		}
		m.add(off, n)
	}
	return err
}

// sparseRun walks a sparse file's regions and the holes between them.
type sparseRun struct {
	regions []archive.Region
	size    int64 // the file's size
	pos     int64 // the position in the file
	i       int   // the first region that ends after pos
}

// step returns what is at pos: a hole or data, and how long it lasts.
func (s *sparseRun) step() (hole bool, n int64) {
	for s.i < len(s.regions) && s.regions[s.i].Offset+s.regions[s.i].Length <= s.pos {
		s.i++
	}
	if s.i < len(s.regions) {
		g := s.regions[s.i]
		if s.pos >= g.Offset {
			return false, g.Offset + g.Length - s.pos
		}
		return true, g.Offset - s.pos
	}
	return true, s.size - s.pos
}

func (s *sparseRun) read(r *Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) && s.pos < s.size {
		hole, k := s.step()
		k = min(k, int64(len(p)-n))
		if hole {
			clear(p[n : n+int(k)])
		} else {
			m, err := r.readData(p[n : n+int(k)])
			if m == 0 && err == nil {
				return n, nil
			}
			k = int64(m)
			if err == io.EOF {
				err = errTruncated // the map was checked against the data
			}
			if err != nil {
				s.pos += k
				return n + m, err
			}
		}
		s.pos += k
		n += int(k)
	}
	if n == 0 && s.pos >= s.size {
		return 0, io.EOF
	}
	return n, nil
}

// zeros is what a hole is written from to a writer that is no HoleWriter.
var zeros [64 << 10]byte

func (s *sparseRun) writeTo(r *Reader, w io.Writer) (int64, error) {
	hw, _ := w.(archive.HoleWriter)
	var done int64
	for s.pos < s.size {
		hole, k := s.step()
		var err error
		switch {
		case !hole:
			k, err = r.copyData(w, k)
		case hw != nil:
			err = hw.WriteHole(k)
		default:
			k, err = writeZeros(w, k)
		}
		s.pos += k
		done += k
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

func writeZeros(w io.Writer, n int64) (int64, error) {
	var done int64
	for done < n {
		m, err := w.Write(zeros[:min(n-done, int64(len(zeros)))])
		done += int64(m)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}
