package rar5

// The data path of a RAR 5 entry: packed bytes across volume parts,
// decryption, decompression or storage, and the checksums at the end.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/rarcrypt"
	"github.com/unpack-dev/unpack/internal/verify"
)

// finishEntry moves past the rest of the current entry: in a solid archive
// its data is decoded (later entries depend on it), otherwise skipped.
func (r *reader) finishEntry() error {
	fh := r.cur
	r.closeCopy()
	if fh.method != 0 && r.main.flags&mhflSolid != 0 && r.entry.Type == archive.TypeFile && r.copyOf == "" {
		err := r.rerr
		if !r.started {
			err = r.setup()
		}
		if err == nil && !r.finished {
			err = r.drain()
		}
		if err == io.EOF {
			err = nil
		}
		// A later solid entry needs this one decoded to its end.
		if dec, ok := r.src.(*decoder); !ok || dec != r.dec || !dec.fileDone || dec.err != nil {
			if err == nil {
				err = errSolid
			}
			r.solidErr = err
			if r.dec != nil {
				r.dec.err = err
			}
		}
	}
	r.cur = nil
	return r.skipRest()
}

// drain decodes the rest of the current entry without returning it.
func (r *reader) drain() error { return r.dec.discard() }

// skipRest skips what is left of the current entry's packed data, in this
// and any later volume.
func (r *reader) skipRest() error {
	for {
		if r.partLeft > 0 {
			r.partRead = false
		}
		if err := r.vol.skip(r.partLeft); err != nil {
			return r.dataReadErr(err)
		}
		r.partLeft = 0
		if !r.partSplit {
			return nil
		}
		if err := r.nextPart(); err != nil {
			return err
		}
	}
}

// startPart starts reading the data of one part of an entry. The header
// of a part that continues in the next volume carries the checksum of the
// part's packed bytes.
func (r *reader) startPart(fh *fileHeader) {
	r.partLeft, r.partSplit = fh.dataSize, fh.flags&hflSplitAfter != 0
	r.partRead = r.partSplit
	if r.partCRC == nil {
		r.partCRC = verify.NewCRC32()
	}
	r.partCRC.Reset()
	r.partBlake = nil
	if r.partSplit && fh.blake != nil {
		r.partBlake = verify.New(verify.BLAKE2sp)
	}
}

// checkPart verifies the packed checksum of a part that was read whole.
func (r *reader) checkPart() error {
	fh := r.last
	if !r.partRead || !r.partSplit {
		return nil
	}
	var key []byte
	if fh.crypt != nil && fh.crypt.useMAC {
		if r.entryKey == nil {
			return nil // skipped without the key: nothing to compare
		}
		key = r.entryKey.HashKey[:]
	}
	if e := sums(fh, r.partCRC, r.partBlake, key); e != nil && e != errNoBLAKE2sp {
		return &archive.VolumeError{Volume: r.vol.name, Err: archive.Corruptf("rar: packed data: %w", e)}
	}
	return nil
}

// errNoBLAKE2sp is returned for a BLAKE2sp checksum that internal/verify
// cannot compute.
var errNoBLAKE2sp = archive.Unsupportedf("rar: BLAKE2sp checksums cannot be verified")

// sums compares the checksums fh carries with the hashes computed. When
// hashKey is set the stored values are MACs (RAR 5 "HashMAC") and the
// computed ones are keyed the same way first.
func sums(fh *fileHeader, crc hash.Hash32, blake hash.Hash, hashKey []byte) error {
	if fh.hasCRC {
		want := binary.BigEndian.AppendUint32(nil, fh.crc)
		if err := compare(verify.CRC32, crc.Sum(nil), want, hashKey); err != nil {
			return err
		}
	}
	if fh.blake != nil {
		if blake == nil {
			return errNoBLAKE2sp
		}
		if err := compare(verify.BLAKE2sp, blake.Sum(nil), fh.blake, hashKey); err != nil {
			return err
		}
	}
	return nil
}

func compare(k verify.Kind, got, want, hashKey []byte) error {
	if hashKey != nil {
		got = verify.RAR5Keyed(k, hashKey, got)
	}
	if !bytes.Equal(got, want) {
		return &verify.MismatchError{Kind: k, Want: want, Got: got}
	}
	return nil
}

// nextPart opens the next volume and finds the continuation of the current
// entry there.
func (r *reader) nextPart() error {
	if err := r.checkPart(); err != nil {
		return err
	}
	if err := r.nextVolume(); err != nil {
		return err
	}
	for {
		b, err := r.readBlock()
		if err != nil {
			return err
		}
		switch b.typ {
		case headFile:
			fh, err := parseFile(&b)
			if err != nil {
				return err
			}
			if fh.flags&hflSplitBefore == 0 {
				return archive.Corruptf("rar: %s: %v", r.vol.name, errNoContinuation)
			}
			r.last = fh
			r.startPart(fh)
			return nil
		case headEnd:
			return archive.Corruptf("rar: %s: %v", r.vol.name, errNoContinuation)
		default:
			if err := r.vol.skip(b.dataSize); err != nil {
				return r.dataReadErr(err)
			}
		}
	}
}

// dataReadErr turns a short read of data into a corruption error.
func (r *reader) dataReadErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return archive.Corruptf("rar: %s truncated at offset %d", r.vol.name, r.vol.pos)
	}
	return err
}

// Read reads the current entry's data, verifying its checksum at the end.
func (r *reader) Read(p []byte) (int, error) {
	if r.cur == nil {
		return 0, io.EOF
	}
	if r.finished {
		return 0, r.rerr
	}
	if r.copyOf != "" {
		return r.readCopy(p)
	}
	if !r.started {
		if err := r.setup(); err != nil {
			r.finished, r.rerr = true, err
			return 0, err
		}
	}
	if len(p) == 0 {
		return 0, nil
	}
	n, err := r.src.Read(p)
	if n > 0 {
		r.crc.Write(p[:n])
		if r.blake != nil {
			r.blake.Write(p[:n])
		}
	}
	if err != nil {
		if err == io.EOF {
			err = r.check()
		}
		r.finished, r.rerr = true, err
		if err == nil {
			r.rerr = io.EOF
			err = io.EOF
		}
	}
	return n, err
}

// setup prepares the current entry's data stream: keys, decryption and
// decompression.
func (r *reader) setup() error {
	fh := r.cur
	r.started = true
	r.crc.Reset()
	r.blake = nil
	if fh.blake != nil {
		if r.blake = verify.New(verify.BLAKE2sp); r.blake == nil {
			return errNoBLAKE2sp
		}
	}
	if r.entry.Type != archive.TypeFile {
		r.src = eofReader{}
		return nil
	}
	if fh.hashType != 0 {
		r.opt.Warnf(fmt.Sprintf("rar: %s: hash type %d not verified", fh.name, fh.hashType-1))
	}
	if fh.crypt != nil {
		k, pw, err := r.entryKeys(fh.crypt)
		if err != nil {
			return err
		}
		r.entryKey, r.entryPw = k, pw
		if err := r.cbc.Reset(&r.raw, k.Key[:], fh.crypt.iv[:]); err != nil {
			return err
		}
	}
	if fh.method == 0 {
		r.store.left = fh.unpSize
		r.src = &r.store
		return nil
	}
	if !fh.solid {
		r.solidErr = nil // a new solid chain starts here
	} else if r.solidErr != nil {
		return r.solidErr
	}
	if r.dec == nil {
		r.dec = decoders.Get().(*decoder)
	}
	if err := r.dec.Reset(&r.packed, fh.dictSize, fh.unpSize, fh.solid, fh.extraDist, r.opt.Limit()); err != nil {
		if errors.Is(err, errSolid) && r.solidErr != nil {
			return r.solidErr
		}
		return err
	}
	r.src = r.dec
	return nil
}

// entryKeys chooses the password of an encrypted entry: the first candidate
// whose check value matches.
func (r *reader) entryKeys(c *crypt) (*rarcrypt.RAR5Keys, string, error) {
	if c.lg2Count > rarcrypt.RAR5MaxKDFLog2 {
		return nil, "", archive.Unsupportedf("rar: key derivation count 2^%d too large", c.lg2Count)
	}
	pws, err := r.passwords()
	if err != nil {
		return nil, "", archive.Errorf(archive.ErrNeedPassword, "rar: entry is encrypted; a password is required")
	}
	checkable := c.check != nil && rarcrypt.RAR5CheckValid(c.check)
	for _, pw := range pws {
		k, err := r.keys.Derive(pw, c.salt[:], c.lg2Count)
		if err != nil {
			return nil, "", err
		}
		if !checkable || k.Matches(c.check) {
			if checkable {
				r.opt.Accepted(pw)
			}
			return k, pw, nil
		}
	}
	return nil, "", archive.Errorf(archive.ErrPassword, "rar: wrong password")
}

// check verifies the entry's checksums (from its last part's header) once
// all its data has been read.
func (r *reader) check() error {
	fh := r.last
	var key []byte
	if r.entryKey != nil && fh.crypt != nil && fh.crypt.useMAC {
		key = r.entryKey.HashKey[:]
	}
	err := sums(fh, r.crc, r.blake, key)
	if m, ok := err.(*verify.MismatchError); ok {
		return r.mismatch(m)
	}
	return err
}

// mismatch reports a checksum mismatch; for an encrypted entry whose
// password could not be checked beforehand it means a wrong password.
func (r *reader) mismatch(e *verify.MismatchError) error {
	if c := r.cur.crypt; c != nil && (c.check == nil || !rarcrypt.RAR5CheckValid(c.check)) {
		return archive.Errorf(archive.ErrPassword, "rar: wrong password (%v)", e)
	}
	return e
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// rawPart reads the current entry's raw packed bytes in the current part.
type rawPart struct{ r *reader }

func (p *rawPart) Read(b []byte) (int, error) {
	r := p.r
	if r.partLeft <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > r.partLeft {
		b = b[:r.partLeft]
	}
	n, err := r.vol.r.Read(b)
	r.vol.pos += int64(n)
	r.partLeft -= int64(n)
	if r.partRead {
		r.partCRC.Write(b[:n])
		if r.partBlake != nil {
			r.partBlake.Write(b[:n])
		}
	}
	if err == io.EOF || n == 0 && err == nil {
		err = r.dataReadErr(io.ErrUnexpectedEOF)
	}
	if n > 0 {
		return n, nil
	}
	return 0, err
}

// packed reads the current entry's packed (decrypted) data across parts.
type packed struct{ r *reader }

func (p *packed) Read(b []byte) (int, error) {
	r := p.r
	for {
		var n int
		var err error
		if r.entryKey != nil {
			n, err = r.cbc.Read(b)
		} else {
			n, err = r.raw.Read(b)
		}
		if err == rarcrypt.ErrBlockSize {
			err = archive.Corruptf("rar: encrypted data is not a whole number of blocks")
		}
		if err != io.EOF || n > 0 {
			return n, err
		}
		if !r.partSplit {
			return 0, io.EOF
		}
		if err := r.nextPart(); err != nil {
			return 0, err
		}
		if r.entryKey != nil {
			c := r.last.crypt
			if c == nil {
				return 0, archive.Corruptf("rar: %s: continuation of an encrypted entry is not encrypted", r.vol.name)
			}
			k, err := r.keys.Derive(r.entryPw, c.salt[:], c.lg2Count)
			if err != nil {
				return 0, err
			}
			r.entryKey = k
			if err := r.cbc.Reset(&r.raw, k.Key[:], c.iv[:]); err != nil {
				return 0, err
			}
		}
	}
}

// stored reads a stored entry: its packed bytes up to the declared size
// (encrypted data is padded to whole blocks).
type stored struct {
	r    *reader
	left int64 // -1: unknown size
}

func (s *stored) Read(b []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	if s.left > 0 && int64(len(b)) > s.left {
		b = b[:s.left]
	}
	n, err := s.r.packed.Read(b)
	if s.left > 0 {
		s.left -= int64(n)
	}
	if err == io.EOF && s.left > 0 {
		err = archive.Corruptf("rar: stored data shorter than the declared size")
	}
	return n, err
}
