// Package xar reads XAR archives (eXtensible ARchiver, as macOS .pkg
// installers and .xip bundles use): a binary header, a zlib-compressed XML
// table of contents (TOC) and a heap holding the TOC's checksum and every
// file's data, each encoded on its own (stored, zlib, bzip2, xz or LZMA).
// It follows the format as Apple's xar 1.5 writes it and libarchive reads
// it (archive_read_support_format_xar.c); the TOC's checksum, and every
// file's archived-checksum (of the bytes in the heap) and
// extracted-checksum (of the decoded data), are verified.
//
// A flat .pkg is a XAR whose components (PKG/Payload, PKG/Scripts) are
// cpio archives compressed with gzip or pbzx (a "pbzx" header and xz
// chunks); a .xip holds its Content as pbzx. Such a member is read in the
// same pass as a tree under its name (PKG/Payload/usr/…), its entries
// Pending until the member's own checksums have passed.
//
// # Security concerns
//
// The TOC is held in memory, decompressed: its declared size is bounded
// by the memory limit, and it must decompress to exactly that size. File
// extents must lie inside the input and may not partially overlap one
// another; shared extents (xar's duplicate data) are read once per file.
package xar

import (
	"encoding/binary"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Magic starts every XAR archive.
const Magic = "xar!"

// Errors. Each errors.Is its archive category.
var (
	ErrHeader    = archive.Corruptf("xar: invalid header")
	ErrTOC       = archive.Corruptf("xar: invalid table of contents")
	ErrTruncated = archive.Corruptf("xar: truncated archive")
	ErrExtent    = archive.Corruptf("xar: file data outside the heap or overlapping other data")
	ErrSize      = archive.Corruptf("xar: decoded data differ in size from the table of contents")
)

const (
	headerSize    = 28
	maxHeaderSize = 4096 // a larger header is refused
)

// header is the fixed part of a XAR file.
type header struct {
	size           int64 // header length, where the TOC starts
	tocCompressed  uint64
	tocUncompressd uint64
	check          verify.Kind // the TOC checksum's kind
	checkName      string      // as named ("sha1", "sha256"…)
}

// parseHeader reads the header from b, which holds at least its first
// headerSize bytes and as many more as are available up to maxHeaderSize.
func parseHeader(b []byte) (*header, error) {
	if len(b) < headerSize || string(b[:4]) != Magic {
		return nil, ErrHeader
	}
	h := &header{size: int64(binary.BigEndian.Uint16(b[4:]))}
	if v := binary.BigEndian.Uint16(b[6:]); v != 1 {
		return nil, archive.Unsupportedf("xar: header version %d", v)
	}
	if h.size < headerSize || h.size > int64(len(b)) {
		return nil, ErrHeader
	}
	h.tocCompressed = binary.BigEndian.Uint64(b[8:])
	h.tocUncompressd = binary.BigEndian.Uint64(b[16:])
	switch alg := binary.BigEndian.Uint32(b[24:]); alg {
	case 0:
		h.check, h.checkName = verify.None, "none"
	case 1:
		h.check, h.checkName = verify.SHA1, "sha1"
	case 2:
		h.check, h.checkName = verify.MD5, "md5"
	case 3:
		// "Other": the algorithm's name follows, NUL-terminated.
		name := string(b[headerSize:h.size])
		if i := strings.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		k, ok := checkKinds[strings.ToLower(name)]
		if !ok || k == verify.None {
			return nil, archive.Unsupportedf("xar: TOC checksum %q", name)
		}
		h.check, h.checkName = k, name
	default:
		return nil, archive.Unsupportedf("xar: TOC checksum algorithm %d", alg)
	}
	return h, nil
}

// checkKinds maps a checksum style as the TOC names it to its kind.
var checkKinds = map[string]verify.Kind{
	"none":   verify.None,
	"md5":    verify.MD5,
	"sha1":   verify.SHA1,
	"sha256": verify.SHA256,
	"sha512": verify.SHA512,
}
