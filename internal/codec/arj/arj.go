// Package arj reads ARJ archives: the main header (its comment is the
// archive's comment), local file headers with their extended headers,
// methods 0 (stored), 1 to 3 (LZSS with static Huffman tables, package
// lzhdec) and 4 (LZSS with fixed unary codes), directories, MS-DOS or
// Unix times and modes, and multi-volume sets (NAME.arj, NAME.a01,
// NAME.a02…, opened from the first) whose files may span volumes: each
// part is a stream of its own with its own CRC-32. Every basic and
// extended header's CRC-32 is verified, and every file part's CRC-32 at
// its end. Garbled (encrypted) entries are refused as unsupported. The
// layout follows ARJ's technical notes (TECHNOTE.DOC, ARJ 2.x).
package arj

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzhdec"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Errors. Each errors.Is its archive category.
var (
	ErrHeader    = archive.Corruptf("arj: invalid header")
	ErrHeaderCRC = archive.Corruptf("arj: header CRC-32 mismatch")
	ErrTruncated = archive.Corruptf("arj: truncated archive")
	ErrNotARJ    = archive.Corruptf("arj: no ARJ main header found")
	ErrVolume    = archive.Corruptf("arj: the next volume does not continue the file")
	// ErrGarbled reports an encrypted entry.
	ErrGarbled = archive.Unsupportedf("arj: ARJ garbled (encrypted) entries are not supported")
)

// Reader is an archive.Reader over an ARJ archive or volume set.
type Reader struct {
	r       *bufio.Reader
	opt     *archive.Options
	path    string // the first volume's path, "" for a stream
	vol     int    // volumes opened after the first
	file    *os.File
	comment string
	multi   bool // the main header says the archive continues
	buf     []byte

	cur    *header // the current part
	body   io.LimitedReader
	dec    *lzhdec.Reader
	check  verify.Reader
	data   io.Reader
	err    error
	name   string // of the current entry
	parted bool   // the current entry continues in the next volume
}

// Open reads an ARJ archive from in.R; later volumes are opened beside
// in.Path.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	z, err := NewReader(in.R, opt)
	if err != nil {
		return nil, err
	}
	z.path = in.Path
	return z, nil
}

// NewReader reads the main header from r, after a self-extractor stub
// if there is one.
func NewReader(r io.Reader, opt *archive.Options) (*Reader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	z := &Reader{r: br, opt: opt, buf: make([]byte, maxBasic+4)}
	if err := z.skipStub(); err != nil {
		return nil, err
	}
	if err := z.readMain(); err != nil {
		return nil, err
	}
	return z, nil
}

// skipStub finds the main header: at the start, or the first header id
// in the buffered input whose header's CRC-32 is right.
func (z *Reader) skipStub() error {
	if head, _ := z.r.Peek(4 + maxBasic + 4); IsHeader(head) {
		return nil
	}
	head, _ := z.r.Peek(z.r.Size())
	for i := 0; i+4 <= len(head); i++ {
		j := bytes.Index(head[i:], []byte{0x60, 0xEA})
		if j < 0 {
			break
		}
		i += j
		if IsHeader(head[i:]) {
			z.r.Discard(i)
			return nil
		}
	}
	return ErrNotARJ
}

// IsHeader reports whether b starts with an ARJ header whose basic
// header is complete in b with a right CRC-32.
func IsHeader(b []byte) bool {
	if len(b) < 4 || b[0] != 0x60 || b[1] != 0xEA {
		return false
	}
	n := int(binary.LittleEndian.Uint16(b[2:]))
	if n < minFirst || n > maxBasic || len(b) < 4+n+4 || int(b[4]) < minFirst || int(b[4]) > n {
		return false
	}
	return verify.UpdateCRC32(0, b[4:4+n]) == binary.LittleEndian.Uint32(b[4+n:])
}

func (z *Reader) readMain() error {
	h, err := readHeader(z.r, z.buf)
	if err == io.EOF {
		return ErrHeader
	}
	if err != nil {
		return err
	}
	if h.fileType != typeMain {
		return ErrHeader
	}
	if z.vol == 0 {
		z.comment = h.comment
	}
	z.multi = h.flags&flagVolume != 0
	return nil
}

// Comment returns the main header's comment.
func (z *Reader) Comment() string { return z.comment }

// Close closes a volume opened after the first.
func (z *Reader) Close() error {
	if z.file != nil {
		err := z.file.Close()
		z.file = nil
		return err
	}
	return nil
}

// volumeName is the path of volume k (1: NAME.a01) beside the first.
func volumeName(first string, k int) string {
	ext := filepath.Ext(first)
	stem := strings.TrimSuffix(first, ext)
	v := fmt.Sprintf(".a%02d", k)
	if k > 99 {
		v = fmt.Sprintf(".%03d", k)
	}
	if ext != strings.ToLower(ext) {
		v = strings.ToUpper(v)
	}
	return stem + v
}

// nextVolume opens the next volume and reads its main header.
func (z *Reader) nextVolume() error {
	if z.path == "" {
		return archive.Errorf(archive.ErrMissingVolume, "arj: the archive continues in another volume, which a stream cannot open")
	}
	z.vol++
	name := volumeName(z.path, z.vol)
	f, err := z.opt.Open(name)
	if err != nil {
		if os.IsNotExist(err) {
			return archive.Errorf(archive.ErrMissingVolume, "arj: missing volume %s", filepath.Base(name))
		}
		return err
	}
	z.Close()
	z.file = f
	z.r = bufio.NewReaderSize(f, 64<<10)
	return z.readMain()
}

// Next returns the next entry, or io.EOF after the last.
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

func (z *Reader) skipRest() error {
	if z.body.N > 0 {
		n, err := z.r.Discard(int(min(z.body.N, 1<<30)))
		z.body.N -= int64(n)
		for err == nil && z.body.N > 0 {
			n, err = z.r.Discard(int(min(z.body.N, 1<<30)))
			z.body.N -= int64(n)
		}
		if err == io.EOF {
			return ErrTruncated
		}
		return err
	}
	return nil
}

func (z *Reader) next() (*archive.Entry, error) {
	// The rest of a file spanning volumes is skipped part by part.
	for {
		if err := z.skipRest(); err != nil {
			return nil, err
		}
		z.data = nil
		if !z.parted {
			break
		}
		if _, err := z.nextPart(); err != nil {
			return nil, err
		}
	}
	for {
		h, err := readHeader(z.r, z.buf)
		if err == io.EOF {
			if z.multi {
				if err := z.nextVolume(); err != nil {
					return nil, err
				}
				continue
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if h.fileType == typeLabel || h.fileType == typeChapter {
			z.body = io.LimitedReader{R: z.r, N: h.packed}
			if err := z.skipRest(); err != nil {
				return nil, err
			}
			continue
		}
		return z.entry(h)
	}
}

// entry starts reading the file of header h.
func (z *Reader) entry(h *header) (*archive.Entry, error) {
	e := &archive.Entry{
		Name:       h.name,
		Type:       archive.TypeFile,
		Size:       h.size,
		PackedSize: h.packed,
		ModTime:    h.modTime(),
		Method:     methodName(h.method),
		Comment:    h.comment,
		Encrypted:  h.flags&flagGarbled != 0,
	}
	switch {
	case h.host == hostUnix || h.host == hostNeXT:
		e.Mode = fs.FileMode(h.mode & 0o777)
		if h.mode&0o170000 == 0o040000 {
			e.Type = archive.TypeDir
		}
	case h.mode&0x01 != 0:
		e.Mode = 0o444
	default:
		e.Mode = 0o644
	}
	z.name = h.name
	z.body = io.LimitedReader{R: z.r, N: h.packed}
	if h.fileType == typeDir {
		e.Type = archive.TypeDir
	}
	if e.Type == archive.TypeDir {
		e.Size, e.Method = 0, ""
		if e.Mode == 0o644 || e.Mode == 0o444 {
			e.Mode = 0o755
		}
		return e, nil
	}
	e.Checksum = verify.CRC32
	if h.flags&(flagVolume|flagExtFile) == 0 {
		e.ChecksumValue = binary.BigEndian.AppendUint32(nil, h.crc)
	} else {
		e.Size, e.PackedSize = -1, -1 // known only at the last part
	}
	if err := z.startPart(h); err != nil {
		z.data = errReader{err}
	}
	return e, nil
}

func methodName(m byte) string {
	if m == 0 {
		return "stored"
	}
	return fmt.Sprintf("arj%d", m)
}

// startPart sets up the verified data of one file part.
func (z *Reader) startPart(h *header) error {
	z.cur = h
	z.parted = h.flags&flagVolume != 0
	if h.flags&flagGarbled != 0 {
		return ErrGarbled
	}
	var src io.Reader = &z.body
	switch h.method {
	case 0:
		if h.size != h.packed {
			return archive.Corruptf("arj: %q: stored part of %d bytes packed in %d", h.name, h.size, h.packed)
		}
	case 1, 2, 3, 4:
		m := lzhdec.ARJ
		if h.method == 4 {
			m = lzhdec.ARJ4
		}
		if z.dec == nil {
			d, err := lzhdec.NewReader(src, m, h.size)
			if err != nil {
				return err
			}
			z.dec = d
		} else if err := z.dec.Reset(src, m, h.size); err != nil {
			return err
		}
		src = z.dec
	default:
		return archive.Unsupportedf("arj: %q: compression method %d is not supported", h.name, h.method)
	}
	z.check.Reset(&sized{r: src, left: h.size}, verify.CRC32, binary.BigEndian.AppendUint32(nil, h.crc))
	z.data = &z.check
	return nil
}

// nextPart moves to the part of the current file in the next volume.
func (z *Reader) nextPart() (bool, error) {
	h, err := readHeader(z.r, z.buf)
	if err == io.EOF {
		if err := z.nextVolume(); err != nil {
			return false, err
		}
		h, err = readHeader(z.r, z.buf)
	}
	if err == io.EOF {
		return false, ErrVolume
	}
	if err != nil {
		return false, err
	}
	if h.flags&flagExtFile == 0 || h.name != z.name {
		return false, ErrVolume
	}
	z.body = io.LimitedReader{R: z.r, N: h.packed}
	return true, z.startPart(h)
}

// sized fails when its reader ends short of the part's size.
type sized struct {
	r    io.Reader
	left int64
}

func (s *sized) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.left -= int64(n)
	if err == io.EOF && s.left > 0 {
		err = ErrTruncated
	}
	return n, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Read reads the current file's data, across volumes; each part's CRC-32
// is checked at its end.
func (z *Reader) Read(p []byte) (int, error) {
	for {
		if z.data == nil {
			return 0, io.EOF
		}
		n, err := z.data.Read(p)
		if err == io.EOF && z.parted {
			if _, err := z.nextPart(); err != nil {
				z.data = errReader{err}
				return n, err
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}
