package sevenzip

import (
	"encoding/binary"
	"unsafe"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Property IDs of the header database (7zFormat.txt).
const (
	idEnd                   = 0x00
	idHeader                = 0x01
	idArchiveProperties     = 0x02
	idAdditionalStreamsInfo = 0x03
	idMainStreamsInfo       = 0x04
	idFilesInfo             = 0x05
	idPackInfo              = 0x06
	idUnpackInfo            = 0x07
	idSubStreamsInfo        = 0x08
	idSize                  = 0x09
	idCRC                   = 0x0A
	idFolder                = 0x0B
	idCodersUnpackSize      = 0x0C
	idNumUnpackStream       = 0x0D
	idEmptyStream           = 0x0E
	idEmptyFile             = 0x0F
	idAnti                  = 0x10
	idName                  = 0x11
	idCTime                 = 0x12
	idATime                 = 0x13
	idMTime                 = 0x14
	idWinAttributes         = 0x15
	idEncodedHeader         = 0x17
)

// Structural bounds, as 7-Zip's own reader applies them.
const (
	maxCoders        = 64
	maxCoderStreams  = 64
	maxPropsSize     = 1 << 16
	maxNameUnits     = 1 << 15 // UTF-16 units in one name
	maxEncodedHeader = 1 << 30
	maxSize          = 1 << 62 // any size or offset beyond is malformed
)

// coder is one decoding step of a folder.
type coder struct {
	id     uint64 // method ID, big-endian bytes as stored
	numIn  int    // packed-side streams (4 for BCJ2)
	numOut int    // unpacked-side streams (always 1 in practice)
	props  []byte
}

// bindPair connects a coder's input (in) to another coder's output (out).
type bindPair struct{ in, out int }

// folder is a graph of coders turning pack streams into one unpacked stream.
type folder struct {
	coders      []coder
	bindPairs   []bindPair
	packed      []int    // folder in-stream index of each of its pack streams
	unpackSizes []uint64 // per out stream, in coder order
	crc         uint32
	crcDefined  bool

	mainOut   int   // the out stream no bind pair consumes
	firstPack int   // archive index of the folder's first pack stream
	packStart int64 // offset of that pack stream from the end of the signature header
	numSub    int   // substreams (files) stored in the folder
	firstFile int   // index of the folder's first file with data
}

// unpackSize is the size of the folder's final output.
func (f *folder) unpackSize() uint64 { return f.unpackSizes[f.mainOut] }

// streamsInfo is a parsed StreamsInfo block.
type streamsInfo struct {
	packPos        uint64
	packSizes      []uint64
	packCRCs       []uint32
	packCRCDefined []bool
	folders        []folder

	// Substreams, in folder order.
	subSizes      []uint64
	subCRCs       []uint32
	subCRCDefined []bool
}

// file is one item of FilesInfo.
type file struct {
	name          string
	hasStream     bool
	isDir         bool
	anti          bool
	attrib        uint32
	attribDefined bool
	mtime, atime  uint64 // FILETIME, 0 when not defined
	ctime         uint64

	// Set for files with data.
	folder     int
	offset     uint64 // within the folder's unpacked stream
	size       uint64
	crc        uint32
	crcDefined bool
}

// hreader reads header fields from a byte slice with a sticky error, so that
// parsing code can read several fields and check once.
type hreader struct {
	b      []byte
	off    int
	err    error
	budget *int64 // memory the parsed structures may still take
}

// charge takes n items of size bytes from the memory budget: a header
// describing more files or folders than the limit allows is ErrLimit.
func (h *hreader) charge(n, size int) bool {
	if h.budget == nil {
		return h.err == nil
	}
	need := int64(n) * int64(size)
	if h.err == nil && need > *h.budget {
		h.err = archive.Limitf("7z: the header describes %d items, more than the memory limit allows", n)
		h.off = len(h.b)
	}
	if h.err != nil {
		return false
	}
	*h.budget -= need
	return true
}

func (h *hreader) fail() {
	if h.err == nil {
		h.err = ErrBadHeader
	}
	h.off = len(h.b)
}

func (h *hreader) remaining() int { return len(h.b) - h.off }

func (h *hreader) byte() byte {
	if h.off >= len(h.b) {
		h.fail()
		return 0
	}
	c := h.b[h.off]
	h.off++
	return c
}

func (h *hreader) bytes(n uint64) []byte {
	if n > uint64(h.remaining()) {
		h.fail()
		return nil
	}
	b := h.b[h.off : h.off+int(n)]
	h.off += int(n)
	return b
}

// number reads a 7z NUMBER: the count of leading one bits of the first byte
// is the count of little-endian bytes that follow; the rest of the first
// byte holds the high bits.
func (h *hreader) number() uint64 {
	first := h.byte()
	mask := byte(0x80)
	var v uint64
	for i := 0; i < 8; i++ {
		if first&mask == 0 {
			return v | uint64(first&(mask-1))<<(8*i)
		}
		v |= uint64(h.byte()) << (8 * i)
		mask >>= 1
	}
	return v
}

// count reads a NUMBER that counts items; above limit (at most what the
// rest of the header can describe) it is malformed.
func (h *hreader) count(limit int) int {
	n := h.number()
	if h.err != nil || n > uint64(limit) {
		h.fail()
		return 0
	}
	return int(n)
}

func (h *hreader) uint32() uint32 {
	b := h.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (h *hreader) uint64() uint64 {
	b := h.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// skipData skips a property's data: its size, then that many bytes.
func (h *hreader) skipData() {
	h.bytes(h.number())
}

// waitID skips properties until id; kEnd before it is an error.
func (h *hreader) waitID(id uint64) {
	for h.err == nil {
		t := h.number()
		if t == id {
			return
		}
		if t == idEnd {
			h.fail()
			return
		}
		h.skipData()
	}
}

// bits reads a bit vector of n items, most significant bit first.
func (h *hreader) bits(n int) []bool {
	if (n+7)/8 > h.remaining() {
		h.fail()
		return nil
	}
	v := make([]bool, n)
	var c byte
	for i := range v {
		if i%8 == 0 {
			c = h.byte()
		}
		v[i] = c&(0x80>>(i%8)) != 0
	}
	return v
}

// defined reads an "all defined" byte followed, when zero, by a bit vector.
func (h *hreader) defined(n int) []bool {
	if h.byte() == 0 {
		return h.bits(n)
	}
	if h.err != nil {
		return nil
	}
	v := make([]bool, n)
	for i := range v {
		v[i] = true
	}
	return v
}

// digests reads n optional CRCs.
func (h *hreader) digests(n int) ([]uint32, []bool) {
	def := h.defined(n)
	if h.err != nil {
		return nil, nil
	}
	crcs := make([]uint32, n)
	for i, d := range def {
		if d {
			crcs[i] = h.uint32()
		}
	}
	return crcs, def
}

// streamsInfo parses a StreamsInfo block up to and including its kEnd.
func (h *hreader) streamsInfo() *streamsInfo {
	si := &streamsInfo{}
	t := h.number()
	if t == idPackInfo {
		h.packInfo(si)
		t = h.number()
	}
	if t == idUnpackInfo {
		h.unpackInfo(si)
		t = h.number()
	}
	if h.err != nil {
		return nil
	}
	if t == idSubStreamsInfo {
		h.subStreamsInfo(si)
		t = h.number()
	} else {
		for i := range si.folders {
			f := &si.folders[i]
			f.numSub = 1
			si.subSizes = append(si.subSizes, f.unpackSize())
			si.subCRCs = append(si.subCRCs, f.crc)
			si.subCRCDefined = append(si.subCRCDefined, f.crcDefined)
		}
	}
	if t != idEnd {
		h.fail()
	}
	if h.err != nil {
		return nil
	}
	return si
}

func (h *hreader) packInfo(si *streamsInfo) {
	si.packPos = h.number()
	n := h.count(h.remaining())
	h.waitID(idSize)
	if !h.charge(n, 8) {
		return
	}
	si.packSizes = make([]uint64, n)
	for i := range si.packSizes {
		si.packSizes[i] = h.number()
	}
	for h.err == nil {
		t := h.number()
		if t == idEnd {
			break
		}
		if t == idCRC {
			si.packCRCs, si.packCRCDefined = h.digests(n) // 7-Zip never writes them
			continue
		}
		h.skipData()
	}
}

func (h *hreader) unpackInfo(si *streamsInfo) {
	h.waitID(idFolder)
	n := h.count(h.remaining())
	if h.byte() != 0 {
		h.fail() // folders stored in an additional stream: never written
	}
	if !h.charge(n, int(unsafe.Sizeof(folder{}))+64) {
		return
	}
	si.folders = make([]folder, n)
	for i := range si.folders {
		h.folder(&si.folders[i])
	}
	h.waitID(idCodersUnpackSize)
	for i := range si.folders {
		f := &si.folders[i]
		for j := range f.unpackSizes {
			if f.unpackSizes[j] = h.number(); f.unpackSizes[j] > maxSize {
				h.fail()
			}
		}
	}
	for h.err == nil {
		t := h.number()
		if t == idEnd {
			break
		}
		if t == idCRC {
			crcs, def := h.digests(n)
			for i := range crcs {
				si.folders[i].crc, si.folders[i].crcDefined = crcs[i], def[i]
			}
			continue
		}
		h.skipData()
	}
}

// folder parses one Folder record and checks that its coder graph is a
// tree: every stream bound at most once, one unbound output, no cycles.
func (h *hreader) folder(f *folder) {
	nc := h.count(maxCoders)
	if nc == 0 {
		h.fail()
		return
	}
	f.coders = make([]coder, nc)
	numIn, numOut := 0, 0
	for i := range f.coders {
		c := &f.coders[i]
		flags := h.byte()
		if flags&0xC0 != 0 || flags&0x0F > 8 {
			h.fail() // alternative methods, reserved bit or a too long ID
			return
		}
		for _, b := range h.bytes(uint64(flags & 0x0F)) {
			c.id = c.id<<8 | uint64(b)
		}
		c.numIn, c.numOut = 1, 1
		if flags&0x10 != 0 {
			c.numIn = h.count(maxCoderStreams)
			c.numOut = h.count(maxCoderStreams)
		}
		if flags&0x20 != 0 {
			c.props = h.bytes(uint64(h.count(maxPropsSize)))
		}
		numIn += c.numIn
		numOut += c.numOut
	}
	if h.err != nil || numOut == 0 || numIn < numOut-1 {
		h.fail()
		return
	}
	f.bindPairs = make([]bindPair, numOut-1)
	inBound := make([]bool, numIn)
	outBound := make([]bool, numOut)
	for i := range f.bindPairs {
		bp := &f.bindPairs[i]
		bp.in = h.count(numIn - 1)
		bp.out = h.count(numOut - 1)
		if h.err != nil || inBound[bp.in] || outBound[bp.out] {
			h.fail()
			return
		}
		inBound[bp.in], outBound[bp.out] = true, true
	}
	np := numIn - len(f.bindPairs)
	f.packed = make([]int, np)
	if np == 1 {
		for i, b := range inBound {
			if !b {
				f.packed[0] = i
			}
		}
	} else {
		for i := range f.packed {
			j := h.count(numIn - 1)
			if h.err != nil || inBound[j] {
				h.fail()
				return
			}
			inBound[j] = true
			f.packed[i] = j
		}
	}
	f.mainOut = -1
	for i, b := range outBound {
		if !b {
			f.mainOut = i
		}
	}
	f.unpackSizes = make([]uint64, numOut)
	if !f.acyclic() {
		h.fail()
	}
}

// coderOfOut returns the coder producing out stream o.
func (f *folder) coderOfOut(o int) int {
	for i := range f.coders {
		if o < f.coders[i].numOut {
			return i
		}
		o -= f.coders[i].numOut
	}
	return -1
}

// firstIn returns the index of coder c's first in stream.
func (f *folder) firstIn(c int) int {
	n := 0
	for i := 0; i < c; i++ {
		n += f.coders[i].numIn
	}
	return n
}

// bindOfIn returns the bind pair index feeding in stream i, or -1.
func (f *folder) bindOfIn(in int) int {
	for j, bp := range f.bindPairs {
		if bp.in == in {
			return j
		}
	}
	return -1
}

// packOfIn returns which of the folder's pack streams in stream i reads, or -1.
func (f *folder) packOfIn(in int) int {
	for j, p := range f.packed {
		if p == in {
			return j
		}
	}
	return -1
}

// acyclic reports whether every coder is reached exactly once from the
// main output, so that decoding terminates and uses each stream once.
func (f *folder) acyclic() bool {
	if f.mainOut < 0 {
		return false
	}
	seen := make([]bool, len(f.coders))
	var walk func(out, depth int) bool
	walk = func(out, depth int) bool {
		c := f.coderOfOut(out)
		if c < 0 || seen[c] || depth > maxCoders {
			return false
		}
		seen[c] = true
		first := f.firstIn(c)
		for k := 0; k < f.coders[c].numIn; k++ {
			in := first + k
			if j := f.bindOfIn(in); j >= 0 {
				if !walk(f.bindPairs[j].out, depth+1) {
					return false
				}
			} else if f.packOfIn(in) < 0 {
				return false
			}
		}
		return true
	}
	if !walk(f.mainOut, 0) {
		return false
	}
	for _, s := range seen {
		if !s {
			return false
		}
	}
	return true
}

func (h *hreader) subStreamsInfo(si *streamsInfo) {
	for i := range si.folders {
		si.folders[i].numSub = 1
	}
	t := h.number()
	for h.err == nil {
		if t == idNumUnpackStream {
			for i := range si.folders {
				// Each substream after the first needs a size byte.
				si.folders[i].numSub = h.count(h.remaining() + 1)
			}
		} else if t == idCRC || t == idSize || t == idEnd {
			break
		} else {
			h.skipData()
		}
		t = h.number()
	}
	if h.err != nil {
		return
	}
	for i := range si.folders {
		f := &si.folders[i]
		if f.numSub == 0 {
			continue
		}
		if t != idSize && f.numSub > 1 {
			h.fail()
			return
		}
		var sum uint64
		for j := 1; j < f.numSub && t == idSize; j++ {
			s := h.number()
			if h.err != nil || s > f.unpackSize()-sum {
				h.fail()
				return
			}
			si.subSizes = append(si.subSizes, s)
			sum += s
		}
		si.subSizes = append(si.subSizes, f.unpackSize()-sum)
	}
	if t == idSize {
		t = h.number()
	}
	numDigests := 0
	for i := range si.folders {
		f := &si.folders[i]
		if f.numSub != 1 || !f.crcDefined {
			numDigests += f.numSub
		}
	}
	si.subCRCs = make([]uint32, len(si.subSizes))
	si.subCRCDefined = make([]bool, len(si.subSizes))
	haveDigests := false
	for h.err == nil && t != idEnd {
		if t == idCRC && !haveDigests {
			haveDigests = true
			crcs, def := h.digests(numDigests)
			if h.err != nil {
				return
			}
			k, d := 0, 0
			for i := range si.folders {
				f := &si.folders[i]
				if f.numSub == 1 && f.crcDefined {
					si.subCRCs[k], si.subCRCDefined[k] = f.crc, true
					k++
					continue
				}
				for j := 0; j < f.numSub; j++ {
					si.subCRCs[k], si.subCRCDefined[k] = crcs[d], def[d]
					k++
					d++
				}
			}
		} else {
			h.skipData()
		}
		t = h.number()
	}
	if !haveDigests {
		k := 0
		for i := range si.folders {
			f := &si.folders[i]
			if f.numSub == 1 {
				si.subCRCs[k], si.subCRCDefined[k] = f.crc, f.crcDefined
			}
			k += f.numSub
		}
	}
}
