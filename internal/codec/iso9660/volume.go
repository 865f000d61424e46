// Package iso9660 reads ISO 9660 images (CD and DVD images, hybrid images
// with a partition table in front) as an archive.Reader: the primary volume
// with its Rock Ridge extensions (long names, modes, symbolic links, times,
// hard links, relocated deep directories), or the Joliet volume (UCS-2
// names) when there is no Rock Ridge; multi-extent files; zisofs-compressed
// files, decompressed transparently with their Adler-32 checks; El Torito
// boot images, listed as [BOOT]/ entries as 7-Zip lists them.
//
// ISO 9660 carries no checksum over file data (zisofs blocks excepted).
// Directory loops, extents outside the image and files whose extents
// overlap another's in part are refused as corrupt; files sharing one
// extent are hard links to the first, so that an image cannot make a
// small extent count many times over.
package iso9660

import (
	"bytes"
	"encoding/binary"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/unpack-dev/unpack/internal/archive"
)

// sectorSize is the logical block size every image here uses: ECMA-119
// allows others, but no writer in use makes them (checked when read).
const sectorSize = 2048

// firstDescriptor is the sector of the first volume descriptor.
const firstDescriptor = 16

// maxDescriptors bounds how many volume descriptors are read before the
// terminator.
const maxDescriptors = 64

// Volume descriptor types.
const (
	vdBoot       = 0
	vdPrimary    = 1
	vdSupplement = 2
	vdTerminator = 255
)

var (
	errCorrupt   = archive.Corruptf("iso9660: malformed image")
	errTruncated = archive.Corruptf("iso9660: image cut short")
	// errDirLoop: a directory reached again below itself.
	errDirLoop = archive.Corruptf("iso9660: directory loop")
	// errContinuations: Rock Ridge continuation areas that lead on and on.
	errContinuations = archive.Corruptf("iso9660: more than %d Rock Ridge continuation areas", maxContinuations)
)

// volume is what a primary or Joliet descriptor says about its tree.
type volume struct {
	root   record
	joliet bool
}

// descriptors reads the volume descriptor set: the primary volume, the
// Joliet volume if any, and the El Torito boot catalog's sector (0: none).
func descriptors(ra io.ReaderAt, size int64) (primary, joliet *volume, bootCatalog uint32, err error) {
	var b [sectorSize]byte
	for i := int64(0); i < maxDescriptors; i++ {
		off := (firstDescriptor + i) * sectorSize
		if off+sectorSize > size {
			return nil, nil, 0, errTruncated
		}
		if _, err := ra.ReadAt(b[:], off); err != nil {
			return nil, nil, 0, readErr(err)
		}
		if string(b[1:6]) != "CD001" {
			return nil, nil, 0, archive.Corruptf("iso9660: volume descriptor %d has no CD001 signature", i)
		}
		switch b[0] {
		case vdTerminator:
			if primary == nil {
				return nil, nil, 0, archive.Corruptf("iso9660: no primary volume descriptor")
			}
			return primary, joliet, bootCatalog, nil
		case vdBoot:
			if bytes.HasPrefix(b[7:39], []byte("EL TORITO SPECIFICATION")) {
				bootCatalog = binary.LittleEndian.Uint32(b[71:])
			}
		case vdPrimary, vdSupplement:
			switch bs := binary.LittleEndian.Uint16(b[128:]); bs {
			case sectorSize:
			case 512, 1024:
				return nil, nil, 0, archive.Unsupportedf("iso9660: logical block size %d", bs)
			default:
				return nil, nil, 0, archive.Corruptf("iso9660: logical block size %d", bs)
			}
			root, _, err := parseRecord(b[156:190])
			if err != nil {
				return nil, nil, 0, err
			}
			if b[0] == vdPrimary {
				if primary == nil {
					primary = &volume{root: root}
				}
				continue
			}
			// Joliet: escape sequences %/@, %/C or %/E (UCS-2 levels 1-3).
			esc := b[88:120]
			if joliet == nil && esc[0] == '%' && esc[1] == '/' && (esc[2] == '@' || esc[2] == 'C' || esc[2] == 'E') {
				joliet = &volume{root: root, joliet: true}
			}
		}
	}
	return nil, nil, 0, archive.Corruptf("iso9660: no volume descriptor set terminator in %d descriptors", maxDescriptors)
}

func readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errTruncated
	}
	return err
}

// appendUCS2 appends the UTF-8 of a Joliet name (UCS-2, big-endian; UTF-16
// surrogates kept together where a writer used them) to dst, as
// utf16.Decode reads it: an unpaired surrogate is U+FFFD, a last odd byte
// is dropped.
func appendUCS2(dst, b []byte) []byte {
	for i := 0; i+1 < len(b); i += 2 {
		r := rune(binary.BigEndian.Uint16(b[i:]))
		if utf16.IsSurrogate(r) {
			if i+3 < len(b) {
				if d := utf16.DecodeRune(r, rune(binary.BigEndian.Uint16(b[i+2:]))); d != utf8.RuneError {
					dst = utf8.AppendRune(dst, d)
					i += 2
					continue
				}
			}
			r = utf8.RuneError
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}
