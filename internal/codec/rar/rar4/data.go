package rar4

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/rarcrypt"
	"github.com/unpack-dev/unpack/internal/verify"
)

// readLink reads a symbolic link's target, which is the entry's data.
func (r *reader) readLink() (string, error) {
	if r.left > maxLink {
		return "", errLinkTooLong
	}
	var b bytes.Buffer
	_, err := io.Copy(&b, io.LimitReader(r, maxLink+1))
	if err != nil {
		return "", err
	}
	if b.Len() > maxLink {
		return "", errLinkTooLong
	}
	r.left = 0
	return b.String(), nil
}

// readPacked reads the current entry's packed bytes across volumes.
func (r *reader) readPacked(p []byte) (int, error) {
	for r.partLeft == 0 {
		if !r.partAfter {
			return 0, io.EOF
		}
		if err := r.nextPart(); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > r.partLeft {
		p = p[:r.partLeft]
	}
	n, err := r.vol.Read(p)
	r.partLeft -= int64(n)
	if n > 0 && r.partAfter {
		r.partCRC.Write(p[:n])
	}
	if err == io.EOF {
		if r.partLeft > 0 {
			return n, errUnexpectedEnd
		}
		err = nil
	}
	return n, err
}

// nextPart continues the current file in the next volume.
func (r *reader) nextPart() error {
	// A part's header CRC is that of its packed data (RAR 2.0 and later).
	if got := r.partCRC.Sum32(); r.hdr.unpVer >= 20 && r.partWant != 0xffffffff && got != r.partWant {
		return &archive.VolumeError{Volume: volName(r.vol.path), Err: archive.Corruptf("rar: packed data: %w", &verify.MismatchError{Kind: verify.CRC32,
			Want: binary.BigEndian.AppendUint32(nil, r.partWant), Got: binary.BigEndian.AppendUint32(nil, got)})}
	}
	if err := r.nextVolume(); err != nil {
		return err
	}
	for {
		pos := r.vol.pos
		typ, flags, body, err := r.readBlock()
		if err != nil {
			if err == io.EOF {
				return errNotNextPart
			}
			return err
		}
		switch typ {
		case blockFile:
			var h fileHeader
			if err := parseFile(&h, flags, body, pos); err != nil {
				return err
			}
			if !h.splitBefore() || h.name != r.hdr.name {
				return errNotNextPart
			}
			r.partLeft, r.partAfter = h.packSize, h.splitAfter()
			r.partCRC.Reset()
			r.partWant = h.crc
			r.hdr.unpVer = h.unpVer
			if !h.splitAfter() {
				r.finalCRC = h.crc
				r.crcKnown = true
				if r.entry != nil && r.entry.Type == archive.TypeFile {
					r.entry.ChecksumValue = binary.BigEndian.AppendUint32(nil, h.crc)
				}
			}
			return nil
		case blockEnd:
			return errNotNextPart
		default:
			if typ == blockNewSub {
				var sub fileHeader
				if err := parseFile(&sub, flags, body, pos); err != nil {
					return err
				}
				if err := r.vol.skip(sub.packSize); err != nil {
					return errUnexpectedEnd
				}
			} else if flags&flagLong != 0 && len(body) >= 4 {
				if err := r.vol.skip(int64(binary.LittleEndian.Uint32(body))); err != nil {
					return errUnexpectedEnd
				}
			}
		}
	}
}

// packedSrc adapts readPacked to io.Reader.
type packedSrc struct{ r *reader }

func (p packedSrc) Read(b []byte) (int, error) { return p.r.readPacked(b) }

// setupData prepares decryption and decompression of the current entry.
func (r *reader) setupData() error {
	h := &r.hdr
	var src io.Reader = packedSrc{r}
	r.pw.check = false
	if r.encrypted {
		if err := r.needPassword(); err != nil {
			return err
		}
		switch v := h.unpVer; {
		case v == 20 || v == 26:
			src = rarcrypt.NewReader20(src, r.password)
		case v == 15:
			src = rarcrypt.NewReader15(src, r.password)
		case v < 20:
			return archive.Unsupportedf("rar: RAR %d.%d encryption", v/10, v%10)
		default:
			var salt []byte
			if h.hasSalt {
				salt = h.salt[:]
			}
			if !r.pw.trial {
				if err := r.seekTrial(); err != nil {
					return err
				}
			}
			pw, s, err := r.password3(src, salt)
			if err != nil {
				return err
			}
			if !r.pw.trial {
				r.password = pw // the one to try first on stored and solid entries
			}
			r.dec.Reset(s, rarcrypt.DeriveKey3(pw, salt))
			src = &r.dec
		}
	}
	if r.stored {
		r.dataSrc = src
		return nil
	}
	if r.solidErr != nil && h.flags&fileSolid != 0 {
		return r.solidErr
	}
	var ver int
	switch v := h.unpVer; {
	case v <= 15:
		ver = 15
	case v == 20 || v == 26:
		ver = 20
	case v == 29 || v == 36:
		ver = 29
	default:
		return archive.Unsupportedf("rar: compression version %d.%d", v/10, v%10)
	}
	win := winSizeFor(h.dictBits)
	if int64(win) > r.opt.Limit() {
		return archive.Limitf("rar: %d KiB dictionary is above the memory limit", win>>10)
	}
	if err := r.unp.init(src, ver, h.flags&fileSolid != 0, h.unpSize, win); err != nil {
		return err
	}
	r.dataSrc = unpSrc{&r.unp}
	return nil
}

// unpSrc adapts the unpacker to io.Reader.
type unpSrc struct{ u *unpacker }

func (s unpSrc) Read(b []byte) (int, error) { return s.u.read(b) }

// Read returns the current entry's data, verifying its CRC32 at the end.
func (r *reader) Read(p []byte) (int, error) {
	if r.derr != nil {
		return 0, r.derr
	}
	if !r.hasData {
		return 0, io.EOF
	}
	if !r.started {
		r.started = true
		if r.entry != nil && r.entry.Type == archive.TypeDir {
			r.derr = io.EOF
			return 0, io.EOF
		}
		if err := r.setupData(); err != nil {
			r.derr = err
			return 0, err
		}
	}
	if r.left == 0 {
		r.derr = r.check()
		return 0, r.derr
	}
	if r.left > 0 && int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.dataSrc.Read(p)
	if n > 0 {
		r.crc.Write(p[:n])
		if r.left > 0 {
			r.left -= int64(n)
		}
	}
	switch {
	case err == io.EOF:
		if r.left > 0 {
			err = r.dataErr(errTruncated)
		} else {
			err = r.check()
		}
		r.derr = err
	case err != nil:
		err = r.dataErr(err)
		r.derr = err
	case r.left == 0:
		err = r.check()
		r.derr = err
	}
	return n, err
}

// dataErr maps a decoding error: in an encrypted entry, corrupt data most
// likely means a wrong password.
func (r *reader) dataErr(err error) error {
	if r.encrypted && errors.Is(err, archive.ErrCorrupt) {
		return archive.Errorf(archive.ErrPassword, "rar: wrong password or corrupt data (%v)", err)
	}
	return err
}

// check verifies the CRC32 of the entry's data.
func (r *reader) check() error {
	if !r.crcKnown {
		return archive.Corruptf("rar: file continues in a missing volume")
	}
	got := r.crc.Sum32()
	if got == r.finalCRC {
		if r.encrypted && !r.passOK && !r.pw.check && !r.pw.trial && r.hdr.unpSize > 0 {
			r.opt.Accepted(r.password) // not checked before: the CRC confirms it
		}
		return io.EOF
	}
	want := binary.BigEndian.AppendUint32(nil, r.finalCRC)
	gotb := binary.BigEndian.AppendUint32(nil, got)
	if r.encrypted {
		return archive.Errorf(archive.ErrPassword, "rar: CRC32 mismatch (stored %x, computed %x): wrong password or corrupt data", want, gotb)
	}
	return &verify.MismatchError{Kind: verify.CRC32, Want: want, Got: gotb}
}

// skipData moves past what is left of the current entry's data, decoding
// it when the archive is solid.
func (r *reader) skipData() error {
	if !r.hasData {
		return nil
	}
	defer func() { r.hasData = false }()
	compressed := !r.stored && r.entry != nil && r.entry.Type != archive.TypeDir
	if r.solid && compressed {
		if r.derr == nil {
			if r.scratch == nil {
				r.scratch = make([]byte, 32<<10)
			}
			for {
				_, err := r.Read(r.scratch)
				if err != nil {
					break
				}
			}
		}
		if r.started && r.dataSrc != nil {
			if _, ok := r.dataSrc.(unpSrc); ok {
				if r.derr != nil && !errors.Is(r.derr, verify.ErrChecksum) && r.derr != io.EOF {
					r.solidErr = errSolidBroken
				} else if err := r.unp.finish(); err != nil {
					r.solidErr = errSolidBroken
				}
			}
		} else if r.derr != nil && r.derr != io.EOF {
			r.solidErr = errSolidBroken
		}
	}
	// Discard the packed bytes left, in this and later volumes.
	for r.partLeft > 0 || r.partAfter {
		if r.partLeft > 0 {
			if err := r.vol.skip(r.partLeft); err != nil {
				return errUnexpectedEnd
			}
			r.partLeft = 0
			r.partCRC.Reset()
			r.partWant = 0xffffffff
		}
		if r.partAfter {
			if err := r.nextPart(); err != nil {
				return err
			}
		}
	}
	return nil
}
