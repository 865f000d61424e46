package zip

import (
	"encoding/binary"
	"io/fs"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Record signatures.
const (
	sigLocal       = 0x04034b50
	sigCentral     = 0x02014b50
	sigEnd         = 0x06054b50
	sigEnd64       = 0x06064b50
	sigLocator64   = 0x07064b50
	sigDescriptor  = 0x08074b50
	sigSpanMarker  = 0x30304b50 // "PK00": a split set that turned out to need one part
	localLen       = 30
	centralLen     = 46
	endLen         = 22
	end64Len       = 56
	locator64Len   = 20
	flagEncrypted  = 1 << 0
	flagDescriptor = 1 << 3
	flagStrongEnc  = 1 << 6
	flagUTF8       = 1 << 11
	flagMasked     = 1 << 13 // central directory encryption: local headers masked
)

// Extra field tags.
const (
	extZip64     = 0x0001
	extNTFS      = 0x000a
	extUnixOld   = 0x5855
	extTime      = 0x5455
	extUnicode   = 0x7075
	extWinZipAES = 0x9901
)

// Host systems in "version made by".
const (
	hostDOS  = 0
	hostUnix = 3
	hostNTFS = 10
	hostOSX  = 19
)

// header is one entry as the central directory (or, when streaming, the
// local header) describes it.
type header struct {
	name       string
	comment    string
	creator    uint16 // version made by
	flags      uint16
	method     uint16 // as stored; 99 for WinZip AES
	dosTime    uint16
	dosDate    uint16
	crc        uint32
	csize      uint64
	usize      uint64
	disk       uint32
	offset     int64 // of the local header, in the (joined) input
	extAttr    uint32
	modTime    time.Time
	accessTime time.Time

	aesVersion  uint16 // 1 (AE-1) or 2 (AE-2); 0 when not AES
	aesStrength uint8  // 1, 2, 3: AES-128, -192, -256
	aesMethod   uint16 // the real compression method under AES

	nameLen int // length of the stored name
	rawName []byte

	zip64        bool  // a zip64 extra field was present
	usizeUnknown bool  // streaming: sizes come in a data descriptor
	limit        int64 // where the next entry (or the central directory) starts; -1 unknown
}

// realMethod is the compression method, looking through WinZip AES.
func (h *header) realMethod() uint16 {
	if h.method == methodAES && h.aesVersion != 0 {
		return h.aesMethod
	}
	return h.method
}

// encrypted reports whether the entry's data are encrypted.
func (h *header) encrypted() bool { return h.flags&flagEncrypted != 0 }

// hasCRC reports whether the CRC32 field is meaningful (AE-2 leaves it 0).
func (h *header) hasCRC() bool { return !(h.method == methodAES && h.aesVersion == 2) }

// readBuf decodes little-endian fields from a byte slice that the caller
// has checked is long enough.
type readBuf []byte

func (b *readBuf) uint8() uint8 {
	v := (*b)[0]
	*b = (*b)[1:]
	return v
}

func (b *readBuf) uint16() uint16 {
	v := binary.LittleEndian.Uint16(*b)
	*b = (*b)[2:]
	return v
}

func (b *readBuf) uint32() uint32 {
	v := binary.LittleEndian.Uint32(*b)
	*b = (*b)[4:]
	return v
}

func (b *readBuf) uint64() uint64 {
	v := binary.LittleEndian.Uint64(*b)
	*b = (*b)[8:]
	return v
}

func (b *readBuf) sub(n int) readBuf {
	b2 := (*b)[:n]
	*b = (*b)[n:]
	return b2
}

// parseCentral decodes one central directory record from the start of b and
// returns it with the record's length. b must hold at least centralLen bytes.
func parseCentral(b []byte) (*header, int, error) {
	r := readBuf(b)
	if r.uint32() != sigCentral {
		return nil, 0, ErrFormat
	}
	h := &header{}
	h.creator = r.uint16()
	r.uint16() // version needed
	h.flags = r.uint16()
	h.method = r.uint16()
	h.dosTime = r.uint16()
	h.dosDate = r.uint16()
	h.crc = r.uint32()
	h.csize = uint64(r.uint32())
	h.usize = uint64(r.uint32())
	nameLen := int(r.uint16())
	extraLen := int(r.uint16())
	commentLen := int(r.uint16())
	h.disk = uint32(r.uint16())
	r.uint16() // internal attributes
	h.extAttr = r.uint32()
	off := uint64(r.uint32())
	n := centralLen + nameLen + extraLen + commentLen
	if len(b) < n {
		return nil, 0, archive.Corruptf("zip: central directory record runs past the directory")
	}
	rawName := r.sub(nameLen)
	extra := r.sub(extraLen)
	rawComment := r.sub(commentLen)
	needUsize := h.usize == 0xFFFFFFFF
	needCsize := h.csize == 0xFFFFFFFF
	needOff := off == 0xFFFFFFFF
	needDisk := h.disk == 0xFFFF
	unicode := h.parseExtra(extra, true, &needUsize, &needCsize, &needOff, &needDisk, &off, rawName)
	if off > 1<<62 || h.csize > 1<<62 || h.usize > 1<<62 {
		return nil, 0, archive.Corruptf("zip: entry %q: size or offset out of range", rawName)
	}
	h.offset = int64(off)
	h.name = decodeName(rawName, h.flags, unicode)
	if host := h.creator >> 8; host != hostUnix && host != hostOSX && strings.IndexByte(h.name, '\\') >= 0 {
		// DOS and Windows writers that store '\\' as the separator.
		h.name = strings.ReplaceAll(h.name, "\\", "/")
	}
	h.rawName = rawName
	h.nameLen = nameLen
	if h.flags&flagUTF8 != 0 || utf8Valid(rawComment) {
		h.comment = string(rawComment)
	} else {
		h.comment = cp437(rawComment)
	}
	return h, n, nil
}

// parseExtra reads the extra fields the reader uses. Zip64 values replace
// the 32-bit fields marked as needing them, in the order the format fixes.
// It returns the Info-ZIP Unicode path when present and valid for rawName.
func (h *header) parseExtra(extra readBuf, central bool, needUsize, needCsize, needOff, needDisk *bool, off *uint64, rawName []byte) string {
	var unicode string
	var haveNTFS bool
	for len(extra) >= 4 {
		tag := extra.uint16()
		size := int(extra.uint16())
		if size > len(extra) {
			break
		}
		f := extra.sub(size)
		switch tag {
		case extZip64:
			h.zip64 = true
			if *needUsize && len(f) >= 8 {
				*needUsize = false
				h.usize = f.uint64()
			}
			if *needCsize && len(f) >= 8 {
				*needCsize = false
				h.csize = f.uint64()
			}
			if *needOff && len(f) >= 8 {
				*needOff = false
				*off = f.uint64()
			}
			if *needDisk && len(f) >= 4 {
				*needDisk = false
				h.disk = f.uint32()
			}
		case extNTFS:
			if len(f) < 4 {
				continue
			}
			f.uint32() // reserved
			for len(f) >= 4 {
				attr := f.uint16()
				asize := int(f.uint16())
				if asize > len(f) {
					break
				}
				a := f.sub(asize)
				if attr != 1 || len(a) < 24 {
					continue
				}
				if t := ntfsTime(a.uint64()); !t.IsZero() {
					h.modTime = t
					haveNTFS = true
				}
				if t := ntfsTime(a.uint64()); !t.IsZero() {
					h.accessTime = t
				}
			}
		case extTime:
			if len(f) < 1 {
				continue
			}
			fl := f.uint8()
			if fl&1 != 0 && len(f) >= 4 {
				if !haveNTFS {
					h.modTime = time.Unix(int64(int32(f.uint32())), 0)
				} else {
					f.uint32()
				}
			}
			// The central copy holds only the modification time.
			if central {
				continue
			}
			if fl&2 != 0 && len(f) >= 4 && !haveNTFS {
				h.accessTime = time.Unix(int64(int32(f.uint32())), 0)
			}
		case extUnixOld:
			if len(f) >= 8 && h.modTime.IsZero() {
				at := f.uint32()
				mt := f.uint32()
				h.accessTime = time.Unix(int64(int32(at)), 0)
				h.modTime = time.Unix(int64(int32(mt)), 0)
			}
		case extUnicode:
			if len(f) < 5 || f.uint8() != 1 {
				continue
			}
			if f.uint32() == verify.SumCRC32(rawName) && utf8.Valid(f) {
				unicode = string(f)
			}
		case extWinZipAES:
			if len(f) < 7 {
				continue
			}
			h.aesVersion = f.uint16()
			if f.uint16() != 0x4541 { // "AE"
				h.aesVersion = 0
				continue
			}
			h.aesStrength = f.uint8()
			h.aesMethod = f.uint16()
		}
	}
	if h.modTime.IsZero() {
		h.modTime = dosTime(h.dosDate, h.dosTime)
	}
	return unicode
}

// decodeName turns a stored name into a string: UTF-8 when flagged, the
// Info-ZIP Unicode path when one matched, otherwise CP437 (names that are
// plain ASCII or valid UTF-8 are kept as they are, as Info-ZIP, 7-Zip and
// libarchive do on a UTF-8 system).
func decodeName(raw []byte, flags uint16, unicode string) string {
	switch {
	case flags&flagUTF8 != 0:
		return string(raw)
	case unicode != "":
		return unicode
	case utf8Valid(raw):
		return string(raw)
	}
	return cp437(raw)
}

// localName decodes a local header's name as the central directory's is
// decoded (UTF-8 flag, a matching Info-ZIP Unicode path in extra, else
// CP437), so that two spellings of one name compare equal.
func localName(raw, extra []byte, flags uint16) string {
	var h header
	var nu, nc, no, nd bool
	var off uint64
	unicode := h.parseExtra(extra, false, &nu, &nc, &no, &nd, &off, raw)
	return decodeName(raw, flags, unicode)
}

// cp437High maps bytes 0x80 to 0xFF of code page 437 to Unicode.
const cp437High = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»" +
	"░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀" +
	"αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0"

// cp437Table is cp437High by byte, built on first use.
var cp437Table = sync.OnceValue(func() *[128]rune {
	t := new([128]rune)
	i := 0
	for _, r := range cp437High {
		t[i] = r
		i++
	}
	return t
})

// cp437 decodes b as code page 437.
func cp437(b []byte) string {
	out := make([]rune, len(b))
	t := cp437Table()
	for i, c := range b {
		if c < 0x80 {
			out[i] = rune(c)
		} else {
			out[i] = t[c-0x80]
		}
	}
	return string(out)
}

// dosTime converts MS-DOS date and time fields (local time) to a time.
func dosTime(d, t uint16) time.Time {
	if d == 0 && t == 0 {
		return time.Time{}
	}
	return time.Date(
		int(d>>9)+1980, time.Month(d>>5&0xf), int(d&0x1f),
		int(t>>11), int(t>>5&0x3f), int(t&0x1f)*2, 0, time.Local)
}

// ntfsTime converts 100-nanosecond ticks since 1601 to a time.
func ntfsTime(ticks uint64) time.Time {
	if ticks == 0 {
		return time.Time{}
	}
	const epochDiff = 116444736000000000 // 1601 to 1970 in ticks
	if ticks < epochDiff {
		return time.Time{}
	}
	d := ticks - epochDiff
	return time.Unix(int64(d/1e7), int64(d%1e7)*100)
}

// Unix file type bits in the high half of the external attributes.
const (
	sIFMT  = 0xf000
	sIFLNK = 0xa000
	sIFDIR = 0x4000
	sIFREG = 0x8000
	dosDir = 0x10
	dosRO  = 0x01
)

// entryType and mode derive the entry's type and permission bits from the
// host system and the external attributes.
func (h *header) typeAndMode() (archive.Type, fs.FileMode) {
	host := h.creator >> 8
	dirName := len(h.name) > 0 && (h.name[len(h.name)-1] == '/' || h.name[len(h.name)-1] == '\\')
	unix := h.extAttr >> 16
	if (host == hostUnix || host == hostOSX || (host != hostDOS && unix != 0)) && unix != 0 {
		mode := archive.UnixMode(uint32(unix))
		switch unix & sIFMT {
		case sIFLNK:
			return archive.TypeSymlink, mode
		case sIFDIR:
			return archive.TypeDir, mode
		case sIFREG, 0:
			if dirName {
				return archive.TypeDir, mode
			}
			return archive.TypeFile, mode
		}
		if dirName {
			return archive.TypeDir, mode
		}
		return archive.TypeOther, mode
	}
	if dirName || h.extAttr&dosDir != 0 {
		return archive.TypeDir, 0
	}
	if h.extAttr&dosRO != 0 {
		return archive.TypeFile, 0o444
	}
	return archive.TypeFile, 0
}

func utf8Valid(b []byte) bool { return utf8.Valid(b) }
