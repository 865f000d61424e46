package rar4

import (
	"encoding/binary"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/unpack-dev/unpack/internal/archive"
)

// RAR 1.5–4.x block types.
const (
	blockMark    = 0x72
	blockMain    = 0x73
	blockFile    = 0x74
	blockComment = 0x75
	blockAV      = 0x76
	blockSub     = 0x77
	blockProtect = 0x78
	blockSign    = 0x79
	blockNewSub  = 0x7a
	blockEnd     = 0x7b
)

// Flags.
const (
	flagLong = 0x8000 // ADD_SIZE follows the base header

	mainVolume     = 0x0001
	mainComment    = 0x0002
	mainSolid      = 0x0008
	mainNewNaming  = 0x0010
	mainPassword   = 0x0080
	mainFirstVol   = 0x0100
	mainEncryptVer = 0x0200

	fileSplitBefore = 0x0001
	fileSplitAfter  = 0x0002
	filePassword    = 0x0004
	fileComment     = 0x0008
	fileSolid       = 0x0010
	fileDictMask    = 0x00e0
	fileLarge       = 0x0100
	fileUnicode     = 0x0200
	fileSalt        = 0x0400
	fileVersion     = 0x0800
	fileExtTime     = 0x1000

	endNextVolume = 0x0001
)

// Host systems.
const (
	hostMSDOS = 0
	hostOS2   = 1
	hostWin32 = 2
	hostUnix  = 3
	hostMacOS = 4
	hostBeOS  = 5
)

// sizeBase is the size of every block's base header.
const sizeBase = 7

// fileHeader is a parsed FILE or NEWSUB block.
type fileHeader struct {
	flags     uint16
	packSize  int64
	unpSize   int64 // -1 when unknown
	host      byte
	crc       uint32
	mtime     time.Time
	atime     time.Time
	unpVer    byte
	method    byte
	attr      uint32
	name      string
	salt      [8]byte
	hasSalt   bool
	dictBits  uint // window is 64 KiB << dictBits
	isDir     bool
	headerPos int64
	cmtRaw    []byte // old-style comment block embedded after the name
}

func (h *fileHeader) encrypted() bool   { return h.flags&filePassword != 0 }
func (h *fileHeader) splitBefore() bool { return h.flags&fileSplitBefore != 0 }
func (h *fileHeader) splitAfter() bool  { return h.flags&fileSplitAfter != 0 }

// dosTime converts an MS-DOS date and time (local time, as RAR stores it).
func dosTime(t uint32) time.Time {
	if t == 0 {
		return time.Time{}
	}
	return time.Date(int(t>>25&0x7f)+1980, time.Month(t>>21&0x0f), int(t>>16&0x1f),
		int(t>>11&0x1f), int(t>>5&0x3f), int(t&0x1f)*2, 0, time.Local)
}

// parseFile parses the body of a FILE or NEWSUB header (b starts after the
// 7-byte base header).
func parseFile(h *fileHeader, flags uint16, b []byte, pos int64) error {
	*h = fileHeader{flags: flags, headerPos: pos}
	if len(b) < 25 {
		return archive.Corruptf("rar: file header at offset %d is too short", pos)
	}
	le := binary.LittleEndian
	h.packSize = int64(le.Uint32(b))
	h.unpSize = int64(le.Uint32(b[4:]))
	h.host = b[8]
	h.crc = le.Uint32(b[9:])
	ftime := le.Uint32(b[13:])
	h.unpVer = b[17]
	h.method = b[18]
	nameSize := int(le.Uint16(b[19:]))
	h.attr = le.Uint32(b[21:])
	b = b[25:]
	if flags&fileLarge != 0 {
		if len(b) < 8 {
			return archive.Corruptf("rar: file header at offset %d is too short", pos)
		}
		h.packSize |= int64(le.Uint32(b)) << 32
		h.unpSize |= int64(le.Uint32(b[4:])) << 32
		b = b[8:]
		if h.unpSize == 0x7fffffffffffffff || uint64(h.unpSize) == 0xffffffffffffffff {
			h.unpSize = -1
		}
	} else if h.unpSize == 0xffffffff {
		h.unpSize = -1
	}
	if h.packSize < 0 {
		return archive.Corruptf("rar: bad packed size in header at offset %d", pos)
	}
	if len(b) < nameSize {
		return archive.Corruptf("rar: file name in header at offset %d is truncated", pos)
	}
	raw := b[:nameSize]
	b = b[nameSize:]
	if flags&fileComment != 0 && len(b) >= 13 && b[2] == blockComment {
		if n := int(binary.LittleEndian.Uint16(b[5:])); n >= 13 && n <= len(b) {
			h.cmtRaw = append([]byte(nil), b[:n]...)
			b = b[n:]
		}
	}
	if flags&fileUnicode != 0 {
		h.name = decodeName(raw)
	} else {
		h.name = oemName(raw)
	}
	// RAR 1.5–4.x write '\\' as the path separator whatever the host.
	h.name = strings.ReplaceAll(h.name, "\\", "/")
	if flags&fileSalt != 0 {
		if len(b) < 8 {
			return archive.Corruptf("rar: salt in header at offset %d is truncated", pos)
		}
		copy(h.salt[:], b)
		h.hasSalt = true
		b = b[8:]
	}
	h.mtime = dosTime(ftime)
	if flags&fileExtTime != 0 {
		h.mtime, h.atime = extTime(b, h.mtime)
	}
	h.isDir = flags&fileDictMask == fileDictMask
	if !h.isDir {
		h.dictBits = uint(flags&fileDictMask) >> 5
	}
	switch h.host {
	case hostUnix, hostBeOS:
		if h.attr&0xf000 == 0x4000 {
			h.isDir = true
		}
	case hostMSDOS, hostOS2, hostWin32:
		if h.attr&0x10 != 0 {
			h.isDir = true
		}
	}
	return nil
}

// extTime reads the extended time field: per time a 4-bit flag (present,
// +1 s, count of extra 100 ns bytes), the modification time's DOS value
// being the header's own.
func extTime(b []byte, mtime time.Time) (time.Time, time.Time) {
	if len(b) < 2 {
		return mtime, time.Time{}
	}
	flags := binary.LittleEndian.Uint16(b)
	b = b[2:]
	var times [4]time.Time
	times[0] = mtime
	for i := 0; i < 4; i++ {
		f := flags >> uint((3-i)*4)
		if f&8 == 0 {
			if i == 0 {
				times[0] = mtime
			}
			continue
		}
		if i != 0 {
			if len(b) < 4 {
				break
			}
			times[i] = dosTime(binary.LittleEndian.Uint32(b))
			b = b[4:]
		}
		n := int(f & 3)
		if len(b) < n {
			break
		}
		var rem uint32
		for j := 0; j < n; j++ {
			rem |= uint32(b[j]) << uint((j+3-n)*8)
		}
		b = b[n:]
		if !times[i].IsZero() {
			t := times[i]
			if f&4 != 0 {
				t = t.Add(time.Second)
			}
			times[i] = t.Add(time.Duration(rem) * 100)
		}
	}
	return times[0], times[2]
}

// cp437 is the upper half of the IBM PC code page 437, the OEM code page
// DOS and Western Windows versions of RAR wrote names in.
const cp437 = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»" +
	"░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀" +
	"αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0"

var cp437Runes = []rune(cp437)

// oemName returns a name stored without the Unicode flag: as is when it
// is valid UTF-8 (RAR for Unix writes the locale's UTF-8), else decoded
// from code page 437 (other OEM code pages cannot be told apart).
func oemName(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		if c < 0x80 {
			r[i] = rune(c)
		} else {
			r[i] = cp437Runes[c-0x80]
		}
	}
	return string(r)
}

// decodeName decodes RAR's compressed Unicode name: an OEM name, a zero
// byte, then the UTF-16 form encoded relative to it.
func decodeName(b []byte) string {
	zero := -1
	for i, c := range b {
		if c == 0 {
			zero = i
			break
		}
	}
	if zero < 0 {
		return oemName(b)
	}
	name, enc := b[:zero], b[zero+1:]
	if len(enc) == 0 {
		return oemName(name)
	}
	high := uint16(enc[0]) << 8
	enc = enc[1:]
	out := make([]uint16, 0, len(name))
	var flags byte
	flagBits := 0
	for len(enc) > 0 && len(out) < len(name)+256 {
		if flagBits == 0 {
			flags = enc[0]
			enc = enc[1:]
			flagBits = 8
			if len(enc) == 0 {
				break
			}
		}
		switch flags >> 6 {
		case 0:
			out = append(out, uint16(enc[0]))
			enc = enc[1:]
		case 1:
			out = append(out, uint16(enc[0])|high)
			enc = enc[1:]
		case 2:
			if len(enc) < 2 {
				enc = nil
				break
			}
			out = append(out, uint16(enc[0])|uint16(enc[1])<<8)
			enc = enc[2:]
		case 3:
			n := enc[0]
			enc = enc[1:]
			length := int(n&0x7f) + 2
			if n&0x80 != 0 {
				if len(enc) == 0 {
					break
				}
				corr := enc[0]
				enc = enc[1:]
				for ; length > 0 && len(out) < len(name); length-- {
					out = append(out, uint16(name[len(out)]+corr)|high)
				}
			} else {
				for ; length > 0 && len(out) < len(name); length-- {
					out = append(out, uint16(name[len(out)]))
				}
			}
		}
		flags <<= 2
		flagBits -= 2
	}
	if len(out) == 0 {
		return oemName(name)
	}
	return string(utf16.Decode(out))
}
