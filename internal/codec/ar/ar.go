// Package ar reads Unix ar archives: the System V / GNU variant, whose
// long names live in the "//" member and are referred to as "/OFFSET",
// and the BSD variant, whose long names ("#1/LEN") precede the data. The
// GNU symbol tables ("/", "/SYM64/") are skipped; BSD's "__.SYMDEF" is an
// ordinary member, as BSD ar extracts it. ar carries no checksum. Thin
// archives (which only name files elsewhere) are refused.
package ar

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Magic starts every ar archive.
const Magic = "!<arch>\n"

// Errors. Each errors.Is its archive category.
var (
	ErrMagic     = archive.Corruptf("ar: not an ar archive")
	ErrHeader    = archive.Corruptf("ar: invalid member header")
	ErrTruncated = archive.Corruptf("ar: truncated archive")
	ErrName      = archive.Corruptf("ar: invalid member name")
	ErrThin      = archive.Unsupportedf("ar: thin archives (members stored elsewhere) are not supported")
)

const (
	headerSize   = 60
	maxNameTable = 16 << 20 // a larger "//" member is refused
	maxBSDName   = 1 << 16
)

// Reader is an archive.Reader over an ar archive.
type Reader struct {
	in     *archive.FileSeq
	r      *bufio.Reader // in.R
	remain int64         // data bytes left in the current member
	pad    int64         // the padding byte after an odd-sized member
	names  []byte
	err    error
	buf    [headerSize]byte
}

// bufSize is the input buffer the headers are read through (and the data
// of small members: longer runs bypass it when the input is a file).
const bufSize = 64 << 10

// Open reads an ar archive from its input: from the file itself when it
// is one (WriteTo then hands long runs of data to the kernel), else from
// in.R.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	s := archive.NewFileSeq(in, bufSize)
	if opt != nil && opt.Threads > 0 {
		s.Readers = min(s.Readers, opt.Threads) // at most opt.Threads goroutines
	}
	return newReader(s)
}

// NewReader reads the global header from r.
func NewReader(r io.Reader) (*Reader, error) {
	return newReader(archive.NewSeq(r, bufSize))
}

func newReader(in *archive.FileSeq) (*Reader, error) {
	br := in.R
	z := &Reader{in: in, r: br}
	m := z.buf[:len(Magic)]
	if _, err := io.ReadFull(br, m); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, ErrMagic
		}
		return nil, fmt.Errorf("ar: reading the input: %w", err)
	}
	if string(m) == "!<thin>\n" {
		return nil, ErrThin
	}
	if string(m) != Magic {
		return nil, ErrMagic
	}
	return z, nil
}

// Close gives back the buffers of parallel reads; the caller owns the
// input.
func (z *Reader) Close() error {
	z.in.Close()
	return nil
}

func (z *Reader) skip(n int64) error {
	m, err := io.CopyN(io.Discard, z.r, n)
	if err == io.EOF || (err == nil && m < n) {
		return ErrTruncated
	}
	if err != nil {
		return fmt.Errorf("ar: reading the input: %w", err)
	}
	return nil
}

// Next returns the next member, or io.EOF after the last.
func (z *Reader) Next() (*archive.Entry, error) {
	if z.err != nil {
		return nil, z.err
	}
	e, err := z.next()
	if err != nil {
		z.err = err
	}
	return e, err
}

func (z *Reader) next() (*archive.Entry, error) {
	for {
		if z.remain+z.pad > 0 {
			if err := z.skip(z.remain + z.pad); err != nil {
				return nil, err
			}
			z.remain, z.pad = 0, 0
		}
		h := z.buf[:]
		n, err := io.ReadFull(z.r, h)
		if err == io.EOF {
			return nil, io.EOF
		}
		if err == io.ErrUnexpectedEOF {
			// A lone newline pads some archives' ends.
			if n == 1 && h[0] == '\n' {
				return nil, io.EOF
			}
			return nil, ErrTruncated
		}
		if err != nil {
			return nil, fmt.Errorf("ar: reading the input: %w", err)
		}
		if h[58] != '`' || h[59] != '\n' {
			return nil, ErrHeader
		}
		size, err := field(h[48:58], 10)
		if err != nil {
			return nil, ErrHeader
		}
		// Symbol tables and long-name tables leave these blank; anything
		// else must be a number, as GNU ar and Commons Compress require.
		mtime, err1 := field(h[16:28], 10)
		_, err2 := field(h[28:34], 10) // uid
		_, err3 := field(h[34:40], 10) // gid
		mode, err4 := field(h[40:48], 8)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return nil, ErrHeader
		}
		if strings.TrimSpace(string(h[40:48])) == "" {
			mode = 0o644
		}
		z.remain, z.pad = size, size&1
		raw := strings.TrimRight(string(h[:16]), " ")
		var name string
		switch {
		case raw == "/" || raw == "/SYM64/":
			continue // GNU symbol table
		case raw == "//":
			if size > maxNameTable {
				return nil, ErrName
			}
			z.names = make([]byte, size)
			if _, err := io.ReadFull(z.r, z.names); err != nil {
				return nil, ErrTruncated
			}
			z.remain = 0
			continue
		case strings.HasPrefix(raw, "#1/"):
			n, err := strconv.ParseInt(raw[3:], 10, 64)
			if err != nil || n <= 0 || n > size || n > maxBSDName {
				return nil, ErrName
			}
			b := make([]byte, n)
			if _, err := io.ReadFull(z.r, b); err != nil {
				return nil, ErrTruncated
			}
			z.remain -= n
			name = string(bytes.TrimRight(b, "\x00"))
		case len(raw) > 1 && raw[0] == '/' && raw[1] >= '0' && raw[1] <= '9':
			off, err := strconv.ParseInt(raw[1:], 10, 64)
			if err != nil || off < 0 || off >= int64(len(z.names)) {
				return nil, ErrName
			}
			rest := z.names[off:]
			end := bytes.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			name = strings.TrimSuffix(string(rest[:end]), "/")
		default:
			name = strings.TrimSuffix(raw, "/")
		}
		if name == "" {
			return nil, ErrName
		}
		return &archive.Entry{
			Name:       name,
			Type:       archive.TypeFile,
			Size:       z.remain,
			PackedSize: z.remain,
			Mode:       fs.FileMode(mode & 0o777),
			ModTime:    time.Unix(mtime, 0),
			Method:     "stored",
		}, nil
	}
}

// field parses a blank-padded decimal or octal header field; an all-blank
// one is 0.
func field(b []byte, base int) (int64, error) {
	s := strings.TrimRight(string(b), " ")
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(s, base, 64)
	if err != nil || v < 0 {
		return 0, ErrHeader
	}
	return v, nil
}

// Read reads the current member's data.
func (z *Reader) Read(p []byte) (int, error) {
	if z.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > z.remain {
		p = p[:z.remain]
	}
	n, err := z.r.Read(p)
	z.remain -= int64(n)
	if err == io.EOF {
		if z.remain > 0 {
			z.err = ErrTruncated
			return n, ErrTruncated
		}
		err = nil
	}
	if err != nil {
		err = fmt.Errorf("ar: reading the input: %w", err)
		z.err = err
	}
	return n, err
}

// WriteTo writes the rest of the current member's data to w: in large
// writes straight from the input buffer, or, for a long run of a file,
// through the kernel to a RangeWriter (see archive.FileSeq).
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	n, rerr, werr := z.in.Send(w, z.remain, nil)
	z.remain -= n
	switch {
	case werr != nil:
		return n, werr
	case rerr != nil:
		z.err = fmt.Errorf("ar: reading the input: %w", rerr)
		return n, z.err
	case z.remain > 0:
		z.err = ErrTruncated
		return n, z.err
	}
	return n, nil
}
