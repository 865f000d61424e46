package zip

import (
	"encoding/binary"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/unpack-dev/unpack/internal/archive"
)

// directory is what the end records and the central directory describe.
type directory struct {
	files    []*header
	comment  string
	cdStart  int64 // where the central directory starts in the joined input
	disks    uint32
	diskNum  uint32 // number of the disk holding the end record
	endStart int64

	duplicates int // repeated records dropped
}

// endRecord is the decoded end of central directory (zip64 values merged).
type endRecord struct {
	diskNum  uint32
	cdDisk   uint32
	count    uint64
	cdSize   uint64
	cdOffset uint64
	comment  []byte
	offset   int64 // of the classic end record
	zip64    bool
	end64Off int64 // of the zip64 end record when zip64
	// encryptedDir: the zip64 end record needs version 6.2 or later, PKWARE's
	// central directory encryption.
	encryptedDir bool
}

// errNoEnd is findEnd's error when the input holds no end record at all.
var errNoEnd = archive.Errorf(ErrFormat, "zip: no end of central directory record")

// errEncryptedDir reports a central directory encrypted with PKWARE's strong
// encryption, which unpack does not read.
var errEncryptedDir = archive.Unsupportedf("zip: the central directory is encrypted (PKWARE strong encryption), which is not supported")

// maxTail is how much of the end of a file can hold the end record and its
// comment, plus room for the zip64 locator before it.
const maxTail = endLen + 0xffff + locator64Len

// findEnd locates and decodes the end of central directory record. skip
// counts candidates to pass over, from the end of the file: the last
// signature is tried first (even when its comment runs past the end of a
// truncated file), then earlier ones, in case a comment holds a signature.
func findEnd(ra io.ReaderAt, size int64, skip int) (*endRecord, error) {
	n := int64(maxTail)
	if n > size {
		n = size
	}
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return nil, err
	}
	i := -1
	for j := len(buf) - endLen; j >= 0; j-- {
		if buf[j] == 'P' && binary.LittleEndian.Uint32(buf[j:]) == sigEnd {
			if skip == 0 {
				i = j
				break
			}
			skip--
		}
	}
	if i < 0 {
		return nil, errNoEnd
	}
	b := readBuf(buf[i+4:])
	e := &endRecord{offset: size - n + int64(i)}
	e.diskNum = uint32(b.uint16())
	e.cdDisk = uint32(b.uint16())
	b.uint16() // entries on this disk
	e.count = uint64(b.uint16())
	e.cdSize = uint64(b.uint32())
	e.cdOffset = uint64(b.uint32())
	clen := min(int(b.uint16()), len(b))
	e.comment = append([]byte(nil), b[:clen]...)
	if i >= locator64Len {
		loc := readBuf(buf[i-locator64Len : i])
		if loc.uint32() == sigLocator64 {
			disk64 := loc.uint32()
			off64 := loc.uint64()
			loc.uint32() // total disks
			if err := e.readEnd64(ra, size, disk64, off64); err != nil {
				return nil, err
			}
		}
	}
	return e, nil
}

// readEnd64 reads the zip64 end record the locator points at. When it is
// not there (an archive with a prefix), it is looked for right before the
// locator, where writers put it.
func (e *endRecord) readEnd64(ra io.ReaderAt, size int64, disk uint32, off uint64) error {
	var b [end64Len]byte
	try := func(at int64) bool {
		if at < 0 || at+end64Len > size {
			return false
		}
		if _, err := ra.ReadAt(b[:], at); err != nil {
			return false
		}
		return binary.LittleEndian.Uint32(b[:]) == sigEnd64
	}
	at := int64(-1)
	if off < 1<<62 && try(int64(off)) && disk == 0 {
		at = int64(off)
	} else if try(e.offset - locator64Len - end64Len) {
		at = e.offset - locator64Len - end64Len
	} else if disk != 0 {
		// On another disk of a set whose parts are not joined: use the
		// classic record's values.
		return nil
	} else {
		return archive.Errorf(ErrFormat, "zip: zip64 end of central directory record not found")
	}
	r := readBuf(b[12:])
	r.uint16() // version made by
	e.encryptedDir = r.uint16()&0xff >= 62
	e.diskNum = r.uint32()
	e.cdDisk = r.uint32()
	r.uint64() // entries on this disk
	e.count = r.uint64()
	e.cdSize = r.uint64()
	e.cdOffset = r.uint64()
	e.zip64 = true
	e.end64Off = at
	return nil
}

// readDirectory reads the central directory of the joined input ra. starts
// maps disk numbers to where each part begins in ra; nil means the input is
// one file (or a raw split whose offsets are global).
func readDirectory(ra io.ReaderAt, size int64, e *endRecord, starts []int64, limit int64) (*directory, error) {
	d := &directory{comment: decodeComment(e.comment), disks: e.diskNum + 1, diskNum: e.diskNum}
	dirEnd := e.offset
	if e.zip64 {
		dirEnd = e.end64Off
	}
	var base int64
	if starts == nil {
		// Archives with a prefix (a self-extractor stub, or a zip appended
		// to something) have offsets that are short by the prefix length;
		// find it from where the directory must end.
		if e.cdOffset > uint64(size) || e.cdSize > uint64(size) {
			return nil, archive.Errorf(ErrFormat, "zip: central directory offset %d out of range", e.cdOffset)
		}
		base = dirEnd - int64(e.cdSize) - int64(e.cdOffset)
		if o := base + int64(e.cdOffset); o < 0 || o > dirEnd {
			return nil, archive.Errorf(ErrFormat, "zip: central directory offset %d out of range", e.cdOffset)
		}
		// Some writers get the directory size wrong; when a directory
		// record sits at the stated offset, trust the offset.
		if base != 0 && int64(e.cdOffset) < dirEnd && hasSig(ra, int64(e.cdOffset), sigCentral) {
			base = 0
		}
		d.cdStart = base + int64(e.cdOffset)
	} else {
		if int64(e.cdDisk) >= int64(len(starts)) {
			return nil, archive.Errorf(archive.ErrMissingVolume, "zip: central directory on missing disk %d", e.cdDisk+1)
		}
		d.cdStart = starts[e.cdDisk] + int64(e.cdOffset)
	}
	d.endStart = dirEnd
	if d.cdStart > dirEnd {
		return nil, archive.Errorf(ErrFormat, "zip: central directory starts after its end")
	}
	cdLen := dirEnd - d.cdStart
	if cdLen > limit {
		return nil, archive.Limitf("zip: central directory of %d bytes exceeds the memory limit", cdLen)
	}
	buf := make([]byte, cdLen)
	if _, err := ra.ReadAt(buf, d.cdStart); err != nil && err != io.EOF {
		return nil, err
	}
	// Each record is at least centralLen bytes, which bounds the count.
	if e.count > uint64(cdLen/centralLen) {
		return nil, archive.Errorf(ErrFormat, "zip: %d entries cannot fit in a %d-byte central directory", e.count, cdLen)
	}
	d.files = make([]*header, 0, e.count)
	for len(buf) >= centralLen && binary.LittleEndian.Uint32(buf) == sigCentral {
		h, n, err := parseCentral(buf)
		if err != nil {
			return nil, err
		}
		buf = buf[n:]
		if starts != nil {
			if int64(h.disk) >= int64(len(starts)) {
				return nil, archive.Errorf(archive.ErrMissingVolume, "zip: entry %q on missing disk %d", h.name, h.disk+1)
			}
			h.offset += starts[h.disk]
		} else {
			h.offset += base
		}
		d.files = append(d.files, h)
	}
	// The count in a classic end record wraps at 65536 entries.
	if n := uint64(len(d.files)); n != e.count && (e.zip64 || uint16(n) != uint16(e.count)) {
		return nil, archive.Errorf(ErrFormat, "zip: central directory has %d entries, end record says %d", n, e.count)
	}
	d.dropDuplicates()
	if err := d.checkOverlap(); err != nil {
		return nil, err
	}
	return d, nil
}

// dropDuplicates removes central directory records that repeat an earlier
// one exactly (same name, same local header): some writers emit them, and
// they describe one file, not two. Records that share a local header under
// different names are left for checkOverlap and the local header check.
func (d *directory) dropDuplicates() {
	type key struct {
		off  int64
		name string
	}
	var seen map[key]bool
	out := d.files[:0]
	for _, h := range d.files {
		k := key{h.offset, h.name}
		if seen == nil {
			seen = make(map[key]bool, len(d.files))
		}
		if seen[k] {
			d.duplicates++
			continue
		}
		seen[k] = true
		out = append(out, h)
	}
	d.files = out
}

// checkOverlap refuses entries whose local header and data overlap another
// entry's or the central directory, and sets each entry's limit (the
// offset its data must not pass). The check uses the smallest possible
// local header (its name may be spelled in fewer bytes there, CP437 for
// UTF-8); the real one is checked again when the entry is opened.
func (d *directory) checkOverlap() error {
	order := make([]int, len(d.files))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return d.files[order[a]].offset < d.files[order[b]].offset })
	for k, i := range order {
		h := d.files[i]
		h.limit = d.cdStart
		if k+1 < len(order) {
			h.limit = d.files[order[k+1]].offset
		}
		if h.offset < 0 {
			return archive.Errorf(ErrFormat, "zip: entry %q: local header offset out of range", h.name)
		}
		nameLen := min(h.nameLen, utf8.RuneCountInString(h.name))
		if end := h.offset + localLen + int64(nameLen) + int64(h.csize); end > h.limit {
			if k+1 < len(order) {
				return archive.Errorf(ErrOverlap, "zip: entries %q and %q overlap (a zip bomb?)", h.name, d.files[order[k+1]].name)
			}
			return archive.Errorf(ErrOverlap, "zip: entry %q overlaps the central directory", h.name)
		}
	}
	return nil
}

// hasSig reports whether a record with signature sig starts at off.
func hasSig(ra io.ReaderAt, off int64, sig uint32) bool {
	var b [4]byte
	if _, err := ra.ReadAt(b[:], off); err != nil {
		return false
	}
	return binary.LittleEndian.Uint32(b[:]) == sig
}

func decodeComment(b []byte) string {
	if utf8Valid(b) {
		return string(b)
	}
	return cp437(b)
}
