package rar5

import (
	"encoding/binary"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// RAR 5 header types.
const (
	headMain    = 1
	headFile    = 2
	headService = 3
	headCrypt   = 4
	headEnd     = 5
)

// Flags common to every RAR 5 header.
const (
	hflExtra       = 0x0001 // an extra area is present
	hflData        = 0x0002 // a data area follows the header
	hflSplitBefore = 0x0008 // data continues from the previous volume
	hflSplitAfter  = 0x0010 // data continues in the next volume
)

// Main header flags.
const (
	mhflVolume    = 0x0001
	mhflVolNumber = 0x0002
	mhflSolid     = 0x0004
)

// File header flags.
const (
	fhflDir        = 0x0001
	fhflUnixTime   = 0x0002
	fhflCRC32      = 0x0004
	fhflUnpUnknown = 0x0008
)

// File and service extra record types.
const (
	fhexCrypt = 0x01
	fhexHash  = 0x02
	fhexTime  = 0x03
	fhexRedir = 0x05
)

// Redirection types.
const (
	redirUnixSymlink = 1
	redirWinSymlink  = 2
	redirJunction    = 3
	redirHardLink    = 4
	redirFileCopy    = 5
)

// Limits on what a header may declare.
const (
	maxHeader5Size = 2 << 20  // unrar's limit for one header
	maxName5Len    = 64 << 10 // longest name accepted
)

// field reads the fields of one header body. A read past the end sets a
// sticky error and returns zeros, so a parse is checked once at the end.
type field struct {
	b   []byte
	bad bool
}

// vint reads a variable-length integer: 7 bits per byte, low first, the
// high bit of each byte set when more follow (at most 10 bytes).
func (f *field) vint() uint64 {
	var v uint64
	for i := 0; i < 10 && i < len(f.b); i++ {
		c := f.b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			f.b = f.b[i+1:]
			return v
		}
	}
	f.bad, f.b = true, nil
	return 0
}

// size reads a vint that must fit in an int no larger than max.
func (f *field) size(max int) int {
	v := f.vint()
	if v > uint64(max) {
		f.bad = true
		return 0
	}
	return int(v)
}

func (f *field) bytes(n int) []byte {
	if n < 0 || n > len(f.b) {
		f.bad, f.b = true, nil
		return nil
	}
	r := f.b[:n:n]
	f.b = f.b[n:]
	return r
}

func (f *field) u32() uint32 {
	b := f.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (f *field) u64() uint64 {
	b := f.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (f *field) byte1() byte {
	b := f.bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// block is a parsed common header.
type block struct {
	typ      uint64
	flags    uint64
	dataSize int64
	body     field  // type-specific fields
	extra    []byte // extra area
	offset   int64  // offset of the header in its volume (for messages)
}

// parseBlock splits a header (the bytes after its size field) into the
// common fields, the type-specific body and the extra area.
func parseBlock(h []byte, offset int64) (block, error) {
	f := field{b: h}
	b := block{offset: offset}
	b.typ = f.vint()
	b.flags = f.vint()
	extraSize := 0
	if b.flags&hflExtra != 0 {
		extraSize = f.size(maxHeader5Size)
	}
	if b.flags&hflData != 0 {
		v := f.vint()
		if v > 1<<62 {
			f.bad = true
		}
		b.dataSize = int64(v)
	}
	if f.bad || extraSize > len(f.b) {
		return b, archive.Corruptf("rar: malformed header at offset %d", offset)
	}
	b.extra = f.b[len(f.b)-extraSize:]
	b.body = field{b: f.b[:len(f.b)-extraSize]}
	return b, nil
}

// mainHeader is the main archive header.
type mainHeader struct {
	flags  uint64
	volNum uint64
}

func parseMain(b *block) (mainHeader, error) {
	var m mainHeader
	m.flags = b.body.vint()
	if m.flags&mhflVolNumber != 0 {
		m.volNum = b.body.vint()
	}
	if b.body.bad {
		return m, archive.Corruptf("rar: malformed main header at offset %d", b.offset)
	}
	// The extra area (locator, metadata) is not needed to read sequentially.
	return m, nil
}

// crypt is an encryption record: of the archive (headers) or of one
// entry's data.
type crypt struct {
	lg2Count int
	salt     [16]byte
	iv       [16]byte // entries only
	check    []byte   // 12 bytes when present
	useMAC   bool     // entries: checksums are keyed with the hash key
}

const (
	cryptPswCheck = 0x0001
	cryptUseMAC   = 0x0002
)

// parseCrypt reads an encryption record's fields; withIV for entries.
func parseCrypt(f *field, withIV bool, offset int64) (*crypt, error) {
	c := new(crypt)
	if v := f.vint(); v != 0 && !f.bad {
		return nil, archive.Unsupportedf("rar: encryption version %d", v)
	}
	flags := f.vint()
	c.lg2Count = int(f.byte1())
	copy(c.salt[:], f.bytes(16))
	if withIV {
		copy(c.iv[:], f.bytes(16))
	}
	if flags&cryptPswCheck != 0 {
		c.check = append([]byte(nil), f.bytes(12)...)
	}
	c.useMAC = flags&cryptUseMAC != 0
	if f.bad {
		return nil, archive.Corruptf("rar: malformed encryption record at offset %d", offset)
	}
	return c, nil
}

// fileHeader is a file or service header.
type fileHeader struct {
	block
	fflags    uint64 // file flags (block.flags holds the common ones)
	unpSize   int64  // -1 when unknown
	attr      uint64
	mtime     time.Time
	atime     time.Time
	hasCRC    bool
	crc       uint32
	version   uint64 // compression algorithm version: 0 (5.0), 1 (7.0)
	solid     bool
	method    int
	dictSize  uint64
	extraDist bool // 7.0 algorithm with 64-bit distances
	hostOS    uint64
	name      string
	crypt     *crypt
	blake     []byte // 32-byte BLAKE2sp, nil when absent
	hashType  uint64 // 1 + the type of a hash record other than BLAKE2sp, 0 when none
	redirType uint64
	redirName string
}

// Compression info fields.
const (
	ciSolid        = 0x40
	ciRAR5Compat   = 0x100000
	dictBase       = 128 << 10
	maxDict5Log2V0 = 15 // 4 GiB
	maxDict5Log2V1 = 23 // 1 TiB
)

func parseFile(b *block) (*fileHeader, error) {
	fh := &fileHeader{block: *b}
	f := &fh.body
	fh.fflags = f.vint()
	fh.unpSize = int64(f.vint())
	if fh.fflags&fhflUnpUnknown != 0 {
		fh.unpSize = -1
	} else if fh.unpSize < 0 {
		f.bad = true
	}
	fh.attr = f.vint()
	if fh.fflags&fhflUnixTime != 0 {
		fh.mtime = time.Unix(int64(f.u32()), 0)
	}
	if fh.fflags&fhflCRC32 != 0 {
		fh.hasCRC = true
		fh.crc = f.u32()
	}
	ci := f.vint()
	fh.hostOS = f.vint()
	nameLen := f.size(maxName5Len)
	name := f.bytes(nameLen)
	if f.bad {
		return nil, archive.Corruptf("rar: malformed file header at offset %d", b.offset)
	}
	fh.name = string(name)
	fh.version = ci & 0x3f
	fh.solid = ci&ciSolid != 0
	fh.method = int(ci>>7) & 7
	n := ci >> 10 & 0x1f
	switch fh.version {
	case 0:
		if n > maxDict5Log2V0 {
			return nil, archive.Unsupportedf("rar: dictionary size code %d", n)
		}
		fh.dictSize = dictBase << n
	case 1:
		if n > maxDict5Log2V1 {
			return nil, archive.Unsupportedf("rar: dictionary size code %d", n)
		}
		fh.dictSize = dictBase << n
		fh.dictSize += fh.dictSize / 32 * (ci >> 15 & 0x1f)
		fh.extraDist = ci&ciRAR5Compat == 0
	default:
		if fh.method != 0 {
			return nil, archive.Unsupportedf("rar: compression algorithm version %d", fh.version)
		}
	}
	if fh.method > 5 {
		return nil, archive.Unsupportedf("rar: compression method %d", fh.method)
	}
	if err := fh.parseExtra(); err != nil {
		return nil, err
	}
	return fh, nil
}

// parseExtra reads the extra records of a file or service header. Unknown
// records are skipped, and so are the owner record (names and ids the sinks
// do not apply) and the file version record: an older version keeps the
// name it was stored under (unrar -ver would append ";N"), so a later,
// newer version of the same name replaces it on extraction.
func (fh *fileHeader) parseExtra() error {
	x := field{b: fh.extra}
	for len(x.b) > 0 {
		size := x.size(len(x.b))
		rec := field{b: x.bytes(size)}
		if x.bad {
			return archive.Corruptf("rar: malformed extra area at offset %d", fh.offset)
		}
		typ := rec.vint()
		switch typ {
		case fhexCrypt:
			c, err := parseCrypt(&rec, true, fh.offset)
			if err != nil {
				return err
			}
			fh.crypt = c
		case fhexHash:
			if t := rec.vint(); t == 0 { // BLAKE2sp
				if d := rec.bytes(32); d != nil {
					fh.blake = append([]byte(nil), d...)
				}
			} else {
				fh.hashType = t + 1
			}
		case fhexTime:
			fh.parseTimes(&rec)
		case fhexRedir:
			fh.redirType = rec.vint()
			rec.vint() // flags: directory link
			n := rec.size(maxName5Len)
			fh.redirName = string(rec.bytes(n))
		}
		if rec.bad {
			return archive.Corruptf("rar: malformed extra record %d at offset %d", typ, fh.offset)
		}
	}
	return nil
}

// Time record flags.
const (
	htimeUnix  = 0x01
	htimeMTime = 0x02
	htimeCTime = 0x04
	htimeATime = 0x08
	htimeNS    = 0x10
)

func (fh *fileHeader) parseTimes(f *field) {
	flags := f.vint()
	unix := flags&htimeUnix != 0
	var ts [3]time.Time
	var raw [3]uint64
	have := [3]bool{flags&htimeMTime != 0, flags&htimeCTime != 0, flags&htimeATime != 0}
	for i := range ts {
		if !have[i] {
			continue
		}
		if unix {
			raw[i] = uint64(f.u32())
		} else {
			raw[i] = f.u64()
		}
	}
	for i := range ts {
		if !have[i] {
			continue
		}
		if unix {
			ns := int64(0)
			if flags&htimeNS != 0 {
				if ns = int64(f.u32() & 0x3fffffff); ns >= 1e9 {
					ns = 0
				}
			}
			ts[i] = time.Unix(int64(raw[i]), ns)
		} else {
			ts[i] = filetime(raw[i])
		}
	}
	if have[0] {
		fh.mtime = ts[0]
	}
	if have[2] {
		fh.atime = ts[2]
	}
}

// filetime converts a Windows FILETIME (100 ns ticks since 1601) to a time.
func filetime(t uint64) time.Time {
	const epochDiff = 116444736000000000 // 1601 to 1970 in 100 ns ticks
	sec := int64(t/1e7) - epochDiff/1e7
	return time.Unix(sec, int64(t%1e7)*100)
}
