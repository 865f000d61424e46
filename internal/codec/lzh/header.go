package lzh

import (
	"bytes"
	"encoding/binary"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/unpack-dev/unpack/internal/verify"
)

// OS types of the header's OS field that matter here.
const (
	osUnknown = 0
	osMSDOS   = 'M'
	osUnix    = 'U'
	osOS9     = '9'
	osOS9_68K = 'K'
	osAtari   = 'a'
	osOS2     = '2'
	osLHARK   = ' ' // LHARK, an MS-DOS archiver
)

const (
	commonLen   = 22      // bytes every header has: enough for the level
	level0Min   = 22      // a level 0 header length with an empty name
	level1Min   = 25      // and level 1's
	level2Len   = 26      // level 2's base header
	level3Len   = 32      // level 3's
	maxLevel3   = 1 << 20 // a longer level 3 header is refused, as lhasa does
	unixAreaLen = 12      // a level 0 Unix extended area
	os9AreaLen  = 22      // a level 0 OS-9 extended area
)

// header is one decoded file header.
type header struct {
	level    int
	method   string // "-lh5-"
	packed   int64
	size     int64
	crc      uint16
	os       byte
	path     string // directory part, "/"-terminated, or ""
	name     string // file name part
	hasName  bool
	hasPath  bool
	mtime    time.Time
	perms    uint16 // Unix mode with type bits
	hasPerms bool
	os9Perms uint16
	hasOS9   bool
	winTime  uint64 // FILETIME of the last change, 0 when absent
	comment  string
	target   string // a symlink's
	hdrCRC   uint16
	hasCRC   bool
	crcAt    int // offset in raw of the common header's CRC
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// dosTime converts an MS-DOS date and time (local time).
func dosTime(t uint32) time.Time {
	if t == 0 {
		return time.Time{}
	}
	return time.Date(int(t>>25&0x7f)+1980, time.Month(t>>21&0x0f), int(t>>16&0x1f),
		int(t>>11&0x1f), int(t>>5&0x3f), int(t&0x1f)*2, 0, time.Local)
}

// readHeader reads the header at the reader's position. It returns
// io.EOF at the end of the archive: the input's end or a zero byte where
// a header would start.
func (z *Reader) readHeader() (*header, error) {
	first, err := z.r.Peek(1)
	if err == io.EOF || (err == nil && first[0] == 0) {
		return nil, io.EOF
	}
	if err != nil {
		return nil, z.inputErr(err)
	}
	raw := z.hbuf[:0]
	raw, err = z.more(raw, commonLen)
	if err != nil {
		return nil, err
	}
	h := &header{level: int(raw[20])}
	switch h.level {
	case 0, 1:
		raw, err = z.level01(h, raw)
	case 2:
		raw, err = z.level2(h, raw)
	case 3:
		raw, err = z.level3(h, raw)
	default:
		return nil, ErrLevel
	}
	z.hbuf = raw[:0]
	if err != nil {
		return nil, err
	}
	if h.hasCRC {
		raw[h.crcAt], raw[h.crcAt+1] = 0, 0
		if got := verify.UpdateCRC16ARC(0, raw); got != h.hdrCRC {
			return nil, ErrHeaderCRC
		}
	}
	if err := h.finish(); err != nil {
		return nil, err
	}
	if h.method == dirMethod && h.path == "" && h.name == "" {
		// A directory without a name (LHa for UNIX 1.14i writes them in
		// level 0): nothing to make; 7-Zip and unar skip it too.
		return z.readHeader()
	}
	return h, nil
}

// more appends n bytes of input to raw.
func (z *Reader) more(raw []byte, n int) ([]byte, error) {
	l := len(raw)
	raw = append(raw, make([]byte, n)...)
	if _, err := io.ReadFull(z.r, raw[l:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return raw, ErrTruncated
		}
		return raw, z.inputErr(err)
	}
	return raw, nil
}

func (h *header) common(raw []byte) {
	h.method = string(raw[2:7])
	h.packed = int64(le32(raw[7:]))
	h.size = int64(le32(raw[11:]))
}

func (z *Reader) level01(h *header, raw []byte) ([]byte, error) {
	hl := int(raw[0])
	min := level0Min
	if h.level == 1 {
		min = level1Min
	}
	if hl < min {
		return raw, ErrHeader
	}
	raw, err := z.more(raw, hl+2-len(raw))
	if err != nil {
		return raw, err
	}
	var sum byte
	for _, c := range raw[2:] {
		sum += c
	}
	if sum != raw[1] {
		return raw, ErrHeaderSum
	}
	h.common(raw)
	h.mtime = dosTime(le32(raw[15:]))
	nl := int(raw[21])
	if min+nl > hl {
		return raw, ErrHeader
	}
	if h.level == 1 {
		h.os = raw[24+nl]
	}
	if nl > 0 {
		name := raw[22 : 22+nl]
		// Amiga LHA appends the file's comment after a NUL.
		if i := bytes.IndexByte(name, 0); i >= 0 {
			h.comment = string(name[i+1:])
			name = name[:i]
		}
		// MS-DOS separates directories with "\", Mac LHA with 0xFF.
		h.hasName = true
		b := []byte(string(name))
		for i, c := range b {
			if c == '\\' || c == 0xFF {
				b[i] = '/'
			}
		}
		h.name = string(b)
		h.split()
	}
	h.crc = le16(raw[22+nl:])
	if h.level == 0 {
		if hl > level0Min+nl {
			h.level0Area(raw[24+nl : hl+2])
		}
		return raw, nil
	}
	// Level 1: extended headers follow, each counted in the packed size.
	start := len(raw) - 2
	for {
		n := int(le16(raw[len(raw)-2:]))
		if n == 0 {
			break
		}
		if n < 3 {
			return raw, ErrHeader
		}
		if int64(n) > h.packed {
			return raw, ErrHeader
		}
		h.packed -= int64(n)
		if len(raw)+n > maxLevel3 {
			return raw, ErrHeader
		}
		if raw, err = z.more(raw, n); err != nil {
			return raw, err
		}
	}
	return raw, h.extended(raw, start, 2)
}

// level0Area reads the extended area some tools put after a level 0
// header's CRC (Unix: mode, owner and time; OS-9: permissions).
func (h *header) level0Area(d []byte) {
	if strings.HasPrefix(h.method, "-pm") || len(d) == 0 {
		return // PMarc keeps comments there
	}
	switch d[0] {
	case osUnix, osOS9_68K:
		if len(d) < unixAreaLen || d[1] != 0 {
			return
		}
		h.os = d[0]
		h.mtime = time.Unix(int64(le32(d[2:])), 0)
		h.perms, h.hasPerms = le16(d[len(d)-6:]), true
	case osOS9:
		if len(d) < os9AreaLen || d[9] != 0xcc || d[1] != d[17] || d[2] != d[18] {
			return
		}
		h.os = osOS9
		h.os9Perms, h.hasOS9 = le16(d[1:]), true
	}
}

func (z *Reader) level2(h *header, raw []byte) ([]byte, error) {
	hl := int(le16(raw))
	if hl < level2Len {
		return raw, ErrHeader
	}
	raw, err := z.more(raw, hl-len(raw))
	if err != nil {
		return raw, err
	}
	h.common(raw)
	h.mtime = time.Unix(int64(le32(raw[15:])), 0)
	h.crc = le16(raw[21:])
	h.os = raw[23]
	// OS-9/68k's LHA counts the header without its first two bytes.
	if h.os == osOS9_68K {
		if raw, err = z.more(raw, 2); err != nil {
			return raw, err
		}
	}
	return raw, h.extended(raw, 24, 2)
}

func (z *Reader) level3(h *header, raw []byte) ([]byte, error) {
	if le16(raw) != 4 {
		return raw, ErrHeader
	}
	raw, err := z.more(raw, level3Len-len(raw))
	if err != nil {
		return raw, err
	}
	hl := int64(le32(raw[24:]))
	if hl > maxLevel3 || hl < level3Len {
		return raw, ErrHeader
	}
	if raw, err = z.more(raw, int(hl)-len(raw)); err != nil {
		return raw, err
	}
	h.common(raw)
	h.mtime = time.Unix(int64(le32(raw[15:])), 0)
	h.crc = le16(raw[21:])
	h.os = raw[23]
	return raw, h.extended(raw, 28, 4)
}

// extended walks the extended headers from raw[off:], each preceded by
// its size in a field of fs bytes (2, or 4 for level 3).
func (h *header) extended(raw []byte, off, fs int) error {
	for off+fs <= len(raw) {
		var n int
		if fs == 4 {
			v := le32(raw[off:])
			if v > maxLevel3 {
				return ErrHeader
			}
			n = int(v)
		} else {
			n = int(le16(raw[off:]))
		}
		if n == 0 {
			return nil
		}
		if n < fs+1 || n > len(raw)-off-fs {
			return ErrHeader
		}
		d := raw[off+fs : off+n]
		h.ext(d[0], d[1:], off+fs+1)
		off += n
	}
	return nil
}

// ext applies one extended header of type t; at is data's offset in the
// raw header (for the CRC field). Unknown types (comments, Amiga and
// other systems' fields) are skipped.
func (h *header) ext(t byte, data []byte, at int) {
	switch t {
	case 0x00: // common: the CRC-16 of the whole header
		if len(data) >= 2 {
			h.hdrCRC, h.hasCRC, h.crcAt = le16(data), true, at
		}
	case 0x01: // file name
		h.name, h.hasName = strings.ReplaceAll(string(data), "/", "_"), true
	case 0x02: // directory, 0xFF-separated
		if len(data) == 0 {
			return
		}
		p := bytes.ReplaceAll(data, []byte{0xFF}, []byte{'/'})
		if p[len(p)-1] != '/' {
			p = append(p, '/')
		}
		h.path, h.hasPath = string(p), true
	case 0x41: // Windows times: creation, modification, access
		if len(data) >= 24 {
			h.winTime = binary.LittleEndian.Uint64(data[8:])
		}
	case 0x50: // Unix mode
		if len(data) >= 2 {
			h.perms, h.hasPerms = le16(data), true
		}
	case 0x54: // Unix time
		if len(data) >= 4 {
			h.mtime = time.Unix(int64(le32(data)), 0)
		}
	case 0xcc: // OS-9
		if len(data) >= 12 {
			h.os9Perms, h.hasOS9 = le16(data[7:]), true
		}
	}
}

// split moves a level 0/1 name's directory part into path.
func (h *header) split() {
	if i := strings.LastIndexByte(h.name, '/'); i >= 0 {
		h.path, h.hasPath = h.name[:i+1], true
		h.name = h.name[i+1:]
	}
}

// finish checks that the header names something and applies lhasa's
// conventions: symlinks as "name|target", all-caps MS-DOS names in lower
// case, empty and "." components dropped, OS-9 permissions as Unix ones.
func (h *header) finish() error {
	switch {
	case h.method != dirMethod:
		if (!h.hasName || h.name == "") && !(h.hasPath && h.size == 0) {
			return ErrName
		}
	case h.hasPerms && h.perms&0o170000 == 0o120000 && (h.hasPath || h.hasName):
		full := h.path + h.name
		i := strings.IndexByte(full, '|')
		if i < 0 {
			return ErrName
		}
		h.name, h.target, h.path, h.hasPath = full[:i], full[i+1:], "", false
		h.split()
	}
	switch h.os {
	case osUnknown, osMSDOS, osAtari, osOS2, osLHARK:
		if !strings.ContainsAny(h.path+h.name, "abcdefghijklmnopqrstuvwxyz") {
			h.path, h.name = lowerASCII(h.path), lowerASCII(h.name)
		}
	}
	h.path = tidy(h.path)
	if h.os == osOS9_68K && h.hasPerms {
		h.os9Perms, h.hasOS9 = h.perms, true
	}
	if h.hasOS9 {
		p := h.os9Perms
		bit := func(m uint16, v uint16) uint16 {
			if p&m != 0 {
				return v
			}
			return 0
		}
		h.perms = bit(0x80, 0o40000) | bit(0x01, 0o400) | bit(0x02, 0o200) | bit(0x04, 0o100) |
			bit(0x08, 0o044) | bit(0x10, 0o022) | bit(0x20, 0o011)
		h.hasPerms = true
	}
	return nil
}

// lowerASCII lowers A-Z byte by byte (names need not be UTF-8).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// tidy removes "" and "." components from a "/"-terminated directory
// path; a leading "/" stays. ".." stays too: lhasa collapses it, but a
// name that climbs is refused by the sink (exit 3), as for tar and cpio,
// rather than silently moved elsewhere.
func tidy(p string) string {
	if p == "" {
		return p
	}
	lead := strings.HasPrefix(p, "/")
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	s := strings.Join(out, "/")
	if s != "" {
		s += "/"
	}
	if lead {
		s = "/" + s
	}
	return s
}

// mode is the entry's permission bits, 0 when the header has none.
func (h *header) mode() fs.FileMode {
	if !h.hasPerms {
		return 0
	}
	return fs.FileMode(h.perms & 0o777)
}
