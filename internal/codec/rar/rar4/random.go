package rar4

import (
	"bufio"
	"errors"
	"io"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// errNoRandomAccess tells the caller to read the archive sequentially.
var errNoRandomAccess = archive.Unsupportedf("rar: entries of solid, multi-volume or header-encrypted RAR 4 archives cannot be opened independently")

// index is what a scan of the headers found: the entries and, for each,
// its header and the offset of its packed data.
type index struct {
	once    sync.Once
	entries []*archive.Entry
	hdrs    []fileHeader
	pos     []int64
	pass    string
	pws     []string // the candidates
	havePw  bool
	passErr error
	err     error
}

// Entries lists every entry by scanning the headers through the file's
// ReaderAt, seeking over the data. Only single-volume, non-solid archives
// without encrypted headers qualify; others return an error and are read
// sequentially.
func (r *reader) Entries() ([]*archive.Entry, error) {
	if r.ra == nil || r.size < 0 || r.solid || r.multi || r.encHeaders {
		return nil, errNoRandomAccess
	}
	r.idx.once.Do(r.scan)
	return r.idx.entries, r.idx.err
}

func (r *reader) scan() {
	in := &archive.Input{R: io.NewSectionReader(r.ra, r.sfx, r.size-r.sfx), Size: r.size, Path: r.vol.path}
	s := &reader{opt: r.opt, hbuf: make([]byte, 256), crc: verify.NewCRC32(), partCRC: verify.NewCRC32()}
	s.unp.limit = r.opt.Limit()
	s.vol = volume{r: in.R, path: in.Path, pos: r.sfx}
	if err := s.startVolume(true); err != nil {
		r.idx.err = err
		return
	}
	s.prefetch()
	for {
		e, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			r.idx.err = err
			return
		}
		if s.hdr.splitAfter() || s.hdr.flags&fileSolid != 0 {
			r.idx.err = errNoRandomAccess
			return
		}
		if s.hdr.encrypted() && !s.havePass && s.passErr == nil {
			s.needPassword() // once, here: Open runs concurrently
		}
		r.idx.entries = append(r.idx.entries, e)
		r.idx.hdrs = append(r.idx.hdrs, s.hdr)
		r.idx.pos = append(r.idx.pos, s.dataPos)
	}
	r.idx.pass, r.idx.pws, r.idx.havePw, r.idx.passErr = s.password, s.passwords, s.havePass, s.passErr
}

// Open returns a verified stream of entry i's data; it is safe for
// concurrent use once Entries has returned.
func (r *reader) Open(i int) (io.ReadCloser, error) {
	if _, err := r.Entries(); err != nil {
		return nil, err
	}
	if i < 0 || i >= len(r.idx.entries) {
		return nil, archive.Errorf(archive.ErrCorrupt, "rar: no entry %d", i)
	}
	if r.idx.entries[i].Type != archive.TypeFile {
		return io.NopCloser(emptyData{}), nil
	}
	x := r.entryReader(i)
	if !x.encrypted || len(x.passwords) < 2 || x.hdr.unpVer < 29 || x.hdr.unpSize == 0 {
		return x, nil
	}
	x, _, err := trialOpen(func() *reader { return r.entryReader(i) })
	if err != nil {
		return nil, err
	}
	return x, nil
}

// entryReader returns a reader of entry i's data alone.
func (r *reader) entryReader(i int) *reader {
	x := r.dataReader(r.idx.hdrs[i], r.idx.entries[i], r.idx.pos[i])
	if r.idx.havePw {
		x.password, x.havePass, x.passwords = r.idx.pass, true, r.idx.pws
	} else if x.passErr = r.idx.passErr; x.passErr == nil {
		x.passErr = archive.ErrNeedPassword
	}
	return x
}

// dataReader returns a reader of the data of the entry with header h and
// data at pos (in r.ra), without a password.
func (r *reader) dataReader(h fileHeader, e *archive.Entry, pos int64) *reader {
	x := &reader{opt: r.opt, crc: verify.NewCRC32(), partCRC: verify.NewCRC32(), hdr: h, entry: e}
	x.unp.limit = r.opt.Limit()
	sec := io.NewSectionReader(r.ra, pos, h.packSize)
	// A buffer no larger than the packed data (small entries are many).
	x.vol = volume{r: bufio.NewReaderSize(sec, int(min(32<<10, max(h.packSize, 16)))), path: r.vol.path, pos: pos}
	x.hasData = true
	x.partLeft, x.partAfter = h.packSize, false
	x.crcKnown, x.finalCRC = true, h.crc
	x.left = h.unpSize
	x.stored = h.method == 0x30
	x.encrypted = h.encrypted()
	return x
}

// trialOpen opens an entry encrypted with RAR 3 AES, choosing among
// several password candidates; mk makes a fresh reader of its data. When
// the first-block check leaves exactly one candidate (or none: decoding
// then reports the wrong password), that reader is returned. When it
// cannot tell (a stored entry) or a later candidate passes it too, the
// entry is decoded with the first one left to check its CRC before any
// byte is given out, the next is tried on a mismatch, and a fresh reader
// with the one that matched is returned; when none does, the error is the
// last mismatch's ErrPassword. Only the candidate finally used is
// reported through Options.Accepted; its index is returned.
func trialOpen(mk func() *reader) (*reader, int, error) {
	x := mk()
	var lastErr error
	for from := 0; from < len(x.passwords); {
		x.pw.from, x.pw.trial, x.started = from, true, true
		if err := x.setupData(); err != nil {
			x.Close()
			return nil, 0, err
		}
		chosen := x.pw.chosen
		if !x.pw.alt && lastErr == nil {
			if x.pw.passed {
				x.opt.Accepted(x.passwords[chosen])
			}
			return x, chosen, nil
		}
		_, err := io.Copy(io.Discard, x)
		x.Close()
		if err == nil {
			y := mk()
			y.pw.from, y.pw.trial, y.pw.fixed, y.started = chosen, true, true, true
			if err := y.setupData(); err != nil {
				y.Close()
				return nil, 0, err
			}
			y.opt.Accepted(y.passwords[chosen])
			return y, chosen, nil
		}
		if !errors.Is(err, archive.ErrPassword) && !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrChecksum) {
			return nil, 0, err
		}
		lastErr = err
		from = chosen + 1
		x = mk()
	}
	return nil, 0, lastErr
}

type emptyData struct{}

func (emptyData) Read([]byte) (int, error) { return 0, io.EOF }
