package wim

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Magic starts every WIM (and .swm part, and ESD).
const Magic = "MSWIM\x00\x00\x00"

const (
	headerSize = 208

	versionDefault = 0x10d00
	versionSolid   = 0xe00 // 3584: solid resources allowed

	// header flags
	flagCompressed = 0x00000002
	flagSpanned    = 0x00000008
	flagXPRESS     = 0x00020000
	flagLZX        = 0x00040000
	flagLZMS       = 0x00080000
	flagXPRESS2    = 0x00200000

	// resource header flags
	resMetadata   = 0x02
	resCompressed = 0x04
	resSolid      = 0x10

	solidMagic = 0x100000000 // uncompressed size of a solid resource's own entry

	blobEntrySize = 50
)

// Compression types, as solid resource headers number them.
const (
	compNone   = 0
	compXPRESS = 1
	compLZX    = 2
	compLZMS   = 3
)

var compNames = [...]string{"none", "XPRESS", "LZX", "LZMS"}

// reshdr locates a resource in a WIM file.
type reshdr struct {
	size   int64 // stored size (56 bits on disk)
	flags  byte
	offset int64
	usize  uint64 // uncompressed size (solidMagic for a solid resource entry)
}

func parseReshdr(b []byte) reshdr {
	le := binary.LittleEndian
	size := le.Uint64(b) & (1<<56 - 1)
	return reshdr{size: int64(size), flags: b[7], offset: int64(le.Uint64(b[8:]) & (1<<63 - 1)), usize: le.Uint64(b[16:])}
}

// header is the fixed header at the start of every part.
type header struct {
	version    uint32
	flags      uint32
	chunkSize  uint32
	guid       [16]byte
	part       uint16
	totalParts uint16
	images     uint32
	blobTable  reshdr
	xml        reshdr
	integrity  reshdr // offset 0: none
}

func readHeader(ra io.ReaderAt, size int64) (header, error) {
	var h header
	var b [headerSize]byte
	if size < headerSize {
		return h, archive.Corruptf("wim: file shorter than its header")
	}
	if _, err := ra.ReadAt(b[:], 0); err != nil {
		return h, readErr(err)
	}
	if string(b[:8]) != Magic {
		if string(b[:8]) == "WLPWM\x00\x00\x00" {
			return h, archive.Unsupportedf("wim: pipable WIMs are not supported")
		}
		return h, archive.Corruptf("wim: no WIM header")
	}
	le := binary.LittleEndian
	if hs := le.Uint32(b[8:]); hs != headerSize {
		return h, archive.Corruptf("wim: header size %d, want %d", hs, headerSize)
	}
	h.version = le.Uint32(b[12:])
	h.flags = le.Uint32(b[16:])
	h.chunkSize = le.Uint32(b[20:])
	copy(h.guid[:], b[24:40])
	h.part = le.Uint16(b[40:])
	h.totalParts = le.Uint16(b[42:])
	h.images = le.Uint32(b[44:])
	h.blobTable = parseReshdr(b[48:])
	h.xml = parseReshdr(b[72:])
	h.integrity = parseReshdr(b[124:])
	if h.version != versionDefault && h.version != versionSolid {
		return h, archive.Unsupportedf("wim: version %#x", h.version)
	}
	if h.part == 0 || h.totalParts == 0 || h.part > h.totalParts {
		return h, archive.Corruptf("wim: part %d of %d", h.part, h.totalParts)
	}
	// The XML data and the integrity table are at the end: a WIM cut
	// short loses them first.
	for _, r := range []reshdr{h.xml, h.integrity} {
		if r.offset > size || r.size > size-r.offset {
			return h, archive.Corruptf("wim: file cut short (a resource at %d of %d bytes is outside its %d bytes)", r.offset, r.size, size)
		}
	}
	return h, nil
}

// compression is the WIM's default compression of its non-solid
// resources.
func (h *header) compression() (int, error) {
	if h.flags&flagCompressed == 0 {
		return compNone, nil
	}
	switch {
	case h.flags&flagXPRESS != 0:
		return compXPRESS, nil
	case h.flags&flagLZX != 0:
		return compLZX, nil
	case h.flags&flagLZMS != 0:
		return compLZMS, nil
	case h.flags&flagXPRESS2 != 0:
		return 0, archive.Unsupportedf("wim: XPRESS2 compression")
	}
	return 0, archive.Corruptf("wim: compressed, with no known compression flag (%#x)", h.flags)
}

func readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return archive.Corruptf("wim: file cut short")
	}
	return err
}
