package zip

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// StreamReader reads a zip archive from its local headers, for input that
// cannot seek (standard input, pipes). It stops at the central directory.
//
// Local headers carry less than the central directory: no Unix modes (so
// no symbolic links: they come out as small files), no comments. Entries
// with a data descriptor and no sizes are decoded to find their end; a
// stored one is ended by a descriptor with its signature whose CRC and
// sizes match the data before it, and one without that signature, or an
// AES-encrypted one, cannot be streamed (archive.ErrUnsupported).
//
// Of several password candidates, the first that passes an entry's
// ZipCrypto check byte or AES verifier is used: the data cannot be read
// again, so a wrong one that passes (1 in 256, 1 in 65536) ends in a CRC or
// MAC mismatch, where the seekable Reader tries the next.
type StreamReader struct {
	opt   *archive.Options
	limit int64
	cr    countReader
	pb    pushback // the input, after what an inflater handed back
	br    *bufio.Reader
	spare []byte // pb's other buffer
	pipe  *pipeline
	lim   io.LimitedReader
	scan  storedScanner

	pwDone bool
	pw     []string
	pwErr  error

	cur      *header
	entry    *archive.Entry
	data     io.Reader // nil until the first Read
	dataEnd  int64     // input position where the entry's data end; -1 unknown
	dataPos  int64     // input position where the entry's data start
	err      error     // the current entry's error
	fatal    error     // the stream lost its place: every Next fails
	started  bool
	consumed bool // the entry's data (and descriptor) have been read
	hdr      [localLen]byte
	name     []byte

	held      []heldLocal       // Pending entries, until the central directory
	verdicts  []archive.Verdict // decided, not yet returned by Settled
	confirmed bool              // the central directory has been read
}

// countReader counts the bytes read from r and keeps the first read error
// (other than io.EOF): a failing input is reported as such, not as damage.
type countReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// pushback reads what was handed back (buf[off:]), then r.
type pushback struct {
	buf []byte
	off int
	r   io.Reader
}

func (b *pushback) Read(p []byte) (int, error) {
	if b.off < len(b.buf) {
		n := copy(p, b.buf[b.off:])
		b.off += n
		return n, nil
	}
	return b.r.Read(p)
}

// inputErr returns err, or the input's read error when reading the input
// failed: a decoder starved by it reports truncated or corrupt data, which
// it is not. The stream has then lost its place: every later call fails.
func (s *StreamReader) inputErr(err error) error {
	if err == nil || err == io.EOF || s.cr.err == nil {
		return err
	}
	if !errors.Is(err, s.cr.err) {
		err = fmt.Errorf("zip: reading the input: %w", s.cr.err)
	}
	s.fatal = err
	return err
}

// NewStreamReader returns a reader of the zip archive read from r.
func NewStreamReader(r io.Reader, opt *archive.Options) *StreamReader {
	if opt == nil {
		opt = &archive.Options{}
	}
	s := &StreamReader{opt: opt, limit: opt.Limit(), pipe: newPipeline()}
	s.pipe.opt = opt
	s.cr.r = r
	s.pb.r = &s.cr
	s.br = bufio.NewReaderSize(&s.pb, bufSize)
	return s
}

// pos is the input position of the next unread byte.
func (s *StreamReader) pos() int64 {
	return s.cr.n - int64(len(s.pb.buf)-s.pb.off) - int64(s.br.Buffered())
}

// unread puts back rest, the input an inflater read past the end of its
// stream, in front of what the input has left.
func (s *StreamReader) unread(rest []byte) {
	if len(rest) == 0 {
		return
	}
	buffered, _ := s.br.Peek(s.br.Buffered())
	b := append(s.spare[:0], rest...)
	b = append(b, buffered...)
	b = append(b, s.pb.buf[s.pb.off:]...)
	s.spare = s.pb.buf
	s.pb.buf, s.pb.off = b, 0
	s.br.Reset(&s.pb)
}

func (s *StreamReader) passwords() ([]string, error) {
	if !s.pwDone {
		s.pw, s.pwErr = s.opt.PasswordList()
		s.pwDone = true
	}
	return s.pw, s.pwErr
}

// Next returns the next entry, skipping what was not read of the current
// one (entries without a known size are decoded to find their end).
//
// Every entry but a directory is returned Pending: it is settled
// (Settled) when the central directory after the last entry confirms it,
// as Next returns io.EOF (see confirm), or failed with the error that ends
// the stream.
func (s *StreamReader) Next() (*archive.Entry, error) {
	if s.fatal != nil {
		s.failHeld(s.fatal)
		return nil, s.fatal
	}
	if s.cur != nil {
		if err := s.skipRest(); err != nil {
			s.fatal = s.inputErr(err)
			s.failHeld(s.fatal)
			return nil, s.fatal
		}
	}
	s.pipe.finish()
	s.cur, s.entry, s.data, s.err, s.consumed = nil, nil, nil, nil, false
	h, err := s.readLocal()
	if err != nil {
		if err != io.EOF {
			s.fatal = s.inputErr(err)
			s.failHeld(s.fatal)
			return nil, s.fatal
		}
		if !s.confirmed {
			s.confirmed = true
			if err := s.confirm(); err != nil {
				s.fatal = s.inputErr(err)
				return nil, s.fatal
			}
		}
		return nil, io.EOF
	}
	s.cur = h
	s.entry = h.entry()
	if s.entry.Type != archive.TypeDir {
		s.entry.Pending = true
		s.held = append(s.held, heldLocal{e: s.entry, h: h})
	}
	return s.entry, nil
}

// skipRest moves the input past the current entry's data and descriptor.
func (s *StreamReader) skipRest() error {
	h := s.cur
	if !s.consumed {
		if s.dataEnd >= 0 {
			if err := discard(s.br, s.dataEnd-s.pos()); err != nil {
				return ErrTruncated
			}
			if h.flags&flagDescriptor != 0 {
				if _, err := s.readDescriptor(h); err != nil {
					return err
				}
			}
		} else {
			// The end is only known by decoding.
			if s.data == nil {
				if err := s.openData(); err != nil {
					return err
				}
			}
			if _, err := io.Copy(io.Discard, s.data); err != nil {
				return err
			}
		}
	}
	return nil
}

// readLocal reads the next local header; io.EOF at the central directory
// or the end of the input.
func (s *StreamReader) readLocal() (*header, error) {
	b := s.hdr[:]
	for {
		sig, err := s.br.Peek(4)
		if err != nil {
			if err != io.EOF {
				return nil, s.inputErr(err)
			}
			if len(sig) == 0 && s.started {
				return nil, io.EOF
			}
			if len(sig) == 0 {
				return nil, archive.Errorf(ErrFormat, "zip: empty input")
			}
			return nil, ErrTruncated
		}
		switch binary.LittleEndian.Uint32(sig) {
		case sigLocal:
		case sigCentral, sigEnd, sigEnd64:
			if !s.started && binary.LittleEndian.Uint32(sig) != sigEnd {
				return nil, archive.Errorf(ErrFormat, "zip: input starts with a central directory")
			}
			return nil, io.EOF
		case sigDescriptor, sigSpanMarker:
			if !s.started {
				// The marker of a split set that fit on one disk.
				s.br.Discard(4)
				continue
			}
			return nil, archive.Errorf(ErrFormat, "zip: unexpected data descriptor at offset %d", s.pos())
		default:
			if !s.started {
				if err := s.skipPrefix(); err != nil {
					return nil, err
				}
				continue
			}
			return nil, archive.Errorf(ErrFormat, "zip: no local header at offset %d", s.pos())
		}
		break
	}
	s.started = true
	off := s.pos()
	if _, err := io.ReadFull(s.br, b); err != nil {
		return nil, ErrTruncated
	}
	r := readBuf(b[4:])
	h := &header{offset: off, limit: -1}
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
	if cap(s.name) < nameLen+extraLen {
		s.name = make([]byte, nameLen+extraLen)
	}
	tail := s.name[:nameLen+extraLen]
	if _, err := io.ReadFull(s.br, tail); err != nil {
		return nil, ErrTruncated
	}
	h.rawName = append([]byte(nil), tail[:nameLen]...)
	h.nameLen = nameLen
	needU, needC := h.usize == 0xFFFFFFFF, h.csize == 0xFFFFFFFF
	var no, nd bool
	var o uint64
	unicode := h.parseExtra(tail[nameLen:], false, &needU, &needC, &no, &nd, &o, h.rawName)
	h.name = decodeName(h.rawName, h.flags, unicode)
	if h.flags&flagMasked != 0 {
		return nil, archive.Unsupportedf("zip: %q: encrypted central directory is not supported", h.name)
	}
	if needU || needC || h.csize > 1<<62 || h.usize > 1<<62 {
		return nil, archive.Errorf(ErrFormat, "zip: %q: bad zip64 sizes in local header", h.name)
	}
	if h.flags&flagDescriptor != 0 && h.csize == 0 && !isDirName(h.name) {
		// Sizes come after the data. Info-ZIP writing to a pipe still
		// gives the uncompressed size, which for stored data is the
		// compressed size too.
		if h.method == methodStore && h.usize > 0 && !h.encrypted() {
			h.csize = h.usize
		} else {
			h.usizeUnknown = true
		}
	}
	s.dataPos = s.pos()
	s.dataEnd = -1
	if !h.usizeUnknown {
		s.dataEnd = s.dataPos + int64(h.csize)
	}
	return h, nil
}

func isDirName(name string) bool { return len(name) > 0 && name[len(name)-1] == '/' }

// skipPrefix skips a self-extractor stub before the first local header.
func (s *StreamReader) skipPrefix() error {
	for skipped := 0; skipped < archive.SFXScanLimit; {
		buf, err := s.br.Peek(bufSize)
		if i := bytes.Index(buf, []byte("PK\x03\x04")); i >= 0 {
			s.br.Discard(i)
			return nil
		}
		if err != nil {
			break
		}
		n := len(buf) - 3
		s.br.Discard(n)
		skipped += n
	}
	return archive.Errorf(ErrFormat, "zip: no local header found")
}

// openData sets up the current entry's verified data.
func (s *StreamReader) openData() error {
	h := s.cur
	var src io.Reader
	if h.usizeUnknown {
		src = s.br
		if h.realMethod() == methodStore {
			s.scan = storedScanner{br: s.br, zip64: h.zip64}
			if h.encrypted() {
				if h.method == methodAES {
					return archive.Unsupportedf("zip: %q: an AES-encrypted stored entry of unknown size cannot be streamed", h.name)
				}
				// The scan sees ciphertext: it matches the sizes only,
				// and the CRC is checked after decryption.
				s.scan.overhead = zipCryptoHeaderLen
			}
			src = &s.scan
		}
	} else {
		s.lim = io.LimitedReader{R: s.br, N: int64(h.csize)}
		src = &s.lim
	}
	d, err := s.pipe.decode(src, h, s.passwords, s.limit)
	if err != nil {
		return err
	}
	s.pipe.chk.finale = s.finale
	s.data = d
	return nil
}

// finale runs when the entry's data end: it reads the data descriptor
// when there is one and checks the sizes against it.
func (s *StreamReader) finale(c *checker) error {
	h := s.cur
	s.consumed = true
	if !h.usizeUnknown {
		// Skip what the decoder left of the stored bytes.
		if s.lim.N > 0 {
			if err := discard(s.br, s.lim.N); err != nil {
				return ErrTruncated
			}
			s.lim.N = 0
		}
		if h.flags&flagDescriptor != 0 {
			if _, err := s.readDescriptor(h); err != nil {
				return err
			}
		}
		return nil
	}
	if s.pipe.ahead != nil {
		s.unread(s.pipe.ahead.Rest())
	}
	packed := s.pos() - s.dataPos
	d, err := s.readDescriptor(h)
	if err != nil {
		return err
	}
	if d.csize != uint64(packed) {
		return archive.Errorf(ErrSize, "zip: %q: %d bytes of compressed data, data descriptor says %d", h.name, packed, d.csize)
	}
	h.crc, h.csize, h.usize = d.crc, d.csize, d.usize
	s.entry.Size, s.entry.PackedSize = int64(d.usize), int64(d.csize)
	return nil
}

type descriptor struct {
	crc          uint32
	csize, usize uint64
}

// readDescriptor reads a data descriptor, with or without its signature,
// with 32-bit sizes or, after a zip64 local header, 64-bit ones.
func (s *StreamReader) readDescriptor(h *header) (descriptor, error) {
	var d descriptor
	b, _ := s.br.Peek(4)
	if len(b) == 4 && binary.LittleEndian.Uint32(b) == sigDescriptor {
		s.br.Discard(4)
	}
	n := 12
	if h.zip64 {
		n = 20
	}
	b, err := s.br.Peek(n)
	if err != nil {
		return d, archive.Errorf(ErrTruncated, "zip: %q: data descriptor is truncated", h.name)
	}
	r := readBuf(b)
	d.crc = r.uint32()
	if h.zip64 {
		d.csize, d.usize = r.uint64(), r.uint64()
	} else {
		d.csize, d.usize = uint64(r.uint32()), uint64(r.uint32())
	}
	s.br.Discard(n)
	return d, nil
}

// Read reads the current entry's data, verified at its end.
func (s *StreamReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.cur == nil {
		return 0, io.EOF
	}
	if s.data == nil {
		if s.entry.Type != archive.TypeFile {
			return 0, io.EOF
		}
		if err := s.openData(); err != nil {
			err = s.inputErr(err)
			s.err = err
			if s.cur.usizeUnknown {
				s.fatal = err
			}
			return 0, err
		}
	}
	n, err := s.data.Read(p)
	if err != nil {
		err = s.inputErr(err)
		s.err = err
		if err != io.EOF && s.cur.usizeUnknown {
			// Without a size there is no way to the next header.
			s.fatal = err
		}
	}
	return n, err
}

// Close releases the decoders.
func (s *StreamReader) Close() error {
	s.pipe.finish()
	return nil
}

// storedScanner delivers a stored entry of unknown size: its data end at a
// data descriptor (with signature) whose CRC and sizes match what came
// before it. For ZipCrypto data (overhead 12, the encryption header) only
// the sizes can be matched.
type storedScanner struct {
	br       *bufio.Reader
	zip64    bool
	overhead uint64
	n        uint64
	crc      uint32
	done     bool
}

func (t *storedScanner) descLen() int {
	if t.zip64 {
		return 24
	}
	return 16
}

func (t *storedScanner) Read(p []byte) (int, error) {
	if t.done {
		return 0, io.EOF
	}
	need := t.descLen()
	buf, err := t.br.Peek(min(len(p)+need, t.br.Size()))
	if len(buf) < need {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return 0, archive.Unsupportedf("zip: stored entry of unknown size has no data descriptor signature; it cannot be streamed")
		}
		return 0, err
	}
	// Data run up to the first candidate signature, at most len(p).
	limit := min(len(p), len(buf)-need+1)
	i := 0
	found := false
	for i < limit {
		j := bytes.Index(buf[i:limit+3], []byte("PK\x07\x08"))
		if j < 0 || i+j >= limit {
			i = limit
			break
		}
		i += j
		crc := verify.UpdateCRC32(t.crc, buf[:i])
		n := t.n + uint64(i)
		r := readBuf(buf[i+4:])
		dcrc := r.uint32()
		var cs, us uint64
		if t.zip64 {
			cs, us = r.uint64(), r.uint64()
		} else {
			cs, us = uint64(r.uint32()), uint64(r.uint32())
		}
		if cs == n && us+t.overhead == n && (t.overhead > 0 || dcrc == crc) {
			found = true
			break
		}
		i++
	}
	m := copy(p, buf[:i])
	t.br.Discard(m)
	t.crc = verify.UpdateCRC32(t.crc, p[:m])
	t.n += uint64(m)
	if found && m == i {
		t.done = true
		if m == 0 {
			return 0, io.EOF
		}
	}
	return m, nil
}

func (t *storedScanner) ReadByte() (byte, error) {
	var b [1]byte
	n, err := t.Read(b[:])
	if n == 1 {
		return b[0], nil
	}
	if err == nil {
		err = io.EOF
	}
	return 0, err
}

// discard skips n bytes of br: an entry's rest may not fit an int on a
// 32-bit system.
func discard(br *bufio.Reader, n int64) error {
	if n < 0 {
		return bufio.ErrNegativeCount
	}
	for n > 0 {
		k, err := br.Discard(int(min(n, 1<<30)))
		n -= int64(k)
		if err != nil {
			return err
		}
	}
	return nil
}
