// Package lzh reads LHA and LArc archives (.lzh, .lha, .lzs; PMarc's
// stored -pm0-): header levels 0 to 3 with their extended headers (file
// and directory names, Unix mode, owner and time, Windows times, OS-9
// permissions; comments and other systems' fields skipped), the methods
// -lh0- and -lz4- (stored), -lh1-, -lh4- to -lh7-, -lhx-, -lzs- and -lz5-
// and PMarc's -pm1- and -pm2- (package lzhdec), directories (-lhd-) and symlinks ("name|target" in a
// -lhd- entry with a Unix symlink mode). Every file's CRC-16 (CRC-16/ARC)
// is verified at its end, and a header's own CRC where it carries one
// (the common extended header); level 0 and 1 headers' byte sums are
// checked.
//
// The format has no magic: an archive starts with a header whose method
// field ("-lh5-") sits at offset 2. A self-extracting program is skipped
// by looking for such a header in its first 128 KiB, as lhasa and
// 7-Zip do. Names follow lhasa: "\" and 0xFF are directory separators,
// all-capital MS-DOS names are put in lower case, and empty and "."
// components dropped; ".." is kept for the sink to refuse (lhasa
// collapses it).
package lzh

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzhdec"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Errors. Each errors.Is its archive category.
var (
	ErrNotLZH    = archive.Corruptf("lzh: no LHA header found")
	ErrHeader    = archive.Corruptf("lzh: invalid header")
	ErrLevel     = archive.Corruptf("lzh: unknown header level")
	ErrHeaderSum = archive.Corruptf("lzh: header checksum mismatch")
	ErrHeaderCRC = archive.Corruptf("lzh: header CRC mismatch")
	ErrName      = archive.Corruptf("lzh: header names no file")
	ErrTruncated = archive.Corruptf("lzh: truncated archive")
)

const (
	dirMethod = "-lhd-"
	// sfxScan is how far into a self-extractor a header is looked for
	// (see archive.IsLZHHeader).
	sfxScan = 128 << 10
)

// Reader is an archive.Reader over an LHA archive.
type Reader struct {
	r      *bufio.Reader
	opt    *archive.Options
	hbuf   []byte
	remain int64 // packed bytes of the current entry not consumed
	body   io.LimitedReader
	data   io.Reader // the current entry's verified data, nil when none
	dec    *lzhdec.Reader
	check  verify.Reader
	err    error
}

// Open reads an LHA archive from in.R.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	return NewReader(in.R, opt)
}

// NewReader finds the first header in r (after a self-extractor of up to
// 128 KiB).
func NewReader(r io.Reader, opt *archive.Options) (*Reader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < sfxScan+64 {
		br = bufio.NewReaderSize(r, sfxScan+4096)
	}
	z := &Reader{r: br, opt: opt}
	head, err := br.Peek(sfxScan + 32)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, z.inputErr(err)
	}
	off := 0
	// An archive that starts with a method field is read from there, so
	// that a broken first header is reported, not skipped like a stub;
	// PMarc's self-extractors start with a "-pms-" one, the stub's.
	if len(head) < 7 || head[2] != '-' || head[6] != '-' || string(head[2:7]) == "-pms-" {
		off = Find(head)
	}
	if off < 0 {
		return nil, ErrNotLZH
	}
	br.Discard(off)
	return z, nil
}

// Find returns the offset of the first plausible LHA header in b, or -1:
// a method field "-lh?-", "-lz4-", "-lz5-", "-lzs-" or "-pm?-" at offset 2
// with a header level of 0 to 3 and, for levels 0 and 1, a right byte sum.
// Amiga LhASFX self-extractors carry a small archive of their own before
// the real one, which is skipped.
func Find(b []byte) int {
	skip := 0
	for i := 0; i+commonLen <= len(b); i++ {
		if bytes.HasPrefix(b[i:], []byte("LhASFX V1.2,")) {
			skip = 1
		}
		if !archive.IsLZHHeader(b[i:]) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		return i
	}
	return -1
}

func (z *Reader) inputErr(err error) error {
	return fmt.Errorf("lzh: reading the input: %w", err)
}

// Close does nothing; the caller owns the input.
func (z *Reader) Close() error { return nil }

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

func (z *Reader) next() (*archive.Entry, error) {
	z.data = nil
	for z.remain > 0 {
		m, err := z.r.Discard(int(min(z.remain, 1<<30)))
		z.remain -= int64(m)
		if err == io.EOF {
			return nil, ErrTruncated
		}
		if err != nil {
			return nil, z.inputErr(err)
		}
	}
	z.remain = 0
	h, err := z.readHeader()
	if err != nil {
		return nil, err
	}
	e := &archive.Entry{
		Name:       h.path + h.name,
		Type:       archive.TypeFile,
		Size:       h.size,
		PackedSize: h.packed,
		Mode:       h.mode(),
		ModTime:    h.mtime,
		Method:     h.method,
		Comment:    h.comment,
	}
	if h.winTime != 0 {
		const epochDiff = 116444736000000000 // 1601 to 1970 in 100 ns
		if t := h.winTime; t >= epochDiff {
			e.ModTime = time.Unix(int64((t-epochDiff)/1e7), int64((t-epochDiff)%1e7)*100)
		}
	}
	z.remain = h.packed
	if h.method == dirMethod || !h.hasName && h.hasPath && h.size == 0 {
		// Amiga LHA 1.22 stores empty directories as -lh0- entries with
		// a path and no name.
		if h.hasPerms && h.perms&0o170000 == 0o120000 {
			e.Type, e.Linkname, e.Size = archive.TypeSymlink, h.target, 0
		} else {
			e.Type, e.Size = archive.TypeDir, 0
			if e.Mode == 0 {
				e.Mode = 0o755
			}
		}
		return e, nil
	}
	if e.Mode == 0 {
		e.Mode = 0o644
	}
	e.Checksum = verify.CRC16ARC
	e.ChecksumValue = []byte{byte(h.crc >> 8), byte(h.crc)}
	z.body = io.LimitedReader{R: z.r, N: h.packed}
	var src io.Reader = &z.body
	switch h.method {
	case "-lh0-", "-lz4-", "-pm0-":
		if h.size != h.packed {
			return nil, archive.Corruptf("lzh: %q: stored entry of %d bytes packed in %d", e.Name, h.size, h.packed)
		}
		e.Method = "stored"
	default:
		m, ok := methods[h.method]
		if !ok {
			z.data = errReader{archive.Unsupportedf("lzh: %q: compression method %s is not supported", e.Name, h.method)}
			return e, nil
		}
		if int64(lzhdec.Memory(m)) > z.opt.Limit() {
			z.data = errReader{archive.Limitf("lzh: %q: method %s needs %d bytes of memory, over the limit", e.Name, h.method, lzhdec.Memory(m))}
			return e, nil
		}
		if z.dec == nil {
			d, err := lzhdec.NewReader(src, m, h.size)
			if err != nil {
				return nil, err
			}
			z.dec = d
		} else if err := z.dec.Reset(src, m, h.size); err != nil {
			return nil, err
		}
		src = z.dec
	}
	z.check.Reset(&counted{r: src, z: z, size: h.size}, verify.CRC16ARC, e.ChecksumValue)
	z.data = &z.check
	if h.os == osMac && h.size >= macHdrSize {
		z.macBinary(e, h)
	}
	return e, nil
}

// macBinary looks at the first 128 decoded bytes of a MacLHA entry and,
// when they are a MacBinary header, makes the entry its data fork.
func (z *Reader) macBinary(e *archive.Entry, h *header) {
	hdr := make([]byte, macHdrSize)
	if _, err := io.ReadFull(&z.check, hdr); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = ErrTruncated
		}
		z.data = errReader{err}
		return
	}
	keep := macFork(hdr, h)
	if keep < 0 {
		z.data = io.MultiReader(bytes.NewReader(hdr), &z.check)
		return
	}
	e.Size = keep
	e.Method += "+MacBinary"
	z.data = &macReader{r: &z.check, keep: keep}
}

// methods maps the compressed methods to their decoders.
var methods = map[string]lzhdec.Method{
	"-lh1-": lzhdec.LH1, "-lh4-": lzhdec.LH4, "-lh5-": lzhdec.LH5, "-lh6-": lzhdec.LH6,
	"-lh7-": lzhdec.LH7, "-lhx-": lzhdec.LHX, "-lzs-": lzhdec.LZS, "-lz5-": lzhdec.LZ5,
	"-pm1-": lzhdec.PM1, "-pm2-": lzhdec.PM2,
}

// counted passes an entry's decoded data, tracking the packed bytes
// consumed, and fails when the data ends short of the header's size.
type counted struct {
	r    io.Reader
	z    *Reader
	size int64
	got  int64
}

func (c *counted) Read(p []byte) (int, error) {
	before := c.z.body.N
	n, err := c.r.Read(p)
	c.z.remain -= before - c.z.body.N
	c.got += int64(n)
	if err == io.EOF && c.got < c.size {
		err = ErrTruncated
	}
	return n, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Read reads the current entry's data; at its end the CRC-16 is checked.
func (z *Reader) Read(p []byte) (int, error) {
	if z.data == nil {
		return 0, io.EOF
	}
	return z.data.Read(p)
}
