// Package rar4 reads RAR 1.5 to 4.x archives (the format RARLAB's
// technote.txt describes, as unrar reads it): the container with its
// volumes, comments and RAR 1.5/2.0/3 encryption, and the RAR 1.5, 2.0 and
// 2.9 (LZ, PPMd, VM standard filters) decoders. Package rar finds the
// signature and calls Open.
package rar4

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"io/fs"
	"strconv"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/rarcrypt"
	"github.com/unpack-dev/unpack/internal/verify"
)

// marker is the marker block that starts every RAR 1.5–4.x volume.
var marker = []byte("Rar!\x1a\x07\x00")

// Errors of the RAR 1.5–4.x container.
var (
	errNoMain        = archive.Corruptf("rar: main archive header missing")
	errLinkTooLong   = archive.Corruptf("rar: symbolic link target too long")
	errSolidBroken   = archive.Corruptf("rar: solid stream unusable after an earlier error")
	errBadPassword   = archive.Errorf(archive.ErrPassword, "rar: wrong password (encrypted header does not decrypt)")
	errNotNextPart   = archive.Corruptf("rar: next volume does not continue the split file")
	errUnexpectedEnd = archive.Corruptf("rar: archive is truncated")
	errClosed        = errors.New("rar: reader closed")
)

// maxLink bounds a symbolic link target.
const maxLink = 64 << 10

// reader reads a RAR 1.5–4.x archive (one or more volumes) sequentially,
// following RARLAB's technote.txt for RAR 2.x–4.x and unrar's reading of
// it: marker, main, file, sub-block (NEWSUB: CMT, ACL, STM, RR…), old
// comment, AV, signature and end blocks, each header checked by its CRC16;
// files compressed by RAR 1.5, 2.0 (LZ and audio) or 2.9 (LZ, PPMd, VM
// filters); RAR 3 AES-128, RAR 2.0 and RAR 1.5 encryption; volumes named .partN.rar
// or .rar/.r00/.r01….
//
// # Security concerns
//
// Windows are 1–4 MiB (the declared dictionary), or 64 KiB and up when
// the stream is shorter, and PPMd models up to 256 MiB, both checked
// against Options.Limit before allocation; filter
// blocks are bounded by the VM memory (256 KiB); header, link and comment
// sizes are bounded; no VM program other than the standard filters runs.
// Each distinct salt of an encrypted archive costs one RAR 3 key
// derivation (2^18 SHA-1 rounds).
type reader struct {
	opt  *archive.Options
	ra   io.ReaderAt // whole file, for RandomAccess (nil for streams)
	size int64
	sfx  int64
	vol  volume
	hbuf []byte

	solid      bool // main header: solid archive
	multi      bool // main header: volume of a set
	newNaming  bool
	encHeaders bool
	password   string
	passwords  []string // candidates; the first is used for file data
	havePass   bool
	passOK     bool  // an encrypted header confirmed password
	passErr    error // why no password is available
	encRaw     []byte
	comment    string
	cmtUnp     *unpacker
	pend       pending
	idx        index

	hdr   fileHeader
	entry *archive.Entry
	done  bool
	fatal error

	// current entry's data
	dataPos   int64 // offset of the packed data in the volume
	hasData   bool
	partLeft  int64 // packed bytes left in the current volume's part
	partAfter bool  // the part continues in the next volume
	partCRC   hash.Hash32
	partWant  uint32
	finalCRC  uint32
	crcKnown  bool
	left      int64 // unpacked bytes not yet delivered (-1: unknown)
	stored    bool
	encrypted bool
	started   bool // data reading began (decoder set up)
	derr      error
	dataSrc   io.Reader
	dec       rarcrypt.Reader3
	unp       unpacker
	crc       hash.Hash32
	solidErr  error
	scratch   []byte
	pw        pwTrial // choice among password candidates (RAR 3 AES)
}

// Open opens a RAR 1.5–4.x archive. in.R starts at the marker block,
// which lies at sfxOffset in the file (after a self-extractor stub, or 0);
// package rar's Open finds it. Later volumes are opened by name from in.Path.
func Open(in *archive.Input, opt *archive.Options, sfxOffset int64) (archive.Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	r := &reader{opt: opt, hbuf: make([]byte, 256), crc: verify.NewCRC32(), partCRC: verify.NewCRC32()}
	r.unp.limit = opt.Limit()
	r.ra, r.size, r.sfx = in.RA, in.Size, sfxOffset
	src := in.R
	if _, ok := src.(io.ByteReader); !ok {
		src = bufio.NewReaderSize(src, 64<<10)
	}
	r.vol = volume{r: src, path: in.Path, pos: sfxOffset}
	if err := r.startVolume(true); err != nil {
		return nil, err
	}
	r.prefetch()
	return r, nil
}

// startVolume reads the marker and main header of the current volume.
func (r *reader) startVolume(first bool) error {
	var sig [7]byte
	if err := r.vol.readFull(sig[:]); err != nil || !bytes.Equal(sig[:], marker) {
		return archive.Corruptf("rar: no RAR 4 signature at the start of %s", volName(r.vol.path))
	}
	// The main header is never encrypted.
	r.encHeaders = false
	typ, flags, body, err := r.readBlock()
	if err != nil {
		if err == io.EOF {
			err = errNoMain
		}
		return err
	}
	if typ != blockMain {
		return errNoMain
	}
	if first {
		r.solid = flags&mainSolid != 0
		r.multi = flags&mainVolume != 0
		r.newNaming = flags&mainNewNaming != 0
	}
	if first && flags&mainComment != 0 {
		off := 6
		if flags&mainEncryptVer != 0 {
			off++
		}
		if len(body) > off {
			r.comment = r.oldComment(body[off:])
		}
	}
	if flags&mainPassword != 0 {
		r.encHeaders = true
		if err := r.needPassword(); err != nil {
			return err
		}
	}
	return nil
}

func volName(p string) string {
	if p == "" {
		return "the input"
	}
	return p
}

// needPassword picks the password (the first candidate).
func (r *reader) needPassword() error {
	if r.havePass {
		return nil
	}
	if r.passErr != nil {
		return r.passErr
	}
	list, err := r.opt.PasswordList()
	if err != nil {
		r.passErr = err
		return err
	}
	r.passwords = list
	r.password, r.havePass = list[0], true
	return nil
}

// readBlock reads the next block header and returns its type, flags and
// body (the bytes after the 7-byte base header, valid until the next call).
// It returns io.EOF at a clean end of the volume.
func (r *reader) readBlock() (byte, uint16, []byte, error) {
	pos := r.vol.pos
	if r.encHeaders {
		return r.readEncBlock(pos)
	}
	base := r.hbuf[:sizeBase]
	if err := r.vol.readFull(base); err != nil {
		if err == io.EOF {
			return 0, 0, nil, io.EOF
		}
		return 0, 0, nil, errUnexpectedEnd
	}
	size := int(binary.LittleEndian.Uint16(base[5:]))
	if size < sizeBase {
		return 0, 0, nil, archive.Corruptf("rar: bad header size at offset %d", pos)
	}
	if cap(r.hbuf) < size {
		nb := make([]byte, size)
		copy(nb, base)
		r.hbuf = nb
	}
	h := r.hbuf[:size]
	if err := r.vol.readFull(h[sizeBase:]); err != nil {
		return 0, 0, nil, errUnexpectedEnd
	}
	typ, flags := h[2], binary.LittleEndian.Uint16(h[3:])
	want := binary.LittleEndian.Uint16(h)
	if uint16(verify.SumCRC32(h[2:])) != want {
		ok := false
		switch typ {
		case blockMain, blockFile:
			// RAR 2.x embeds old-style comments in main and file headers;
			// the CRC covers the header without the comment.
			if flags&(mainComment|fileComment) != 0 {
				ok = crcPrefix(h, want)
			}
		case blockAV, blockSign, blockSub:
			ok = true // old AV, signature and Unix owner blocks lack a valid CRC
		}
		if !ok {
			return 0, 0, nil, archive.Corruptf("rar: bad header CRC at offset %d", pos)
		}
	}
	return typ, flags, h[sizeBase:], nil
}

// crcPrefix reports whether some prefix of header h (past its CRC field)
// has the CRC want.
func crcPrefix(h []byte, want uint16) bool {
	var c uint32
	for i := 2; i < len(h); i++ {
		c = verify.UpdateCRC32(c, h[i:i+1])
		if i+1 >= sizeBase && uint16(c) == want {
			return true
		}
	}
	return false
}

// readEncBlock reads a header encrypted with -hp: an 8-byte salt, then the
// header padded to 16 bytes, AES-128-CBC. Until a header has decrypted,
// every password candidate is tried on it (bytes read beyond the header
// for a wrong candidate are pushed back).
func (r *reader) readEncBlock(pos int64) (byte, uint16, []byte, error) {
	var salt [8]byte
	if err := r.vol.readFull(salt[:]); err != nil {
		if err == io.EOF {
			return 0, 0, nil, io.EOF
		}
		return 0, 0, nil, errUnexpectedEnd
	}
	raw := append(r.encRaw[:0], make([]byte, 16)...)
	if err := r.vol.readFull(raw); err != nil {
		// Some writers end an -hp archive with a plain end block shorter
		// than an AES block.
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return 0, 0, nil, io.EOF
		}
		return 0, 0, nil, err
	}
	cands := r.passwords
	if r.passOK || len(cands) == 0 {
		cands = []string{r.password}
	}
	for _, pw := range cands {
		mode := rarcrypt.NewHeaderDecrypter3(rarcrypt.DeriveKey3(pw, salt[:]))
		var first [16]byte
		copy(first[:], raw)
		mode.CryptBlocks(first[:], first[:])
		size := int(binary.LittleEndian.Uint16(first[5:]))
		if size < sizeBase {
			continue
		}
		total := (size + 15) &^ 15
		if len(raw) < total {
			n := len(raw)
			raw = append(raw, make([]byte, total-n)...)
			m, _ := io.ReadFull(&r.vol, raw[n:])
			raw = raw[:n+m]
			if len(raw) < total {
				continue
			}
		}
		if cap(r.hbuf) < total {
			r.hbuf = make([]byte, total)
		}
		h := r.hbuf[:total]
		rarcrypt.NewHeaderDecrypter3(rarcrypt.DeriveKey3(pw, salt[:])).CryptBlocks(h, raw[:total])
		h = h[:size]
		if uint16(verify.SumCRC32(h[2:])) != binary.LittleEndian.Uint16(h) {
			continue
		}
		r.vol.unread(raw[total:])
		r.encRaw = raw[:0]
		if !r.passOK {
			r.opt.Accepted(pw)
		}
		r.password, r.passOK = pw, true
		return h[2], binary.LittleEndian.Uint16(h[3:]), h[sizeBase:], nil
	}
	r.encRaw = raw[:0]
	return 0, 0, nil, errBadPassword
}

// Next returns the next entry.
func (r *reader) Next() (*archive.Entry, error) {
	if r.fatal != nil {
		return nil, r.fatal
	}
	if r.done {
		return nil, io.EOF
	}
	if err := r.skipData(); err != nil {
		r.fatal = err
		return nil, err
	}
	for {
		pos, typ, flags, body, err := r.nextBlock()
		if err == io.EOF {
			r.done = true
			return nil, io.EOF
		}
		if err != nil {
			r.fatal = err
			return nil, err
		}
		switch typ {
		case blockFile:
			if err := parseFile(&r.hdr, flags, body, pos); err != nil {
				r.fatal = err
				return nil, err
			}
			r.dataPos = r.vol.pos
			if r.hdr.splitBefore() {
				// The rest of a file begun in an earlier volume we were
				// not given: skip it.
				if err := r.vol.skip(r.hdr.packSize); err != nil {
					r.fatal = errUnexpectedEnd
					return nil, r.fatal
				}
				continue
			}
			e, err := r.startEntry()
			if err != nil {
				return e, err
			}
			return e, nil
		case blockNewSub:
			if err := r.subBlock(flags, body, pos, false); err != nil {
				r.fatal = err
				return nil, err
			}
		case blockEnd:
			if flags&endNextVolume == 0 {
				r.done = true
				return nil, io.EOF
			}
			if err := r.nextVolume(); err != nil {
				r.fatal = err
				return nil, err
			}
		case blockMain, blockMark:
			r.fatal = archive.Corruptf("rar: unexpected header type %#x at offset %d", typ, pos)
			return nil, r.fatal
		default:
			if flags&flagLong != 0 {
				if len(body) < 4 {
					r.fatal = archive.Corruptf("rar: header at offset %d is too short", pos)
					return nil, r.fatal
				}
				if err := r.vol.skip(int64(binary.LittleEndian.Uint32(body))); err != nil {
					r.fatal = errUnexpectedEnd
					return nil, r.fatal
				}
			}
		}
	}
}

// nextVolume opens the volume after the current one.
func (r *reader) nextVolume() error {
	name := nextVolumeName(r.vol.path, r.newNaming)
	f, err := openVolume(r.opt, name)
	if err != nil {
		return err
	}
	r.vol.close()
	r.vol = volume{r: bufio.NewReaderSize(f, 64<<10), f: f, path: name}
	return r.startVolume(false)
}

// startEntry builds the entry for r.hdr and prepares its data.
func (r *reader) startEntry() (*archive.Entry, error) {
	h := &r.hdr
	e := &archive.Entry{
		Name:       h.name,
		Size:       h.unpSize,
		PackedSize: h.packSize,
		ModTime:    h.mtime,
		AccessTime: h.atime,
		Encrypted:  h.encrypted() || r.encHeaders,
		Method:     method(h),
	}
	if h.cmtRaw != nil {
		e.Comment = r.oldComment(h.cmtRaw)
	}
	r.entry = e
	r.hasData, r.started, r.derr = true, false, nil
	r.partLeft, r.partAfter = h.packSize, h.splitAfter()
	r.partCRC.Reset()
	r.partWant = h.crc
	r.crcKnown = !h.splitAfter()
	r.finalCRC = h.crc
	r.left = h.unpSize
	r.stored = h.method == 0x30
	r.encrypted = h.encrypted()
	r.crc.Reset()
	e.Mode = mode(h)
	switch {
	case h.isDir:
		e.Type = archive.TypeDir
		e.Size = 0
		r.left = 0
		return e, nil
	case (h.host == hostUnix || h.host == hostBeOS) && h.attr&0xf000 == 0xa000:
		e.Type = archive.TypeSymlink
		target, err := r.readLink()
		if err != nil {
			return e, err
		}
		e.Linkname = target
		e.Size = 0
		return e, nil
	}
	e.Type = archive.TypeFile
	e.Checksum = verify.CRC32
	if r.crcKnown {
		e.ChecksumValue = binary.BigEndian.AppendUint32(nil, h.crc)
	}
	return e, nil
}

// method names the compression method ("stored", "RAR 2.9 m3").
func method(h *fileHeader) string {
	if h.method == 0x30 {
		return "stored"
	}
	v := int(h.unpVer)
	return "RAR " + strconv.Itoa(v/10) + "." + strconv.Itoa(v%10) + " m" + strconv.Itoa(int(h.method)-0x30)
}

// mode maps the host's attributes to permission bits.
func mode(h *fileHeader) fs.FileMode {
	switch h.host {
	case hostUnix, hostBeOS:
		return archive.UnixMode(uint32(h.attr))
	}
	switch {
	case h.isDir:
		return 0o755
	case h.attr&1 != 0:
		return 0o444
	}
	return 0o644
}

// Close releases the volumes the reader opened and its buffers.
func (r *reader) Close() error {
	r.unp.release()
	if r.cmtUnp != nil {
		r.cmtUnp.release()
	}
	r.fatal, r.derr, r.hasData = errClosed, errClosed, false
	return r.vol.close()
}
