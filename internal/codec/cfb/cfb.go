// Package cfb reads Compound File Binary files ([MS-CFB] 2.x: the OLE
// structured storage of .msi, .doc, .xls, thumbs.db…): the header, the
// FAT and its DIFAT, the mini FAT and mini stream, and the directory,
// whose red-black sibling trees are walked as plain binary trees. Storages
// become directories and streams files, named as 7-Zip names them.
//
// # Security concerns
//
// Every sector chain is followed no further than its stream's size needs
// and must not revisit a sector; the directory walk refuses an entry
// reached twice (a loop, or two parents sharing a subtree). The FAT,
// mini FAT and directory are held in memory, each bounded by the input's
// size and the memory limit. CFB carries no checksum.
package cfb

import (
	"encoding/binary"
	"io"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Magic starts every compound file.
const Magic = "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

// Errors. Each errors.Is its archive category.
var (
	ErrHeader    = archive.Corruptf("cfb: invalid header")
	ErrChain     = archive.Corruptf("cfb: invalid sector chain")
	ErrDirectory = archive.Corruptf("cfb: invalid directory")
	ErrTruncated = archive.Corruptf("cfb: truncated file")
)

// maxDepth bounds the nesting of storages: a path is built by walking up
// to the root, for every entry.
const maxDepth = 256

// maxInt bounds what becomes an allocation on 32-bit targets too.
const maxInt = int64(^uint(0) >> 1)

// Special sector numbers.
const (
	maxRegSect = 0xFFFFFFFA
	endOfChain = 0xFFFFFFFE
	freeSect   = 0xFFFFFFFF
	noStream   = 0xFFFFFFFF
)

// Entry types in the directory.
const (
	typeStorage = 1
	typeStream  = 2
	typeRoot    = 5
)

// File is an opened compound file.
type File struct {
	ra           io.ReaderAt
	size         int64
	shift        uint   // sector size 1<<shift
	miniShift    uint   // mini sector size
	miniCutoff   uint64 // streams below this size live in the mini stream
	nSectors     uint32 // sectors the file holds
	fat          []uint32
	miniFAT      []uint32
	mini         []uint32 // the mini stream's sectors, in order
	miniSize     int64
	dir          []dirEntry
	Entries      []*Entry // storages and streams, parents first
	RootCLSID    [16]byte
	limit        int64
	stamp        []uint32 // chain walks' visited marks
	generation   uint32
	majorVersion uint16
}

// dirEntry is a directory entry as stored.
type dirEntry struct {
	name               []uint16
	typ                byte
	left, right, child uint32
	clsid              [16]byte
	created, modified  time.Time
	start              uint32
	size               uint64
}

// Entry is a storage or stream.
type Entry struct {
	Name     []uint16 // as stored (UTF-16)
	Parent   *Entry   // the storage holding it; nil at the root
	Depth    int      // 1 at the root
	Storage  bool
	Size     int64
	Created  time.Time
	Modified time.Time
	start    uint32
}

// OpenFile reads the header, FAT, mini FAT and directory of a compound file of
// size bytes; limit bounds the memory they take.
func OpenFile(ra io.ReaderAt, size, limit int64) (*File, error) {
	var h [512]byte
	if _, err := ra.ReadAt(h[:], 0); err != nil {
		if string(h[:8]) == Magic {
			return nil, ErrTruncated
		}
		return nil, ErrHeader
	}
	if string(h[:8]) != Magic || binary.LittleEndian.Uint16(h[28:]) != 0xFFFE {
		return nil, ErrHeader
	}
	f := &File{ra: ra, size: size, limit: limit}
	f.majorVersion = binary.LittleEndian.Uint16(h[26:])
	f.shift = uint(binary.LittleEndian.Uint16(h[30:]))
	f.miniShift = uint(binary.LittleEndian.Uint16(h[32:]))
	if f.shift != 9 && f.shift != 12 || f.miniShift != 6 {
		return nil, archive.Corruptf("cfb: sector sizes 2^%d and 2^%d", f.shift, f.miniShift)
	}
	if size < 1<<f.shift {
		return nil, ErrTruncated
	}
	// Sector 0 follows the header's sector; a last, partial sector counts.
	n := (size - 1) >> f.shift
	if n > maxRegSect {
		n = maxRegSect
	}
	f.nSectors = uint32(n)
	nFAT := binary.LittleEndian.Uint32(h[44:])
	firstDir := binary.LittleEndian.Uint32(h[48:])
	f.miniCutoff = uint64(binary.LittleEndian.Uint32(h[56:]))
	firstMiniFAT := binary.LittleEndian.Uint32(h[60:])
	nMiniFAT := binary.LittleEndian.Uint32(h[64:])
	firstDIFAT := binary.LittleEndian.Uint32(h[68:])
	nDIFAT := binary.LittleEndian.Uint32(h[72:])
	if nFAT > f.nSectors || nMiniFAT > f.nSectors || nDIFAT > f.nSectors {
		return nil, archive.Corruptf("cfb: more FAT sectors than the file holds")
	}
	if int64(nFAT)<<f.shift > limit || int64(nFAT)<<f.shift > maxInt/2 {
		return nil, archive.Limitf("cfb: a FAT of %d sectors exceeds the memory limit", nFAT)
	}
	if err := f.readFAT(h[76:512], nFAT, firstDIFAT, nDIFAT); err != nil {
		return nil, err
	}
	if err := f.readDirectory(firstDir); err != nil {
		return nil, err
	}
	if nMiniFAT > 0 && firstMiniFAT != endOfChain {
		b, err := f.readChain(firstMiniFAT, int64(nMiniFAT)<<f.shift)
		if err != nil {
			return nil, err
		}
		f.miniFAT = u32s(b)
	}
	root := f.dir[0]
	f.RootCLSID = root.clsid
	if root.size > 0 && root.start != endOfChain {
		if int64(root.size) > size {
			return nil, ErrTruncated
		}
		f.miniSize = int64(root.size)
		sectors, err := f.chain(root.start, f.miniSize)
		if err != nil {
			return nil, err
		}
		f.mini = sectors
	}
	if err := f.walk(); err != nil {
		return nil, err
	}
	return f, nil
}

// readFAT gathers the FAT sectors' numbers from the header's 109 DIFAT
// entries and the DIFAT chain, and reads them.
func (f *File) readFAT(head []byte, nFAT, next, nDIFAT uint32) error {
	secs := make([]uint32, 0, nFAT)
	for i := 0; i < 109 && uint32(len(secs)) < nFAT; i++ {
		secs = append(secs, binary.LittleEndian.Uint32(head[4*i:]))
	}
	per := (1 << f.shift) / 4
	buf := make([]byte, 1<<f.shift)
	for i := uint32(0); i < nDIFAT && uint32(len(secs)) < nFAT; i++ {
		if next >= f.nSectors {
			return ErrChain
		}
		if err := f.readSector(next, buf); err != nil {
			return err
		}
		for j := 0; j < per-1 && uint32(len(secs)) < nFAT; j++ {
			secs = append(secs, binary.LittleEndian.Uint32(buf[4*j:]))
		}
		next = binary.LittleEndian.Uint32(buf[4*(per-1):])
	}
	if uint32(len(secs)) < nFAT {
		return archive.Corruptf("cfb: the DIFAT lists %d of %d FAT sectors", len(secs), nFAT)
	}
	f.fat = make([]uint32, 0, int(nFAT)*per)
	for _, s := range secs {
		if s >= f.nSectors {
			return ErrChain
		}
		if err := f.readSector(s, buf); err != nil {
			return err
		}
		for j := 0; j < per; j++ {
			f.fat = append(f.fat, binary.LittleEndian.Uint32(buf[4*j:]))
		}
	}
	f.stamp = make([]uint32, len(f.fat))
	return nil
}

// readSector reads sector s (which must be below nSectors) into buf; a
// last, partial sector is padded with zeros.
func (f *File) readSector(s uint32, buf []byte) error {
	off := int64(s+1) << f.shift
	n, err := f.ra.ReadAt(buf, off)
	if n < len(buf) {
		if err != nil && err != io.EOF {
			return err
		}
		if off+int64(n) < f.size {
			return ErrTruncated
		}
		clear(buf[n:])
	}
	return nil
}

// chain returns the sectors of the chain from start that hold n bytes;
// the chain must have them, and must not revisit a sector.
func (f *File) chain(start uint32, n int64) ([]uint32, error) {
	need := (n + 1<<f.shift - 1) >> f.shift
	if need > int64(f.nSectors) {
		return nil, ErrTruncated
	}
	f.generation++
	if f.generation == 0 {
		clear(f.stamp)
		f.generation = 1
	}
	out := make([]uint32, 0, need)
	s := start
	for int64(len(out)) < need {
		if s >= f.nSectors || int64(s) >= int64(len(f.fat)) {
			return nil, ErrChain
		}
		if f.stamp[s] == f.generation {
			return nil, archive.Corruptf("cfb: a sector chain loops")
		}
		f.stamp[s] = f.generation
		out = append(out, s)
		s = f.fat[s]
	}
	return out, nil
}

// readChain reads the first n bytes of the chain from start.
func (f *File) readChain(start uint32, n int64) ([]byte, error) {
	if n > f.limit || n > maxInt/2 {
		return nil, archive.Limitf("cfb: a structure of %d bytes exceeds the memory limit", n)
	}
	secs, err := f.chain(start, n)
	if err != nil {
		return nil, err
	}
	b := make([]byte, int64(len(secs))<<f.shift)
	for i, s := range secs {
		if err := f.readSector(s, b[i<<f.shift:(i+1)<<f.shift]); err != nil {
			return nil, err
		}
	}
	return b[:n], nil
}

// chainLen is how many sectors the chain from start has (at most the
// file's), for the directory, whose length the header does not give in
// version 3.
func (f *File) chainLen(start uint32) (int64, error) {
	var n int64
	for s := start; s != endOfChain; s = f.fat[s] {
		if s >= f.nSectors || int(s) >= len(f.fat) || n > int64(f.nSectors) {
			return 0, ErrChain
		}
		n++
	}
	return n, nil
}

func (f *File) readDirectory(start uint32) error {
	n, err := f.chainLen(start)
	if err != nil {
		return err
	}
	b, err := f.readChain(start, n<<f.shift)
	if err != nil {
		return err
	}
	f.dir = make([]dirEntry, len(b)/128)
	for i := range f.dir {
		d := &f.dir[i]
		p := b[128*i : 128*(i+1)]
		nl := int(binary.LittleEndian.Uint16(p[64:]))
		if nl > 64 || nl%2 != 0 {
			nl = 0
		}
		if nl >= 2 {
			nl -= 2 // the terminating NUL
		}
		for j := 0; j < nl; j += 2 {
			d.name = append(d.name, binary.LittleEndian.Uint16(p[j:]))
		}
		d.typ = p[66]
		d.left = binary.LittleEndian.Uint32(p[68:])
		d.right = binary.LittleEndian.Uint32(p[72:])
		d.child = binary.LittleEndian.Uint32(p[76:])
		copy(d.clsid[:], p[80:96])
		d.created = filetime(binary.LittleEndian.Uint64(p[100:]))
		d.modified = filetime(binary.LittleEndian.Uint64(p[108:]))
		d.start = binary.LittleEndian.Uint32(p[116:])
		d.size = binary.LittleEndian.Uint64(p[120:])
		if f.majorVersion == 3 {
			d.size &= 0xFFFFFFFF // the high half may hold garbage in version 3
		}
	}
	if len(f.dir) == 0 || f.dir[0].typ != typeRoot {
		return archive.Corruptf("cfb: no root entry")
	}
	return nil
}

// walk lists every entry under the root, each sibling tree in order,
// refusing an entry reached twice.
func (f *File) walk() error {
	seen := make([]bool, len(f.dir))
	seen[0] = true
	type storage struct {
		child uint32
		e     *Entry
	}
	todo := []storage{{child: f.dir[0].child}}
	for len(todo) > 0 {
		st := todo[0]
		todo = todo[1:]
		// In-order walk of the sibling tree, with an explicit stack.
		var stack []uint32
		n := st.child
		for n != noStream || len(stack) > 0 {
			for n != noStream {
				if int64(n) >= int64(len(f.dir)) || seen[n] {
					return ErrDirectory
				}
				seen[n] = true
				stack = append(stack, n)
				n = f.dir[n].left
			}
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			d := &f.dir[i]
			if d.typ != typeStorage && d.typ != typeStream {
				return ErrDirectory
			}
			e := &Entry{
				Name:     d.name,
				Parent:   st.e,
				Depth:    1,
				Storage:  d.typ == typeStorage,
				Created:  d.created,
				Modified: d.modified,
				start:    d.start,
			}
			if !e.Storage {
				if d.size > uint64(f.size) && !(d.size < f.miniCutoff && int64(d.size) <= f.miniSize) {
					return ErrTruncated
				}
				e.Size = int64(d.size)
			} else {
				todo = append(todo, storage{child: d.child, e: e})
			}
			if st.e != nil {
				e.Depth = st.e.Depth + 1
				if e.Depth > maxDepth {
					return archive.Limitf("cfb: storages nested deeper than %d", maxDepth)
				}
			}
			f.Entries = append(f.Entries, e)
			n = d.right
		}
	}
	return nil
}

// filetime converts a FILETIME (100 ns units since 1601); zero is no time.
func filetime(v uint64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	const epochDiff = 116444736000000000 // 1601 to 1970 in 100 ns
	if v < epochDiff {
		return time.Time{}
	}
	v -= epochDiff
	return time.Unix(int64(v/1e7), int64(v%1e7)*100).UTC()
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}
