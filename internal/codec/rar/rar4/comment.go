package rar4

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/rarcrypt"
	"github.com/unpack-dev/unpack/internal/verify"
)

// pending is a block read ahead by prefetch.
type pending struct {
	ok    bool
	pos   int64
	typ   byte
	flags uint16
	body  []byte
	err   error
}

// nextBlock returns the block read ahead, else reads one.
func (r *reader) nextBlock() (int64, byte, uint16, []byte, error) {
	if p := r.pend; p.ok {
		r.pend = pending{}
		return p.pos, p.typ, p.flags, p.body, p.err
	}
	pos := r.vol.pos
	typ, flags, body, err := r.readBlock()
	return pos, typ, flags, body, err
}

// prefetch reads the blocks before the first entry, taking the archive
// comment from a CMT sub-block, and keeps the first other block for Next.
func (r *reader) prefetch() {
	for {
		pos := r.vol.pos
		typ, flags, body, err := r.readBlock()
		if err == nil && typ == blockNewSub {
			if err = r.subBlock(flags, body, pos, true); err == nil {
				continue
			}
		}
		r.pend = pending{ok: true, pos: pos, typ: typ, flags: flags, body: append([]byte(nil), body...), err: err}
		return
	}
}

// maxComment bounds the packed size of a comment that is decoded.
const maxComment = 1 << 20

// subBlock handles a NEWSUB block: the archive comment (CMT) when archive
// is set, else its data is skipped.
func (r *reader) subBlock(flags uint16, body []byte, pos int64, archiveLevel bool) error {
	var sub fileHeader
	if err := parseFile(&sub, flags, body, pos); err != nil {
		return err
	}
	if !archiveLevel || sub.name != "CMT" || sub.packSize > maxComment || sub.unpSize < 0 || sub.unpSize > maxComment {
		if err := r.vol.skip(sub.packSize); err != nil {
			return errUnexpectedEnd
		}
		return nil
	}
	packed := make([]byte, sub.packSize)
	if err := r.vol.readFull(packed); err != nil {
		return errUnexpectedEnd
	}
	if sub.encrypted() {
		if !r.havePass || !sub.hasSalt {
			return nil // not decrypted: the comment stays empty
		}
		plain, err := io.ReadAll(rarcrypt.NewReader3(bytes.NewReader(packed), rarcrypt.DeriveKey3(r.password, sub.salt[:])))
		if err != nil {
			return nil
		}
		packed = plain
	}
	text, err := r.decodeComment(sub.unpVer, sub.method, int(sub.unpSize), packed)
	if err != nil || verify.SumCRC32(text) != sub.crc {
		r.opt.Warnf("rar: archive comment is damaged; ignored")
		return nil
	}
	r.comment = string(text)
	return nil
}

// decodeComment decompresses a comment's packed bytes.
func (r *reader) decodeComment(ver, method byte, size int, packed []byte) ([]byte, error) {
	if method == 0x30 {
		if len(packed) < size {
			return nil, errTruncated
		}
		return packed[:size], nil
	}
	v := 29
	switch {
	case ver <= 15:
		v = 15
	case ver == 20 || ver == 26:
		v = 20
	}
	if minWin > r.opt.Limit() {
		return nil, archive.Limitf("rar: %d KiB window is above the memory limit", minWin>>10)
	}
	if r.cmtUnp == nil {
		r.cmtUnp = &unpacker{limit: r.opt.Limit()}
	}
	u := r.cmtUnp
	if err := u.init(bytes.NewReader(packed), v, false, int64(size), minWin); err != nil {
		return nil, err
	}
	out := make([]byte, size)
	n, err := io.ReadFull(unpSrc{u}, out)
	if err != nil && n < size {
		return nil, errTruncated
	}
	return out, nil
}

// oldComment decodes a comment block embedded in a RAR 1.5–2.x main or
// file header: base header, unpacked size, version, method, CRC16, data.
func (r *reader) oldComment(b []byte) string {
	if len(b) < 13 || b[2] != blockComment {
		return ""
	}
	size := int(binary.LittleEndian.Uint16(b[5:]))
	if size < 13 || size > len(b) {
		return ""
	}
	unp := int(binary.LittleEndian.Uint16(b[7:]))
	text, err := r.decodeComment(b[9], b[10], unp, b[13:size])
	if err != nil || uint16(verify.SumCRC32(text)) != binary.LittleEndian.Uint16(b[11:]) {
		r.opt.Warnf("rar: comment is damaged or encrypted; ignored")
		return ""
	}
	return string(text)
}

// Comment returns the archive comment ("" when there is none).
func (r *reader) Comment() string { return r.comment }
