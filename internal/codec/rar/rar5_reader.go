package rar

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/rarcrypt"
	"github.com/unpack-dev/unpack/internal/verify"
)

// reader5 reads a RAR 5 archive (one volume or a set) entry by entry.
type reader5 struct {
	opt    *archive.Options
	path   string // path of the volume opened, "" for standard input
	names  volumeNames
	vol    volume5
	volBuf *bufio.Reader // reused for volumes after the first
	main   main5

	hdrBuf      []byte
	hdrKeys     *rarcrypt.RAR5Keys // non-nil when headers are encrypted
	hdrPassword string
	hdrChecked  bool // the header password is known right
	hdrCBC      rarcrypt.CBC
	keys        *rarcrypt.KeyCache5 // shared with readers made by Open(i)
	ra          io.ReaderAt         // the first volume, when seekable
	sfxOffset   int64

	comment  string
	name0    string  // name of the volume opened
	index0   int     // its index in the set
	seekable bool    // volumes are read through section readers (random access)
	pending  *block5 // a header read ahead by Open
	fatal    error   // the archive cannot be read further
	done     bool    // end of archive reached

	// The current entry.
	cur      *file5
	last     *file5 // header of the entry's last part (its checksums)
	entry    archive.Entry
	started  bool // the data stream is set up
	finished bool // Read returned the end (or an error)
	rerr     error
	entryKey *rarcrypt.RAR5Keys
	entryPw  string

	// Packed data of the current part.
	partLeft  int64
	partSplit bool // more parts follow in the next volume
	partRead  bool // every byte of the part so far went through rawPart5
	partCRC   hash.Hash32
	partBlake hash.Hash
	cbc       rarcrypt.Reader
	raw       rawPart5
	packed    packed5
	store     stored5
	dec       decoder5
	src       io.Reader
	crc       hash.Hash32
	blake     hash.Hash
	solidErr  error // why the solid stream cannot be continued
	skipBuf   []byte
}

// openRAR5 opens a RAR 5 archive whose signature starts in.R, at offset
// sfxOffset of the file.
func openRAR5(in *archive.Input, opt *archive.Options, sfxOffset int64) (archive.Reader, error) {
	r := newReader5(opt, in.Path)
	r.ra, r.sfxOffset = in.RA, sfxOffset
	name := in.Name
	if name == "" {
		name = in.Path
	}
	r.vol = volume5{r: bufio.NewReaderSize(in.R, 64<<10), pos: sfxOffset, name: name}
	r.name0 = name
	if err := r.startVolume(); err != nil {
		return nil, err
	}
	if r.main.flags&mhfl5Volume != 0 {
		// Volume numbers come from the main header; a first volume has none.
		if r.main.flags&mhfl5VolNumber != 0 {
			r.vol.index = int(r.main.volNum)
		} else {
			r.vol.index = 0
		}
		if r.vol.index > 0 && in.Path != "" {
			// Opened from a later volume: start from the first.
			if err := r.openVolumeIndex(0); err != nil {
				return nil, err
			}
		}
	}
	r.index0 = r.vol.index
	if err := r.readAhead(); err != nil {
		return nil, err
	}
	if r.ra != nil && r.main.flags&mhfl5Solid == 0 && r.vol.f == nil {
		return &random5{reader5: r}, nil
	}
	return r, nil
}

// newReader5 returns a reader with its buffers and stages wired up.
func newReader5(opt *archive.Options, path string) *reader5 {
	r := &reader5{opt: opt, path: path, hdrBuf: make([]byte, 4096), crc: crc32.NewIEEE(), keys: new(rarcrypt.KeyCache5)}
	r.raw.r = r
	r.packed.r = r
	r.store.r = r
	if path != "" {
		r.names, _ = parseVolumeName(path, false)
	}
	return r
}

// readAhead reads the headers before the first entry, so the archive
// comment is available before Next.
func (r *reader5) readAhead() error {
	for {
		b, err := r.readBlock()
		if err != nil {
			return err
		}
		if b.typ == head5Service {
			if err := r.service(&b); err != nil {
				return err
			}
			continue
		}
		r.pending = &b
		return nil
	}
}

// Comment returns the archive comment.
func (r *reader5) Comment() string { return r.comment }

// Close closes any volume the reader opened.
func (r *reader5) Close() error {
	if r.vol.f != nil {
		err := r.vol.f.Close()
		r.vol.f = nil
		return err
	}
	return nil
}

// maxComment5 bounds the archive comment read into memory.
const maxComment5 = 1 << 20

// service handles a service header: the archive comment is read, anything
// else is skipped.
func (r *reader5) service(b *block5) error {
	fh, err := parseFile5(b)
	if err != nil {
		return err
	}
	if fh.name != "CMT" || fh.unpSize > maxComment5 || fh.flags&hfl5SplitAfter != 0 {
		return r.vol.skip(b.dataSize)
	}
	// Read the comment through the entry machinery.
	r.begin(fh)
	data, err := io.ReadAll(io.LimitReader(readerFunc(r.Read), maxComment5+1))
	r.cur = nil
	if err != nil {
		r.opt.Warnf("rar: archive comment unreadable: " + err.Error())
	} else {
		r.comment = strings.TrimRight(string(data), "\x00")
	}
	return r.skipRest()
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// Next returns the next entry.
func (r *reader5) Next() (*archive.Entry, error) {
	if r.fatal != nil {
		return nil, r.fatal
	}
	if r.done {
		return nil, io.EOF
	}
	if r.cur != nil {
		if err := r.finishEntry(); err != nil {
			r.fatal = err
			return nil, err
		}
	}
	for {
		var b block5
		if r.pending != nil {
			b, r.pending = *r.pending, nil
		} else {
			var err error
			if b, err = r.readBlock(); err != nil {
				r.fatal = err
				return nil, err
			}
		}
		switch b.typ {
		case head5File:
			fh, err := parseFile5(&b)
			if err != nil {
				r.fatal = err
				return nil, err
			}
			if fh.flags&hfl5SplitBefore != 0 {
				// The rest of an entry whose start is in an earlier volume.
				if err := r.vol.skip(b.dataSize); err != nil {
					r.fatal = r.dataReadErr(err)
					return nil, r.fatal
				}
				continue
			}
			r.begin(fh)
			return &r.entry, nil
		case head5Service:
			if err := r.service(&b); err != nil {
				r.fatal = r.dataReadErr(err)
				return nil, r.fatal
			}
		case head5End:
			if x := b.body.vint(); x&1 != 0 {
				if err := r.nextVolume(); err != nil {
					r.fatal = err
					return nil, err
				}
				continue
			}
			r.done = true
			return nil, io.EOF
		default:
			if err := r.vol.skip(b.dataSize); err != nil {
				r.fatal = r.dataReadErr(err)
				return nil, r.fatal
			}
		}
	}
}

// begin makes fh the current entry.
func (r *reader5) begin(fh *file5) {
	r.cur, r.last = fh, fh
	r.started, r.finished, r.rerr, r.entryKey = false, false, nil, nil
	r.startPart(fh)
	e := &r.entry
	*e = archive.Entry{
		Name:       fh.name,
		Size:       fh.unpSize,
		PackedSize: fh.dataSize,
		ModTime:    fh.mtime,
		AccessTime: fh.atime,
		Encrypted:  fh.crypt != nil || r.hdrKeys != nil,
		Method:     method5(fh),
	}
	if r.partSplit {
		e.PackedSize = -1
	}
	switch {
	case fh.redirType == redir5UnixSymlink || fh.redirType == redir5WinSymlink || fh.redirType == redir5Junction:
		e.Type = archive.TypeSymlink
		e.Linkname = fh.redirName
		if fh.redirType != redir5UnixSymlink {
			e.Linkname = strings.ReplaceAll(e.Linkname, "\\", "/")
		}
	case fh.redirType == redir5HardLink || fh.redirType == redir5FileCopy:
		e.Type = archive.TypeHardlink
		e.Linkname = fh.redirName
	case fh.fflags&fhfl5Dir != 0:
		e.Type = archive.TypeDir
	default:
		e.Type = archive.TypeFile
	}
	if e.Type != archive.TypeFile {
		e.Size = 0
	}
	e.Mode = mode5(fh, e.Type)
	switch {
	case e.Type != archive.TypeFile:
	case fh.blake != nil:
		e.Checksum = verify.BLAKE2sp
		if !r.partSplit && (fh.crypt == nil || !fh.crypt.useMAC) {
			e.ChecksumValue = fh.blake
		}
	case fh.hasCRC:
		e.Checksum = verify.CRC32
		if !r.partSplit && (fh.crypt == nil || !fh.crypt.useMAC) {
			e.ChecksumValue = binary.BigEndian.AppendUint32(nil, fh.crc)
		}
	}
}

// method5 names an entry's compression as "store" or "mN:DICT".
func method5(fh *file5) string {
	if fh.method == 0 {
		return "store"
	}
	d := fh.dictSize
	unit := "K"
	d >>= 10
	if d >= 1024 && d%1024 == 0 {
		d, unit = d>>10, "M"
		if d >= 1024 && d%1024 == 0 {
			d, unit = d>>10, "G"
		}
	}
	v := ""
	if fh.version == 1 {
		v = "v7:"
	}
	return fmt.Sprintf("%sm%d:%d%s", v, fh.method, d, unit)
}

// host5Unix is the host system whose attributes are Unix modes; the other
// (0, Windows) has DOS attributes.
const host5Unix = 1

// mode5 converts an entry's attributes to permission bits.
func mode5(fh *file5, t archive.Type) fs.FileMode {
	if fh.hostOS == host5Unix {
		m := fs.FileMode(fh.attr & 0o777)
		if fh.attr&0o4000 != 0 {
			m |= fs.ModeSetuid
		}
		if fh.attr&0o2000 != 0 {
			m |= fs.ModeSetgid
		}
		if fh.attr&0o1000 != 0 {
			m |= fs.ModeSticky
		}
		return m
	}
	switch {
	case t == archive.TypeDir:
		return 0o755
	case t == archive.TypeSymlink:
		return 0o777
	case fh.attr&1 != 0: // read-only
		return 0o444
	}
	return 0o644
}

// finishEntry moves past the rest of the current entry: in a solid archive
// its data is decoded (later entries depend on it), otherwise skipped.
func (r *reader5) finishEntry() error {
	fh := r.cur
	if !r.finished && fh.method != 0 && r.main.flags&mhfl5Solid != 0 && r.entry.Type == archive.TypeFile {
		if !r.started {
			if err := r.setup(); err != nil {
				r.solidErr = err
			}
		}
		if r.started && r.rerr == nil {
			if r.skipBuf == nil {
				r.skipBuf = make([]byte, 32<<10)
			}
			for {
				_, err := r.dec.Read(r.skipBuf)
				if err == io.EOF {
					break
				}
				if err != nil {
					r.solidErr = err
					break
				}
			}
		}
	}
	r.cur = nil
	return r.skipRest()
}

// skipRest skips what is left of the current entry's packed data, in this
// and any later volume.
func (r *reader5) skipRest() error {
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
func (r *reader5) startPart(fh *file5) {
	r.partLeft, r.partSplit = fh.dataSize, fh.flags&hfl5SplitAfter != 0
	r.partRead = r.partSplit
	if r.partCRC == nil {
		r.partCRC = crc32.NewIEEE()
	}
	r.partCRC.Reset()
	r.partBlake = nil
	if r.partSplit && fh.blake != nil {
		r.partBlake = verify.New(verify.BLAKE2sp)
	}
}

// checkPart verifies the packed checksum of a part that was read whole.
func (r *reader5) checkPart() error {
	fh := r.last
	if !r.partRead || !r.partSplit {
		return nil
	}
	var key *rarcrypt.RAR5Keys
	if fh.crypt != nil && fh.crypt.useMAC {
		if key = r.entryKey; key == nil {
			return nil
		}
	}
	var e *verify.MismatchError
	switch {
	case fh.blake != nil && r.partBlake != nil:
		got := r.partBlake.Sum(nil)
		if key != nil {
			got = key.MACDigest(got[:0], got)
		}
		if string(got) != string(fh.blake) {
			e = &verify.MismatchError{Kind: verify.BLAKE2sp, Want: fh.blake, Got: got}
		}
	case fh.hasCRC:
		got := r.partCRC.Sum32()
		if key != nil {
			got = key.MACCRC32(got)
		}
		if got != fh.crc {
			e = &verify.MismatchError{Kind: verify.CRC32, Want: binary.BigEndian.AppendUint32(nil, fh.crc), Got: binary.BigEndian.AppendUint32(nil, got)}
		}
	}
	if e != nil {
		return archive.Corruptf("rar: packed data in %s: %v", r.vol.name, e)
	}
	return nil
}

// nextPart opens the next volume and finds the continuation of the current
// entry there.
func (r *reader5) nextPart() error {
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
		case head5File:
			fh, err := parseFile5(&b)
			if err != nil {
				return err
			}
			if fh.flags&hfl5SplitBefore == 0 {
				return archive.Corruptf("rar: %s: %v", r.vol.name, errNoContinuation)
			}
			r.last = fh
			r.startPart(fh)
			return nil
		case head5End:
			return archive.Corruptf("rar: %s: %v", r.vol.name, errNoContinuation)
		default:
			if err := r.vol.skip(b.dataSize); err != nil {
				return r.dataReadErr(err)
			}
		}
	}
}

// dataReadErr turns a short read of data into a corruption error.
func (r *reader5) dataReadErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return archive.Corruptf("rar: %s truncated at offset %d", r.vol.name, r.vol.pos)
	}
	return err
}

// Read reads the current entry's data, verifying its checksum at the end.
func (r *reader5) Read(p []byte) (int, error) {
	if r.cur == nil {
		return 0, io.EOF
	}
	if r.finished {
		return 0, r.rerr
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
func (r *reader5) setup() error {
	fh := r.cur
	r.started = true
	r.crc.Reset()
	r.blake = nil
	if fh.blake != nil {
		if r.blake = verify.New(verify.BLAKE2sp); r.blake == nil {
			return archive.Unsupportedf("rar: BLAKE2sp checksums cannot be verified yet")
		}
	}
	if r.entry.Type != archive.TypeFile {
		r.src = eofReader{}
		return nil
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
	if r.solidErr != nil && fh.solid {
		return r.solidErr
	}
	alone := r.main.flags&mhfl5Solid == 0
	if err := r.dec.Reset(&r.packed, fh.dictSize, fh.unpSize, fh.solid, alone, fh.extraDist, r.opt.Limit()); err != nil {
		if errors.Is(err, errSolid5) && r.solidErr != nil {
			return r.solidErr
		}
		return err
	}
	r.src = &r.dec
	return nil
}

// entryKeys chooses the password of an encrypted entry: the first candidate
// whose check value matches.
func (r *reader5) entryKeys(c *crypt5) (*rarcrypt.RAR5Keys, string, error) {
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
			return k, pw, nil
		}
	}
	return nil, "", archive.Errorf(archive.ErrPassword, "rar: wrong password")
}

// check verifies the entry's checksums (from its last part's header) once
// all its data has been read.
func (r *reader5) check() error {
	fh := r.last
	mac := r.entryKey != nil && fh.crypt != nil && fh.crypt.useMAC
	if fh.hasCRC {
		got := r.crc.Sum32()
		if mac {
			got = r.entryKey.MACCRC32(got)
		}
		if got != fh.crc {
			return r.mismatch(&verify.MismatchError{Kind: verify.CRC32,
				Want: binary.BigEndian.AppendUint32(nil, fh.crc), Got: binary.BigEndian.AppendUint32(nil, got)})
		}
	}
	if fh.blake != nil {
		if r.blake == nil {
			return archive.Unsupportedf("rar: BLAKE2sp checksums cannot be verified yet")
		}
		got := r.blake.Sum(nil)
		if mac {
			got = r.entryKey.MACDigest(got[:0], got)
		}
		if string(got) != string(fh.blake) {
			return r.mismatch(&verify.MismatchError{Kind: verify.BLAKE2sp, Want: fh.blake, Got: got})
		}
	}
	return nil
}

// mismatch reports a checksum mismatch; for an encrypted entry whose
// password could not be checked beforehand it means a wrong password.
func (r *reader5) mismatch(e *verify.MismatchError) error {
	if c := r.cur.crypt; c != nil && (c.check == nil || !rarcrypt.RAR5CheckValid(c.check)) {
		return archive.Errorf(archive.ErrPassword, "rar: wrong password (%v)", e)
	}
	return e
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// rawPart5 reads the current entry's raw packed bytes in the current part.
type rawPart5 struct{ r *reader5 }

func (p *rawPart5) Read(b []byte) (int, error) {
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

// packed5 reads the current entry's packed (decrypted) data across parts.
type packed5 struct{ r *reader5 }

func (p *packed5) Read(b []byte) (int, error) {
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

// stored5 reads a stored entry: its packed bytes up to the declared size
// (encrypted data is padded to whole blocks).
type stored5 struct {
	r    *reader5
	left int64 // -1: unknown size
}

func (s *stored5) Read(b []byte) (int, error) {
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
