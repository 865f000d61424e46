package rar5

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
	"github.com/unpack-dev/unpack/internal/rarcrypt"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Reading RAR 5 headers from a sequence of volumes.

// volume is the volume being read.
type volume struct {
	r     *bufio.Reader
	sr    *io.SectionReader // set when the volume is seekable: skips seek
	f     *os.File          // nil for the input the archive was opened from
	index int               // 0-based volume index
	pos   int64             // file offset of the next byte of r
	name  string            // for messages
}

// read fills p completely; a short read is io.ErrUnexpectedEOF (io.EOF when
// nothing was read).
func (v *volume) read(p []byte) error {
	n, err := io.ReadFull(v.r, p)
	v.pos += int64(n)
	return err
}

// skip discards n bytes, seeking past them when the volume is seekable.
func (v *volume) skip(n int64) error {
	if v.sr != nil && n > int64(v.r.Buffered()) {
		b := v.r.Buffered()
		v.r.Discard(b)
		if _, err := v.sr.Seek(n-int64(b), io.SeekCurrent); err != nil {
			return err
		}
		v.r.Reset(v.sr)
		v.pos += n
		// Past the end is found by the next read, as when reading.
		return nil
	}
	for n > 0 {
		c := n
		if c > 1<<30 {
			c = 1 << 30
		}
		m, err := v.r.Discard(int(c))
		v.pos += int64(m)
		n -= int64(m)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// readBlock reads the next header of the current volume, decrypting it
// when the archive's headers are encrypted, and checks its CRC32. It
// returns io.EOF when the volume ends exactly before a header.
func (r *reader) readBlock() (block, error) {
	v := &r.vol
	off := v.pos
	var h []byte
	if r.hdrKeys != nil {
		var iv [16]byte
		if err := v.read(iv[:]); err != nil {
			return block{}, r.headerReadErr(err, off)
		}
		buf := r.hdrBuf[:16]
		if err := v.read(buf); err != nil {
			return block{}, r.headerReadErr(err, off)
		}
		if err := r.hdrCBC.Reset(r.hdrKeys.Key[:], iv[:]); err != nil {
			return block{}, err
		}
		r.hdrCBC.Decrypt(buf)
		size, vlen := uvarint(buf[4:16])
		if vlen <= 0 || size > maxHeader5Size {
			return block{}, r.badHeaderCRC(off)
		}
		total := 4 + vlen + int(size)
		padded := (total + 15) &^ 15
		buf = r.header(padded)
		if err := v.read(buf[16:]); err != nil {
			return block{}, r.headerReadErr(err, off)
		}
		r.hdrCBC.Decrypt(buf[16:])
		if verify.SumCRC32(buf[4:total]) != binary.LittleEndian.Uint32(buf) {
			return block{}, r.badHeaderCRC(off)
		}
		h = buf[4+vlen : total]
	} else {
		buf := r.hdrBuf[:7]
		n, err := io.ReadFull(v.r, buf)
		v.pos += int64(n)
		if err != nil && n < 5 {
			if n > 0 {
				err = io.ErrUnexpectedEOF
			}
			return block{}, r.headerReadErr(err, off)
		}
		size, vlen := uvarint(buf[4:n])
		if vlen <= 0 || size > maxHeader5Size {
			if n < 7 {
				return block{}, r.headerReadErr(io.ErrUnexpectedEOF, off)
			}
			return block{}, archive.Corruptf("rar: bad header size at offset %d", off)
		}
		total := 4 + vlen + int(size)
		if total < n {
			return block{}, archive.Corruptf("rar: bad header size at offset %d", off)
		}
		buf = r.header(total)
		if err := v.read(buf[n:]); err != nil {
			return block{}, r.headerReadErr(err, off)
		}
		if verify.SumCRC32(buf[4:total]) != binary.LittleEndian.Uint32(buf) {
			return block{}, r.badHeaderCRC(off)
		}
		h = buf[4+vlen : total]
	}
	return parseBlock(h, off)
}

// header returns the header buffer grown to n bytes, keeping its content.
func (r *reader) header(n int) []byte {
	if cap(r.hdrBuf) < n {
		nb := make([]byte, max(n, 2*cap(r.hdrBuf)))
		copy(nb, r.hdrBuf[:cap(r.hdrBuf)])
		r.hdrBuf = nb
	}
	return r.hdrBuf[:n]
}

func (r *reader) headerReadErr(err error, off int64) error {
	if err == io.EOF {
		return archive.Corruptf("rar: %s ends at offset %d without an end-of-archive header", r.vol.name, off)
	}
	if err == io.ErrUnexpectedEOF {
		return archive.Corruptf("rar: %s truncated in the header at offset %d", r.vol.name, off)
	}
	return err
}

func (r *reader) badHeaderCRC(off int64) error {
	if r.hdrKeys != nil && !r.hdrChecked {
		return archive.Errorf(archive.ErrPassword, "rar: wrong password (headers do not decrypt)")
	}
	return archive.Corruptf("rar: bad header CRC at offset %d", off)
}

// uvarint decodes a vint from b, returning its value and length (0 when
// b ends first, -1 when longer than 10 bytes).
func uvarint(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// signature starts every RAR 5 volume.
const signature = "Rar!\x1a\x07\x01\x00"

// startVolume reads a volume's signature and the headers up to and
// including its main header: the encryption header of an archive with
// encrypted headers (choosing the password), then the main header.
func (r *reader) startVolume() error {
	var sig [8]byte
	if err := r.vol.read(sig[:]); err != nil || string(sig[:]) != signature {
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return err
		}
		return archive.Corruptf("rar: %s is not a RAR 5 volume", r.vol.name)
	}
	r.hdrKeys = nil
	for {
		b, err := r.readBlock()
		if err != nil {
			return err
		}
		switch b.typ {
		case headCrypt:
			if err := r.headerKeys(&b); err != nil {
				return err
			}
			continue
		case headMain:
			m, err := parseMain(&b)
			if err != nil {
				return err
			}
			r.hdrChecked = true
			if r.vol.index == 0 {
				r.main = m
			} else if m.flags&mhflVolume == 0 {
				return archive.Corruptf("rar: %s is not a volume of this set", r.vol.name)
			}
			return r.vol.skip(b.dataSize)
		default:
			return archive.Corruptf("rar: %s: expected the main header at offset %d", r.vol.name, b.offset)
		}
	}
}

// headerKeys chooses the password of an archive with encrypted headers.
func (r *reader) headerKeys(b *block) error {
	c, err := parseCrypt(&b.body, false, b.offset)
	if err != nil {
		return err
	}
	if c.lg2Count > rarcrypt.RAR5MaxKDFLog2 {
		return archive.Unsupportedf("rar: key derivation count 2^%d too large", c.lg2Count)
	}
	pws, err := r.passwords()
	if err != nil {
		return archive.Errorf(archive.ErrNeedPassword, "rar: headers are encrypted; a password is required")
	}
	checkable := c.check != nil && rarcrypt.RAR5CheckValid(c.check)
	for _, pw := range pws {
		k, err := r.keys.Derive(pw, c.salt[:], c.lg2Count)
		if err != nil {
			return err
		}
		if !checkable || k.Matches(c.check) {
			r.hdrKeys, r.hdrPassword = k, pw
			r.hdrChecked = checkable
			if checkable {
				r.opt.Accepted(pw)
			}
			return nil
		}
	}
	return archive.Errorf(archive.ErrPassword, "rar: wrong password for the encrypted headers")
}

// passwords returns the candidate passwords, the one that opened the
// headers first.
func (r *reader) passwords() ([]string, error) {
	pws, err := r.opt.PasswordList()
	if err != nil {
		return nil, err
	}
	if r.hdrPassword != "" && (len(pws) == 0 || pws[0] != r.hdrPassword) {
		out := make([]string, 0, len(pws)+1)
		out = append(out, r.hdrPassword)
		for _, p := range pws {
			if p != r.hdrPassword {
				out = append(out, p)
			}
		}
		return out, nil
	}
	return pws, nil
}

// nextVolume closes the current volume and opens the next one.
func (r *reader) nextVolume() error {
	if r.path == "" {
		return archive.Errorf(archive.ErrMissingVolume, "rar: the archive continues in a next volume, which standard input cannot provide")
	}
	return r.openVolumeIndex(r.vol.index + 1)
}

// openVolumeIndex switches to volume i of the set and reads its start.
func (r *reader) openVolumeIndex(i int) error {
	name := r.names.Name(i)
	f, err := rarshared.OpenVolume(r.opt, name)
	if err != nil {
		return err
	}
	if r.vol.f != nil {
		r.vol.f.Close()
	}
	var src io.Reader = f
	var sr *io.SectionReader
	if r.seekable {
		sr = io.NewSectionReader(f, 0, 1<<62)
		src = sr
	}
	if r.volBuf == nil {
		r.volBuf = bufio.NewReaderSize(src, 64<<10)
	} else {
		r.volBuf.Reset(src)
	}
	r.vol = volume{r: r.volBuf, sr: sr, f: f, index: i, name: name}
	return r.startVolume()
}

var errNoContinuation = errors.New("rar: split entry has no continuation in the next volume")
