package zip

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/inflate"
	"github.com/unpack-dev/unpack/internal/codec/lzma"
	"github.com/unpack-dev/unpack/internal/verify"
)

// section reads [off, end) of a ReaderAt; a short file is
// io.ErrUnexpectedEOF.
type section struct {
	ra       io.ReaderAt
	off, end int64
}

// ReadByte reads one byte; stored entries read through it never need it,
// but it makes every source a byteReader without an adapter.
func (s *section) ReadByte() (byte, error) {
	var b [1]byte
	if _, err := io.ReadFull(s, b[:]); err != nil {
		return 0, err
	}
	return b[0], nil
}

func (s *section) Read(p []byte) (int, error) {
	if s.off >= s.end {
		return 0, io.EOF
	}
	if rem := s.end - s.off; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := s.ra.ReadAt(p, s.off)
	s.off += int64(n)
	if err == io.EOF {
		if n == len(p) {
			err = nil
		} else {
			err = io.ErrUnexpectedEOF
		}
	}
	return n, err
}

// bufSize is the read buffer of each pipeline.
const bufSize = 64 << 10

// cacheSize is how much of the archive a pipeline reads at once: entries
// read in order then cost one system call per cacheSize bytes rather than
// several per entry (local header, name, data).
const cacheSize = 256 << 10

// readCache serves small reads of a ReaderAt from one large read.
type readCache struct {
	ra   io.ReaderAt
	buf  []byte
	base int64 // archive offset of buf[0]
	n    int   // valid bytes in buf
}

// use makes c read from ra, dropping what it held of another input.
func (c *readCache) use(ra io.ReaderAt) {
	if c.ra != ra {
		c.ra, c.n = ra, 0
	}
}

func (c *readCache) ReadAt(p []byte, off int64) (int, error) {
	if off >= c.base && off+int64(len(p)) <= c.base+int64(c.n) {
		return copy(p, c.buf[off-c.base:]), nil
	}
	if len(p) >= cacheSize/2 {
		return c.ra.ReadAt(p, off)
	}
	if c.buf == nil {
		c.buf = make([]byte, cacheSize)
	}
	n, err := c.ra.ReadAt(c.buf, off)
	c.base, c.n = off, n
	if n >= len(p) {
		return copy(p, c.buf[:n]), nil
	}
	copy(p, c.buf[:n])
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// pipeline is the chain that turns an entry's stored bytes into verified
// data: source → decryption → buffer → decompression → size and CRC check.
// Its parts are kept and reset from entry to entry.
type pipeline struct {
	sec     section
	zc      zipCrypto
	aes     aesReader
	br      *bufio.Reader
	inflate [2]*inflate.Inflater // deflate, Deflate64
	exact   [2]*inflate.Reader   // likewise, for encrypted streamed entries of unknown size
	ahead   *inflate.Inflater    // the inflater of a streamed entry of unknown size
	lzma    *lzma.Reader1
	ppmd    *ppmdReader
	opt     *archive.Options // the archive's options, told which password passed
	pwFrom  int              // the first candidate to try
	pwTrial bool             // look for a later candidate that passes the check too
	pwAlt   bool             // one did: the CRC (and MAC) must decide
	pwIdx   int              // the candidate chosen
	lzmaHdr [4 + 5]byte      // version, properties size, properties
	closer  io.Closer        // a decoder to close at the end of the entry (zstd)
	chk     checker
	hdr     [localLen]byte
	tail    []byte // name and extra field of the local header
	cache   readCache
}

func newPipeline() *pipeline {
	return &pipeline{br: bufio.NewReaderSize(nil, bufSize)}
}

// finish releases what the entry held.
func (p *pipeline) finish() {
	if p.closer != nil {
		p.closer.Close()
		p.closer = nil
	}
}

// localHeader reads and checks h's local header at h.offset in ra and
// returns where its data start.
func (p *pipeline) localHeader(ra io.ReaderAt, h *header) (int64, error) {
	b := p.hdr[:]
	if _, err := ra.ReadAt(b, h.offset); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return 0, archive.Errorf(ErrTruncated, "zip: local header of %q at offset %d is past the end", h.name, h.offset)
		}
		return 0, err
	}
	r := readBuf(b)
	if r.uint32() != sigLocal {
		return 0, archive.Errorf(ErrFormat, "zip: no local header for %q at offset %d", h.name, h.offset)
	}
	r.uint16() // version needed
	flags := r.uint16()
	method := r.uint16()
	r.uint32() // time, date
	crc := r.uint32()
	csize := uint64(r.uint32())
	usize := uint64(r.uint32())
	nameLen := int(r.uint16())
	extraLen := int(r.uint16())
	if flags&flagMasked != 0 || h.flags&flagMasked != 0 {
		return 0, archive.Unsupportedf("zip: %q: encrypted central directory is not supported", h.name)
	}
	if cap(p.tail) < nameLen+extraLen {
		p.tail = make([]byte, nameLen+extraLen)
	}
	tail := p.tail[:nameLen+extraLen]
	if _, err := ra.ReadAt(tail, h.offset+localLen); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return 0, archive.Errorf(ErrTruncated, "zip: local header of %q is truncated", h.name)
		}
		return 0, err
	}
	if string(tail[:nameLen]) != string(h.rawName) {
		if local := localName(tail[:nameLen], tail[nameLen:], flags); local != h.name {
			return 0, archive.Errorf(ErrHeaderMismatch, "zip: local header at offset %d names %q, central directory %q", h.offset, local, h.name)
		}
	}
	if method != h.method {
		return 0, archive.Errorf(ErrHeaderMismatch, "zip: %q: local header says method %d, central directory %d", h.name, method, h.method)
	}
	if csize == 0xFFFFFFFF || usize == 0xFFFFFFFF {
		// Take the zip64 values from the local extra field.
		lh := header{usize: usize, csize: csize}
		nu, nc, no, nd := usize == 0xFFFFFFFF, csize == 0xFFFFFFFF, false, false
		var off uint64
		lh.parseExtra(tail[nameLen:], false, &nu, &nc, &no, &nd, &off, nil)
		csize, usize = lh.csize, lh.usize
	}
	// With a data descriptor the local fields may be zero; otherwise they
	// must agree with the central directory.
	dd := flags&flagDescriptor != 0
	if !(dd && csize == 0) && csize != h.csize || !(dd && usize == 0) && usize != h.usize {
		return 0, archive.Errorf(ErrHeaderMismatch, "zip: %q: local header sizes %d/%d differ from central directory %d/%d",
			h.name, csize, usize, h.csize, h.usize)
	}
	// With a data descriptor the local CRC means nothing: Info-ZIP writing
	// an encrypted entry to a pipe leaves other data there.
	if !dd && crc != h.crc {
		return 0, archive.Errorf(ErrHeaderMismatch, "zip: %q: local header CRC %08x differs from central directory %08x", h.name, crc, h.crc)
	}
	start := h.offset + localLen + int64(nameLen) + int64(extraLen)
	if start+int64(h.csize) > h.limit {
		return 0, archive.Errorf(ErrOverlap, "zip: data of %q run into the next entry (a zip bomb?)", h.name)
	}
	return start, nil
}

// open returns the verified data of h stored in ra, trying passwords for
// encrypted entries (pw returns the candidates or ErrNeedPassword).
func (p *pipeline) open(ra io.ReaderAt, h *header, pw func() ([]string, error), limit int64) (io.Reader, error) {
	p.finish()
	p.cache.use(ra)
	start, err := p.localHeader(&p.cache, h)
	if err != nil {
		return nil, err
	}
	p.sec = section{ra: &p.cache, off: start, end: start + int64(h.csize)}
	if !h.encrypted() {
		return p.decode(&p.sec, h, pw, limit)
	}
	return p.openEncrypted(start, h, pw, limit)
}

// openEncrypted opens an encrypted entry whose data start at start. A wrong
// candidate passes the ZipCrypto check byte one time in 256 and the WinZip
// AES verifier one time in 65536; when a later candidate passes it too,
// the data are decoded once to check the CRC (and MAC) before any byte is
// given out, and on a mismatch the next passing candidate is tried the
// same way; the input being seekable, the entry is then read again with
// the candidate that matched. When no candidate matches, the error is
// ErrPassword. When no later candidate passes the check, the one that
// does is used directly and its CRC is checked as the data are read.
// For AES entries of up to 512 KiB of ciphertext per later candidate,
// decode checks the MAC before decoding instead of deriving the later
// candidates' keys. (The streaming reader cannot go back: it uses the
// first candidate that passes the check.)
func (p *pipeline) openEncrypted(start int64, h *header, pw func() ([]string, error), limit int64) (io.Reader, error) {
	defer func() { p.pwFrom, p.pwTrial, p.pwAlt = 0, false, false }()
	var lastErr error
	for from := 0; ; {
		p.sec = section{ra: &p.cache, off: start, end: start + int64(h.csize)}
		p.pwFrom, p.pwTrial = from, true
		d, err := p.decode(&p.sec, h, pw, limit)
		if err != nil {
			if lastErr != nil && errors.Is(err, archive.ErrPassword) {
				return nil, lastErr // no candidate left passes the check
			}
			return nil, err
		}
		if !p.pwAlt && lastErr == nil {
			if passwords, err := pw(); err == nil {
				p.opt.Accepted(passwords[p.pwIdx])
			}
			return d, nil
		}
		_, err = io.Copy(io.Discard, d)
		p.finish()
		if err == nil {
			p.sec = section{ra: &p.cache, off: start, end: start + int64(h.csize)}
			p.pwFrom, p.pwTrial = p.pwIdx, false
			return p.decode(&p.sec, h, pw, limit)
		}
		if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrChecksum) && !errors.Is(err, archive.ErrPassword) {
			return nil, err
		}
		lastErr = archive.Errorf(archive.ErrPassword, "zip: %q: wrong password or corrupt data (%v)", h.name, err)
		from = p.pwIdx + 1
	}
}

// decode sets up decryption, decompression and checking of h's data read
// from src (a reader of exactly the stored bytes, or, when streaming an
// entry of unknown size, of the bytes from the data on).
func (p *pipeline) decode(src io.Reader, h *header, pw func() ([]string, error), limit int64) (io.Reader, error) {
	method := h.realMethod()
	p.ahead = nil
	if h.flags&flagStrongEnc != 0 {
		return nil, archive.Unsupportedf("zip: %q: PKWARE strong encryption is not supported", h.name)
	}
	if h.method == methodAES && h.aesVersion == 0 {
		return nil, archive.Corruptf("zip: %q: method 99 without a WinZip AES extra field", h.name)
	}
	var in io.Reader = src
	var aesr *aesReader
	csize := int64(h.csize)
	if h.encrypted() {
		passwords, err := pw()
		if err != nil {
			return nil, err
		}
		if p.pwFrom >= len(passwords) {
			return nil, archive.Errorf(archive.ErrPassword, "zip: wrong password for %q", h.name)
		}
		rest := passwords[p.pwFrom+1:]
		passwords = passwords[p.pwFrom:]
		if h.method == methodAES {
			if h.aesStrength < 1 || h.aesStrength > 3 {
				return nil, archive.Unsupportedf("zip: %q: AES strength %d is not supported", h.name, h.aesStrength)
			}
			var buf [16 + aesVerifierLen]byte
			sl := aesSaltLen(h.aesStrength)
			overhead := int64(sl + aesVerifierLen + aesMACLen)
			if !h.usizeUnknown && csize < overhead {
				return nil, archive.Errorf(ErrSize, "zip: %q: AES entry shorter than its salt and MAC", h.name)
			}
			if _, err := io.ReadFull(src, buf[:sl+aesVerifierLen]); err != nil {
				return nil, ErrTruncated
			}
			p.aes.r = asByteReader(src)
			i, err := p.aes.open(buf[:sl], buf[sl:sl+aesVerifierLen], h, passwords)
			if err != nil {
				return nil, err
			}
			if p.pwTrial && len(rest) > i {
				// A later candidate may be the right one. For small
				// entries, checking the MAC over the ciphertext costs less
				// than a key derivation per later candidate.
				ct := csize - overhead
				if sec, ok := src.(*section); ok && ct <= aesMACFirst*int64(len(rest)-i) {
					for {
						ok, err := p.aes.macMatches(sec.ra, sec.off, ct)
						if err != nil {
							return nil, err
						}
						if ok {
							break
						}
						j, err := p.aes.open(buf[:sl], buf[sl:sl+aesVerifierLen], h, passwords[i+1:])
						if err != nil {
							return nil, archive.Errorf(archive.ErrPassword, "zip: %q: wrong password or corrupt data (MAC mismatch)", h.name)
						}
						i += 1 + j
					}
				} else {
					p.pwAlt = aesPasses(buf[:sl], buf[sl:sl+aesVerifierLen], h, rest[i:])
				}
			}
			p.choose(passwords, i)
			p.aes.remain = -1
			if !h.usizeUnknown {
				p.aes.remain = csize - overhead
			}
			aesr = &p.aes
			in = &p.aes
		} else {
			var hdr [zipCryptoHeaderLen]byte
			if !h.usizeUnknown && csize < zipCryptoHeaderLen {
				return nil, archive.Errorf(ErrSize, "zip: %q: encrypted entry shorter than its header", h.name)
			}
			if _, err := io.ReadFull(src, hdr[:]); err != nil {
				return nil, ErrTruncated
			}
			i, err := p.zc.open(&hdr, h, passwords)
			if err != nil {
				return nil, err
			}
			if p.pwTrial {
				var z zipCrypto
				_, err := z.open(&hdr, h, rest[i:])
				p.pwAlt = err == nil
			}
			p.choose(passwords, i)
			p.zc.r = asByteReader(src)
			in = &p.zc
		}
	}
	var br byteReader
	switch {
	case method == methodStore || h.usizeUnknown:
		// Stored data need no buffer, and a streamed entry of unknown
		// size must not be read past its end.
		br = asByteReader(in)
	case method == methodDeflate || method == methodDeflate64:
		// The inflater buffers its input itself.
	default:
		p.br.Reset(in)
		br = p.br
	}
	dec, err := p.decoder(method, in, br, h, limit)
	if err != nil {
		return nil, err
	}
	p.chk = checker{r: dec, h: h, aes: aesr}
	return &p.chk, nil
}

// choose records that candidate i of passwords (counted from pwFrom)
// passed the check, and reports it unless openEncrypted decides.
func (p *pipeline) choose(passwords []string, i int) {
	p.pwIdx = p.pwFrom + i
	if !p.pwTrial {
		p.opt.Accepted(passwords[i])
	}
}

// asByteReader returns r as a byteReader, which every source in this
// package is.
func asByteReader(r io.Reader) byteReader {
	if b, ok := r.(byteReader); ok {
		return b
	}
	return &byteAdapter{r: r}
}

// byteAdapter gives a plain reader a ReadByte method that reads exactly one
// byte.
type byteAdapter struct {
	r   io.Reader
	one [1]byte
}

func (b *byteAdapter) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *byteAdapter) ReadByte() (byte, error) {
	if _, err := io.ReadFull(b.r, b.one[:]); err != nil {
		return 0, err
	}
	return b.one[0], nil
}

// checker counts and hashes the decoded data, and at its end checks the
// size, the CRC32 and the AES authentication code.
type checker struct {
	r      io.Reader
	h      *header
	aes    *aesReader
	n      uint64
	crc    uint32
	err    error
	finale func(c *checker) error // streaming: reads the data descriptor
}

func (c *checker) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	if n > 0 {
		c.n += uint64(n)
		c.crc = verify.UpdateCRC32(c.crc, p[:n])
		if !c.h.usizeUnknown && c.n > c.h.usize {
			// Only the declared bytes go out, with the error.
			over := c.n - c.h.usize
			c.n = c.h.usize
			c.err = archive.Errorf(ErrSize, "zip: %q decodes to more than its %d bytes", c.h.name, c.h.usize)
			return n - int(over), c.err
		}
	}
	switch {
	case err == io.EOF:
		err = c.end()
		if err == nil {
			err = io.EOF
		}
	case err != nil:
		err = dataError(c.h, err)
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

// end runs the checks due when the decoded data end.
func (c *checker) end() error {
	if c.aes != nil {
		if err := c.aes.verify(); err != nil {
			return dataError(c.h, err)
		}
	}
	if c.finale != nil {
		if err := c.finale(c); err != nil {
			return err
		}
	}
	if c.n != c.h.usize {
		return archive.Errorf(ErrSize, "zip: %q decodes to %d bytes, header says %d", c.h.name, c.n, c.h.usize)
	}
	if c.h.hasCRC() && c.crc != c.h.crc {
		var want, got [4]byte
		binary.BigEndian.PutUint32(want[:], c.h.crc)
		binary.BigEndian.PutUint32(got[:], c.crc)
		return &verify.MismatchError{Kind: verify.CRC32, Want: want[:], Got: got[:]}
	}
	return nil
}

// dataError gives a decoder's error its category: errors that already
// have one (a checksum mismatch keeps its values) and I/O errors pass; a
// short read means truncated data, the rest corrupt data.
func dataError(h *header, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) && !archive.Categorized(err) {
		return archive.Errorf(ErrTruncated, "zip: %q: %s data are truncated", h.name, methodName(h.realMethod()))
	}
	return archive.Decoded(fmt.Sprintf("zip: %q: %s data", h.name, methodName(h.realMethod())), err)
}
