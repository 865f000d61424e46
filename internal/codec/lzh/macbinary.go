package lzh

import (
	"encoding/binary"
	"io"
)

// MacLHA ('m' in the OS field) may put a 128-byte MacBinary header, and a
// resource fork after the data fork, inside an entry's data. As lhasa
// does (lib/macbinary.c), a header whose fields all agree with the LHA
// header (name, total length rounded to 128, reserved bytes zero, a
// modification time within a time zone of the header's) is taken off and
// only the data fork given (or the resource fork when there is no data
// fork). The CRC still covers every decoded byte.

const (
	osMac       = 'm'
	macHdrSize  = 128
	macEpochOff = 2082844800 // seconds from 1904 to 1970
)

// macFork returns the length of the fork to keep when hdr is a MacBinary
// header that matches h, else -1.
func macFork(hdr []byte, h *header) int64 {
	if hdr[0] != 0 || hdr[0x4a] != 0 || hdr[0x52] != 0 || hdr[0x63] != 0 || hdr[0x64] != 0 {
		return -1
	}
	for _, c := range hdr[0x65:] {
		if c != 0 {
			return -1
		}
	}
	n := int(hdr[1])
	if n > 63 || string(hdr[2:2+n]) != h.name {
		return -1
	}
	for _, c := range hdr[2+n : 2+63] {
		if c != 0 {
			return -1
		}
	}
	data := int64(binary.BigEndian.Uint32(hdr[0x53:]))
	res := int64(binary.BigEndian.Uint32(hdr[0x57:]))
	if (data+res+macHdrSize+0x7f)&^0x7f != h.size {
		return -1
	}
	mod := int64(binary.BigEndian.Uint32(hdr[0x5f:]))
	if mod < macEpochOff {
		return -1
	}
	if d := h.mtime.Unix() - (mod - macEpochOff); d > 14*3600 || d < -14*3600 {
		return -1
	}
	if data > 0 {
		return data
	}
	return res
}

// macReader gives keep bytes of r, then reads r to its end (where its
// CRC is checked) before returning io.EOF.
type macReader struct {
	r    io.Reader
	keep int64
}

func (m *macReader) Read(p []byte) (int, error) {
	if m.keep <= 0 {
		_, err := io.Copy(io.Discard, m.r)
		if err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	if int64(len(p)) > m.keep {
		p = p[:m.keep]
	}
	n, err := m.r.Read(p)
	m.keep -= int64(n)
	if err == io.EOF && m.keep > 0 {
		err = ErrTruncated
	}
	if err == io.EOF {
		err = nil
	}
	return n, err
}
