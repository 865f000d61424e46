// Package squashfs reads squashfs 4.0 images as an archive.Reader: gzip,
// xz (with its BCJ filters), LZMA, LZ4 and zstd compression; fragments and
// tail-end packing; sparse blocks; hard links (one inode, several names);
// symbolic links; devices, FIFOs and sockets given as TypeOther; extended
// attributes are not read.
//
// squashfs carries no checksum over file data; zlib blocks carry their
// Adler-32, xz blocks their check and zstd frames theirs, and those are
// verified. Directory loops, inodes outside the table and blocks outside
// the image are refused as corrupt.
package squashfs

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

const (
	magic        = 0x73717368
	superSize    = 96
	metaSize     = 8192
	noFragment   = 0xFFFFFFFF
	blockStored  = 1 << 24 // a data block stored uncompressed
	metaStored   = 1 << 15 // a metadata block stored uncompressed
	maxDepth     = 1024
	maxBlockSize = 1 << 20
)

// Inode types.
const (
	inDir = 1 + iota
	inFile
	inSymlink
	inBlock
	inChar
	inFIFO
	inSocket
	inLDir
	inLFile
	inLSymlink
	inLBlock
	inLChar
	inLFIFO
	inLSocket
)

type superblock struct {
	inodes      uint32
	mtime       uint32
	blockSize   uint32
	fragments   uint32
	compression uint16
	flags       uint16
	root        uint64
	bytesUsed   uint64
	inodeTable  uint64
	dirTable    uint64
	fragTable   uint64
}

// file is an entry and where its data are.
type file struct {
	entry     *archive.Entry
	start     int64    // first data block
	sizes     []uint32 // on-disk size of each block
	frag      uint32   // fragment index, noFragment when none
	fragOff   uint32   // offset of the tail in its fragment block
	size      int64
	blockSize int64
}

// Reader reads a squashfs image. It implements archive.Reader and
// archive.RandomAccess.
type Reader struct {
	*archive.ListReader
	ra    io.ReaderAt
	size  int64
	sb    superblock
	limit int64
	frags []fragment
	files []file
	pool  sync.Pool // decompressors
	bufs  sync.Pool // *[]byte of bufSize: decoded blocks and compressed input
	frag  fragCache
}

// bufSize is the length of the pooled buffers: a data block, or the most
// a compressed one may take (see readBlock).
func (r *Reader) bufSize() int { return int(r.sb.blockSize) + 1024 }

// getBuf returns a pooled buffer of bufSize bytes; putBuf gives it back.
func (r *Reader) getBuf() *[]byte  { return r.bufs.Get().(*[]byte) }
func (r *Reader) putBuf(b *[]byte) { r.bufs.Put(b) }

type fragment struct {
	start int64
	size  uint32
}

// Open reads the image in in.RA.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if in.RA == nil {
		return nil, archive.Unsupportedf("squashfs: an image cannot be read from a pipe; give it as a file")
	}
	return NewReader(in.RA, in.Size, opt)
}

// NewReader reads the superblock, the fragment table and the directory
// tree of the image of size bytes in ra.
func NewReader(ra io.ReaderAt, size int64, opt *archive.Options) (*Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	var b [superSize]byte
	if _, err := ra.ReadAt(b[:], 0); err != nil {
		return nil, readErr(err)
	}
	le := binary.LittleEndian
	if le.Uint32(b[:]) != magic {
		return nil, archive.Corruptf("squashfs: no superblock")
	}
	if major, minor := le.Uint16(b[28:]), le.Uint16(b[30:]); major != 4 || minor != 0 {
		return nil, archive.Unsupportedf("squashfs: version %d.%d", major, minor)
	}
	sb := superblock{inodes: le.Uint32(b[4:]), mtime: le.Uint32(b[8:]), blockSize: le.Uint32(b[12:]),
		fragments: le.Uint32(b[16:]), compression: le.Uint16(b[20:]), flags: le.Uint16(b[24:]),
		root: le.Uint64(b[32:]), bytesUsed: le.Uint64(b[40:]), inodeTable: le.Uint64(b[64:]),
		dirTable: le.Uint64(b[72:]), fragTable: le.Uint64(b[80:])}
	if sb.blockSize < 4096 || sb.blockSize > maxBlockSize || sb.blockSize&(sb.blockSize-1) != 0 {
		return nil, archive.Corruptf("squashfs: block size %d", sb.blockSize)
	}
	if int64(sb.blockSize) > opt.Limit() {
		return nil, archive.Limitf("squashfs: block size %d exceeds the memory limit", sb.blockSize)
	}
	if sb.bytesUsed > uint64(size) {
		return nil, archive.Corruptf("squashfs: the image says %d bytes, it has %d", sb.bytesUsed, size)
	}
	if _, err := newDecompressor(sb.compression, opt.Limit()); err != nil {
		return nil, err
	}
	r := &Reader{ra: ra, size: size, sb: sb, limit: opt.Limit()}
	r.pool.New = func() any { d, _ := newDecompressor(sb.compression, r.limit); return d }
	r.bufs.New = func() any { b := make([]byte, r.bufSize()); return &b }
	r.frag.init(int64(sb.blockSize), r.limit)
	if err := r.readFragments(); err != nil {
		return nil, err
	}
	w := &walker{r: r, inodes: newMeta(r, sb.inodeTable, sb.dirTable), dirs: newMeta(r, sb.dirTable, min(sb.fragTable, sb.bytesUsed)),
		seen: map[uint32]int{}, entered: map[uint64]bool{}}
	root, err := w.inode(sb.root)
	if err != nil {
		return nil, err
	}
	if root.typ != inDir && root.typ != inLDir {
		return nil, archive.Corruptf("squashfs: the root inode is no directory")
	}
	if err := w.dir(root, sb.root, "", 0); err != nil {
		return nil, err
	}
	list := make([]*archive.Entry, len(r.files))
	for i := range r.files {
		list[i] = r.files[i].entry
	}
	r.ListReader = archive.NewListReader("squashfs", list, func(i int) (io.ReadCloser, error) { return r.data(&r.files[i]), nil })
	return r, nil
}

func readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return archive.Corruptf("squashfs: image cut short")
	}
	return err
}

// decompressor takes a decompressor from the pool; put gives it back.
func (r *Reader) decompressor() decompressor { return r.pool.Get().(decompressor) }

// readBlock reads n bytes at off and, unless stored, decompresses them
// into dst.
func (r *Reader) readBlock(dst []byte, off int64, n uint32, stored bool) (int, error) {
	if off < 0 || off > r.size-int64(n) || n > uint32(len(dst))+1024 {
		return 0, archive.Corruptf("squashfs: block of %d bytes at %d outside the image", n, off)
	}
	if stored {
		if int(n) > len(dst) {
			return 0, archive.Corruptf("squashfs: stored block of %d bytes, more than %d", n, len(dst))
		}
		_, err := r.ra.ReadAt(dst[:n], off)
		return int(n), readErr(err)
	}
	var src []byte
	if int(n) <= r.bufSize() {
		bp := r.getBuf()
		defer r.putBuf(bp)
		src = (*bp)[:n]
	} else {
		src = make([]byte, n) // a metadata block in an image of 4 KiB blocks
	}
	if _, err := r.ra.ReadAt(src, off); err != nil {
		return 0, readErr(err)
	}
	d := r.decompressor()
	defer r.pool.Put(d)
	got, err := d.decompress(dst, src)
	if err != nil && !archive.Categorized(err) {
		// The input is in memory: whatever a decoder says is damage.
		err = archive.Corruptf("squashfs: %s block: %v", compNames[r.sb.compression], err)
	}
	return got, err
}

// readFragments reads the fragment table: an array of pointers to
// metadata blocks of 16-byte entries.
func (r *Reader) readFragments() error {
	n := r.sb.fragments
	if n == 0 {
		return nil
	}
	if uint64(n)*16 > uint64(r.limit) || uint64(n) > uint64(r.size) {
		return archive.Corruptf("squashfs: %d fragments", n)
	}
	blocks := (n*16 + metaSize - 1) / metaSize
	ptrs := make([]byte, blocks*8)
	if r.sb.fragTable > uint64(r.size) || uint64(len(ptrs)) > uint64(r.size)-r.sb.fragTable {
		return archive.Corruptf("squashfs: fragment table outside the image")
	}
	if _, err := r.ra.ReadAt(ptrs, int64(r.sb.fragTable)); err != nil {
		return readErr(err)
	}
	var table []byte
	for i := uint32(0); i < blocks; i++ {
		m := newMeta(r, binary.LittleEndian.Uint64(ptrs[8*i:]), r.sb.fragTable)
		blk, err := m.block(m.start)
		if err != nil {
			return err
		}
		table = append(table, blk.data...)
	}
	if uint32(len(table)) < n*16 {
		return archive.Corruptf("squashfs: fragment table cut short")
	}
	r.frags = make([]fragment, n)
	for i := range r.frags {
		e := table[16*i:]
		r.frags[i] = fragment{int64(binary.LittleEndian.Uint64(e)), binary.LittleEndian.Uint32(e[8:])}
	}
	return nil
}

// metaBlock is one decoded metadata block and where the next one starts.
type metaBlock struct {
	data []byte
	next uint64
}

// meta reads a metadata table (inodes, directories) from start to end,
// caching decoded blocks.
type meta struct {
	r          *Reader
	start, end uint64
	cache      map[uint64]metaBlock
}

func newMeta(r *Reader, start, end uint64) *meta {
	return &meta{r: r, start: start, end: end, cache: map[uint64]metaBlock{}}
}

// block decodes the metadata block at absolute offset at.
func (m *meta) block(at uint64) (metaBlock, error) {
	if b, ok := m.cache[at]; ok {
		return b, nil
	}
	var h [2]byte
	if at < m.start || at >= uint64(m.r.size) || uint64(m.r.size)-at < 2 {
		return metaBlock{}, archive.Corruptf("squashfs: metadata block at %d outside its table", at)
	}
	if _, err := m.r.ra.ReadAt(h[:], int64(at)); err != nil {
		return metaBlock{}, readErr(err)
	}
	n := binary.LittleEndian.Uint16(h[:])
	stored := n&metaStored != 0
	n &^= metaStored
	if n == 0 || n > metaSize+1024 {
		return metaBlock{}, archive.Corruptf("squashfs: metadata block of %d bytes", n)
	}
	dst := make([]byte, metaSize)
	got, err := m.r.readBlock(dst, int64(at)+2, uint32(n), stored)
	if err != nil {
		return metaBlock{}, fmt.Errorf("squashfs: metadata block at %d: %w", at, err)
	}
	b := metaBlock{data: dst[:got], next: at + 2 + uint64(n)}
	if len(m.cache) < 4096 {
		m.cache[at] = b
	}
	return b, nil
}

// read reads n bytes from the table at (block offset rel, offset off in
// the decoded block), crossing blocks as needed, and returns where it
// stopped.
func (m *meta) read(rel uint64, off int, n int) ([]byte, uint64, int, error) {
	at := m.start + rel
	out := make([]byte, 0, n)
	for len(out) < n {
		b, err := m.block(at)
		if err != nil {
			return nil, 0, 0, err
		}
		if off > len(b.data) {
			return nil, 0, 0, archive.Corruptf("squashfs: offset %d in a metadata block of %d bytes", off, len(b.data))
		}
		take := min(n-len(out), len(b.data)-off)
		out = append(out, b.data[off:off+take]...)
		off += take
		if off == len(b.data) && len(out) < n {
			if b.next >= m.end {
				return nil, 0, 0, archive.Corruptf("squashfs: metadata runs past its table")
			}
			at, off = b.next, 0
		}
	}
	return out, at - m.start, off, nil
}

// cursor reads consecutive fields from a metadata table.
type cursor struct {
	m   *meta
	rel uint64
	off int
	err error
}

func (c *cursor) bytes(n int) []byte {
	if c.err != nil {
		return make([]byte, n)
	}
	b, rel, off, err := c.m.read(c.rel, c.off, n)
	if err != nil {
		c.err = err
		return make([]byte, n)
	}
	c.rel, c.off = rel, off
	return b
}

func (c *cursor) u16() uint16 { return binary.LittleEndian.Uint16(c.bytes(2)) }
func (c *cursor) u32() uint32 { return binary.LittleEndian.Uint32(c.bytes(4)) }
func (c *cursor) u64() uint64 { return binary.LittleEndian.Uint64(c.bytes(8)) }

// inode is a decoded inode.
type inode struct {
	typ      uint16
	mode     uint16
	mtime    uint32
	number   uint32
	dirBlock uint32 // directories: listing start (block rel. to the table)
	dirOff   uint16
	dirSize  uint32 // listing size + 3
	start    uint64 // files: first block
	size     uint64
	frag     uint32
	fragOff  uint32
	sizes    []uint32
	target   string // symlinks
}

type walker struct {
	r       *Reader
	inodes  *meta
	dirs    *meta
	seen    map[uint32]int  // inode number → first entry
	entered map[uint64]bool // directory inodes entered
}

// inode reads the inode at reference ref (block << 16 | offset).
func (w *walker) inode(ref uint64) (*inode, error) {
	c := &cursor{m: w.inodes, rel: ref >> 16, off: int(ref & 0xFFFF)}
	in := &inode{typ: c.u16(), mode: c.u16()}
	c.u16() // uid index
	c.u16() // gid index
	in.mtime, in.number = c.u32(), c.u32()
	switch in.typ {
	case inDir:
		in.dirBlock = c.u32()
		c.u32() // link count
		in.dirSize = uint32(c.u16())
		in.dirOff = c.u16()
		c.u32() // parent
	case inLDir:
		c.u32() // link count
		in.dirSize, in.dirBlock = c.u32(), c.u32()
		c.u32() // parent
		c.u16() // directory index entries: they only speed up lookups
		in.dirOff = c.u16()
		c.u32() // xattr
	case inFile, inLFile:
		if in.typ == inFile {
			in.start = uint64(c.u32())
			in.frag, in.fragOff = c.u32(), c.u32()
			in.size = uint64(c.u32())
		} else {
			in.start, in.size = c.u64(), c.u64()
			c.u64() // sparse bytes
			c.u32() // link count
			in.frag, in.fragOff = c.u32(), c.u32()
			c.u32() // xattr
		}
		bs := uint64(w.r.sb.blockSize)
		n := in.size / bs
		if in.frag == noFragment && in.size%bs != 0 {
			n++
		}
		// The block list is in the inode table, which the image holds.
		if n*4 > uint64(w.r.size) {
			return nil, archive.Corruptf("squashfs: a file of %d blocks", n)
		}
		if n*4 > uint64(w.r.limit) || n > math.MaxInt32/4 {
			return nil, archive.Limitf("squashfs: a block list of %d blocks exceeds the memory limit", n)
		}
		raw := c.bytes(int(n) * 4)
		in.sizes = make([]uint32, n)
		for i := range in.sizes {
			in.sizes[i] = binary.LittleEndian.Uint32(raw[4*i:])
		}
	case inSymlink, inLSymlink:
		c.u32() // link count
		n := c.u32()
		if n > 64<<10 {
			return nil, archive.Corruptf("squashfs: a link of %d bytes", n)
		}
		in.target = string(c.bytes(int(n)))
	case inBlock, inChar, inLBlock, inLChar:
		c.u32()
		c.u32()
	case inFIFO, inSocket, inLFIFO, inLSocket:
		c.u32()
	default:
		return nil, archive.Corruptf("squashfs: inode type %d", in.typ)
	}
	if c.err != nil {
		return nil, c.err
	}
	return in, nil
}

// dir adds the entries of the directory in (at reference ref).
func (w *walker) dir(in *inode, ref uint64, prefix string, depth int) error {
	if depth > maxDepth {
		return archive.Corruptf("squashfs: directories nested more than %d deep", maxDepth)
	}
	if w.entered[ref] {
		return archive.Corruptf("squashfs: directory loop")
	}
	w.entered[ref] = true
	if in.dirSize < 3 {
		return nil
	}
	left := int(in.dirSize) - 3
	c := &cursor{m: w.dirs, rel: uint64(in.dirBlock), off: int(in.dirOff)}
	prev := ""
	for left > 0 {
		count, start := c.u32(), c.u32()
		c.u32() // inode number base
		left -= 12
		if c.err != nil {
			return c.err
		}
		if count >= 256 {
			return archive.Corruptf("squashfs: directory header of %d entries", count+1)
		}
		for i := uint32(0); i <= count; i++ {
			off := c.u16()
			c.u16() // inode number delta
			c.u16() // type
			n := int(c.u16()) + 1
			name := string(c.bytes(n))
			left -= 8 + n
			if c.err != nil {
				return c.err
			}
			if name == "." || name == ".." || containsSlash(name) {
				return archive.Corruptf("squashfs: %s: an entry named %q", prefix, name)
			}
			// Listings are sorted: a name repeated (a link and a directory
			// of one name) is damage or an attack.
			if name <= prev {
				return archive.Corruptf("squashfs: %s: names repeated or out of order (%q after %q)", prefix, name, prev)
			}
			prev = name
			childRef := uint64(start)<<16 | uint64(off)
			if err := w.entry(childRef, prefix+name, depth); err != nil {
				return err
			}
		}
		if left < 0 {
			return archive.Corruptf("squashfs: %s: directory listing runs past its size", prefix)
		}
	}
	return nil
}

func containsSlash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == 0 {
			return true
		}
	}
	return false
}

// entry adds the entry name whose inode is at ref.
func (w *walker) entry(ref uint64, name string, depth int) error {
	in, err := w.inode(ref)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	e := &archive.Entry{Name: name, Mode: archive.UnixMode(uint32(in.mode)), PackedSize: -1,
		ModTime: time.Unix(int64(in.mtime), 0).UTC()}
	if first, ok := w.seen[in.number]; ok && (in.typ == inFile || in.typ == inLFile) {
		f := w.r.files[first].entry
		e.Type, e.Linkname = archive.TypeHardlink, f.Name
		w.r.files = append(w.r.files, file{entry: e})
		return nil
	}
	switch in.typ {
	case inDir, inLDir:
		e.Type = archive.TypeDir
		w.r.files = append(w.r.files, file{entry: e})
		return w.dir(in, ref, name+"/", depth+1)
	case inFile, inLFile:
		if in.frag != noFragment && in.frag >= uint32(len(w.r.frags)) {
			return archive.Corruptf("squashfs: %s: fragment %d of %d", name, in.frag, len(w.r.frags))
		}
		e.Type, e.Size = archive.TypeFile, int64(in.size)
		w.seen[in.number] = len(w.r.files)
		w.r.files = append(w.r.files, file{entry: e, start: int64(in.start), sizes: in.sizes, frag: in.frag,
			fragOff: in.fragOff, size: int64(in.size), blockSize: int64(w.r.sb.blockSize)})
		return nil
	case inSymlink, inLSymlink:
		e.Type, e.Linkname = archive.TypeSymlink, in.target
	case inBlock, inLBlock:
		e.Type, e.Device = archive.TypeOther, "block device"
	case inChar, inLChar:
		e.Type, e.Device = archive.TypeOther, "char device"
	case inFIFO, inLFIFO:
		e.Type, e.Device = archive.TypeOther, "fifo"
	default:
		e.Type, e.Device = archive.TypeOther, "socket"
	}
	w.r.files = append(w.r.files, file{entry: e})
	return nil
}
