package gzip

import (
	"encoding/binary"
	"io"
	"time"
	"unicode/utf8"

	"github.com/unpack-dev/unpack/internal/verify"
)

// Header flags (RFC 1952 §2.3.1).
const (
	flagHCRC    = 1 << 1
	flagExtra   = 1 << 2
	flagName    = 1 << 3
	flagComment = 1 << 4
	flagReserve = 0xe0
)

// MaxField bounds a stored name or comment, in bytes.
const MaxField = 1 << 20

// Header is what a member header stores beside the data.
type Header struct {
	Name    string    // FNAME, converted from ISO 8859-1 to UTF-8
	Comment string    // FCOMMENT, converted likewise
	Extra   []byte    // FEXTRA, raw subfields
	ModTime time.Time // MTIME; zero when the header stores 0
	OS      byte      // the OS byte
}

// readHeader parses a member header into h. A clean end of input before
// the first byte is io.EOF; anything short of a whole header afterwards is
// ErrTruncated.
func (z *Reader) readHeader(h *Header) error {
	fixed := z.hdr[:10]
	for i := range fixed {
		b, err := z.in.readByte()
		if err != nil {
			if i == 0 && err == io.EOF {
				return io.EOF
			}
			return z.inputErr(err)
		}
		fixed[i] = b
	}
	if fixed[0] != 0x1f || fixed[1] != 0x8b {
		return ErrHeader
	}
	if fixed[2] != 8 {
		return ErrMethod
	}
	flg := fixed[3]
	if flg&flagReserve != 0 {
		return ErrHeader
	}
	crc := verify.UpdateCRC32(0, fixed)
	*h = Header{OS: fixed[9]}
	if t := binary.LittleEndian.Uint32(fixed[4:8]); t != 0 {
		h.ModTime = time.Unix(int64(t), 0)
	}
	if flg&flagExtra != 0 {
		xlen := z.hdr[:2]
		if err := z.readFull(xlen, &crc); err != nil {
			return err
		}
		n := int(binary.LittleEndian.Uint16(xlen))
		h.Extra = make([]byte, n)
		if err := z.readFull(h.Extra, &crc); err != nil {
			return err
		}
	}
	if flg&flagName != 0 {
		s, err := z.readString(&crc)
		if err != nil {
			return err
		}
		h.Name = s
	}
	if flg&flagComment != 0 {
		s, err := z.readString(&crc)
		if err != nil {
			return err
		}
		h.Comment = s
	}
	if flg&flagHCRC != 0 {
		want := z.hdr[:2]
		if err := z.readFull(want, nil); err != nil {
			return err
		}
		if binary.LittleEndian.Uint16(want) != uint16(crc) {
			return ErrHeader
		}
	}
	return nil
}

// inputErr turns an end of input inside a structure into ErrTruncated.
func (z *Reader) inputErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}

// readFull reads len(p) header bytes, adding them to *crc when crc is not
// nil.
func (z *Reader) readFull(p []byte, crc *uint32) error {
	for i := range p {
		b, err := z.in.readByte()
		if err != nil {
			return z.inputErr(err)
		}
		p[i] = b
	}
	if crc != nil {
		*crc = verify.UpdateCRC32(*crc, p)
	}
	return nil
}

// readString reads a zero-terminated ISO 8859-1 string of at most
// MaxField bytes and returns it as UTF-8.
func (z *Reader) readString(crc *uint32) (string, error) {
	z.scratch = z.scratch[:0]
	ascii := true
	for {
		b, err := z.in.readByte()
		if err != nil {
			return "", z.inputErr(err)
		}
		if b == 0 {
			break
		}
		if len(z.scratch) == MaxField {
			return "", ErrFieldTooLong
		}
		z.scratch = append(z.scratch, b)
		ascii = ascii && b < utf8.RuneSelf
	}
	*crc = verify.UpdateCRC32(*crc, append(z.scratch, 0))
	if ascii {
		return string(z.scratch), nil
	}
	r := make([]rune, len(z.scratch))
	for i, b := range z.scratch {
		r[i] = rune(b)
	}
	return string(r), nil
}
