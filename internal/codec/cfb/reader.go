package cfb

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Reader is an archive.Reader over a compound file's storages and
// streams: the raw streams, as 7-Zip extracts them.
type Reader struct {
	f   *File
	msi bool
	i   int
	cur io.Reader
}

// Open reads a compound file from in, which must be seekable.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if in.RA == nil {
		return nil, archive.Unsupportedf("cfb: compound files are read from a file, not a pipe")
	}
	f, err := OpenFile(in.RA, in.Size, opt.Limit())
	if err != nil {
		return nil, err
	}
	return NewReader(f), nil
}

// NewReader lists f's storages and streams.
func NewReader(f *File) *Reader {
	return &Reader{f: f, msi: f.IsMSI()}
}

// msiClasses are the root CLSIDs of Windows Installer databases, patches
// and transforms ({000C1084-…}, {000C1086-…}, {000C1082-…}).
var msiClasses = map[[2]byte]bool{{0x84, 0x10}: true, {0x86, 0x10}: true, {0x82, 0x10}: true}

// IsMSI reports whether f is a Windows Installer database (or patch or
// transform), whose stream names are packed (see MSIName).
func (f *File) IsMSI() bool {
	c := f.RootCLSID
	return c[2] == 0x0c && c[3] == 0 && msiClasses[[2]byte{c[0], c[1]}] && string(c[8:]) == "\xc0\x00\x00\x00\x00\x00\x00\x46"
}

// Next returns the next storage (a directory) or stream (a file).
func (r *Reader) Next() (*archive.Entry, error) {
	if r.i >= len(r.f.Entries) {
		return nil, io.EOF
	}
	e := r.f.Entries[r.i]
	r.i++
	names := make([]string, e.Depth)
	for p, i := e, e.Depth-1; p != nil && i >= 0; p, i = p.Parent, i-1 {
		names[i] = DisplayName(p.Name, r.msi)
	}
	a := &archive.Entry{Name: strings.Join(names, "/"), Size: e.Size, PackedSize: -1, ModTime: e.Modified, Method: "stored"}
	if a.ModTime.IsZero() {
		a.ModTime = e.Created
	}
	if e.Storage {
		a.Type, a.Mode, a.Size, a.Method = archive.TypeDir, 0o755, 0, ""
		r.cur = &streamReader{}
		return a, nil
	}
	a.Type, a.Mode = archive.TypeFile, 0o644
	s, err := r.f.Open(e)
	if err != nil {
		s = errReader{err}
	}
	r.cur = s
	return a, nil
}

// Read reads the current stream.
func (r *Reader) Read(p []byte) (int, error) {
	if r.cur == nil {
		return 0, io.EOF
	}
	return r.cur.Read(p)
}

// Close does nothing; the caller owns the input.
func (r *Reader) Close() error { return nil }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// msiChars are the 64 characters an MSI stream name packs, two to a
// UTF-16 unit from 0x3800 or one from 0x4800.
const msiChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz._"

// DisplayName is a stored name as 7-Zip shows it: an MSI database's
// packed names unpacked (its table streams' 0x4840 prefix as "!"), and
// control characters as "[N]".
func DisplayName(raw []uint16, msi bool) string {
	var b strings.Builder
	var units []uint16
	flush := func() {
		b.WriteString(string(utf16.Decode(units)))
		units = units[:0]
	}
	for _, c := range raw {
		switch {
		case msi && c >= 0x3800 && c < 0x4800:
			flush()
			c -= 0x3800
			b.WriteByte(msiChars[c&0x3f])
			b.WriteByte(msiChars[c>>6&0x3f])
		case msi && c >= 0x4800 && c < 0x4840:
			flush()
			b.WriteByte(msiChars[c-0x4800])
		case msi && c == 0x4840:
			flush()
			b.WriteByte('!')
		case c < 0x20:
			flush()
			b.WriteString("[" + strconv.Itoa(int(c)) + "]")
		default:
			units = append(units, c)
		}
	}
	flush()
	return b.String()
}
