package arj

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"time"

	"github.com/unpack-dev/unpack/internal/verify"
)

const (
	maxBasic = 2600 // the longest basic header ARJ writes or reads
	minFirst = 30   // the fixed part of a basic header

	// Flags.
	flagGarbled = 0x01
	flagVolume  = 0x04 // the file (or, in the main header, the archive) continues in the next volume
	flagExtFile = 0x08 // the file continues one from the previous volume

	// File types (0 binary and 1 text files are read alike).
	typeMain    = 2
	typeDir     = 3
	typeLabel   = 4
	typeChapter = 5

	// Host systems whose times are Unix seconds (else MS-DOS local time).
	hostUnix = 2
	hostNeXT = 8
)

// header is a decoded basic header (main or local).
type header struct {
	flags    byte
	method   byte
	host     byte
	fileType byte
	mtime    uint32
	packed   int64
	size     int64
	crc      uint32
	mode     uint16
	extPos   int64 // where a continued file's part starts in the file
	name     string
	comment  string
}

// readHeader reads the header at r: id, size, basic header, its CRC-32
// and the extended headers (each checked and skipped). It returns io.EOF
// for the end-of-archive header (size 0).
func readHeader(r io.Reader, buf []byte) (*header, error) {
	var pre [4]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, eofErr(err)
	}
	if pre[0] != 0x60 || pre[1] != 0xEA {
		return nil, ErrHeader
	}
	n := int(binary.LittleEndian.Uint16(pre[2:]))
	if n == 0 {
		return nil, io.EOF
	}
	if n < minFirst || n > maxBasic {
		return nil, ErrHeader
	}
	b := buf[:n+4]
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, eofErr(err)
	}
	if verify.UpdateCRC32(0, b[:n]) != binary.LittleEndian.Uint32(b[n:]) {
		return nil, ErrHeaderCRC
	}
	h, err := parseBasic(b[:n])
	if err != nil {
		return nil, err
	}
	for {
		if _, err := io.ReadFull(r, pre[:2]); err != nil {
			return nil, eofErr(err)
		}
		m := int(binary.LittleEndian.Uint16(pre[:2]))
		if m == 0 {
			return h, nil
		}
		ext := make([]byte, m+4)
		if _, err := io.ReadFull(r, ext); err != nil {
			return nil, eofErr(err)
		}
		if verify.UpdateCRC32(0, ext[:m]) != binary.LittleEndian.Uint32(ext[m:]) {
			return nil, ErrHeaderCRC
		}
	}
}

func eofErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}

func parseBasic(b []byte) (*header, error) {
	first := int(b[0])
	if first < minFirst || first > len(b) {
		return nil, ErrHeader
	}
	le32 := func(i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }
	h := &header{
		host:     b[3],
		flags:    b[4],
		method:   b[5],
		fileType: b[6],
		mtime:    le32(8),
		packed:   int64(le32(12)),
		size:     int64(le32(16)),
		crc:      le32(20),
		mode:     binary.LittleEndian.Uint16(b[26:]),
	}
	if first >= 34 {
		h.extPos = int64(le32(30))
	}
	rest := b[first:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return nil, ErrHeader
	}
	h.name = string(rest[:i])
	rest = rest[i+1:]
	if j := bytes.IndexByte(rest, 0); j >= 0 {
		rest = rest[:j]
	}
	h.comment = string(rest)
	// MS-DOS and Windows hosts may separate directories with "\".
	if h.host != hostUnix && h.host != hostNeXT {
		h.name = strings.ReplaceAll(h.name, "\\", "/")
	}
	return h, nil
}

// modTime converts the header's time: Unix seconds from Unix and NeXT
// hosts, MS-DOS local time from the others.
func (h *header) modTime() time.Time {
	t := h.mtime
	if h.host == hostUnix || h.host == hostNeXT {
		return time.Unix(int64(t), 0)
	}
	if t == 0 {
		return time.Time{}
	}
	return time.Date(int(t>>25&0x7f)+1980, time.Month(t>>21&0x0f), int(t>>16&0x1f),
		int(t>>11&0x1f), int(t>>5&0x3f), int(t&0x1f)*2, 0, time.Local)
}
