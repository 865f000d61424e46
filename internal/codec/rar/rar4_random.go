package rar

import (
	"bufio"
	"io"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// errNoRandomAccess4 tells the caller to read the archive sequentially.
var errNoRandomAccess4 = archive.Unsupportedf("rar: entries of solid, multi-volume or header-encrypted RAR 4 archives cannot be opened independently")

// index4 is what a scan of the headers found: the entries and, for each,
// its header and the offset of its packed data.
type index4 struct {
	once    sync.Once
	entries []*archive.Entry
	hdrs    []fileHeader4
	pos     []int64
	pass    string
	havePw  bool
	passErr error
	err     error
}

// Entries lists every entry by scanning the headers through the file's
// ReaderAt, seeking over the data. Only single-volume, non-solid archives
// without encrypted headers qualify; others return an error and are read
// sequentially.
func (r *reader4) Entries() ([]*archive.Entry, error) {
	if r.ra == nil || r.size < 0 || r.solid || r.multi || r.encHeaders {
		return nil, errNoRandomAccess4
	}
	r.idx.once.Do(r.scan)
	return r.idx.entries, r.idx.err
}

func (r *reader4) scan() {
	in := &archive.Input{R: io.NewSectionReader(r.ra, r.sfx, r.size-r.sfx), Size: r.size, Path: r.vol.path}
	s := &reader4{opt: r.opt, hbuf: make([]byte, 256), crc: verify.NewCRC32(), partCRC: verify.NewCRC32()}
	s.unp.limit = r.opt.Limit()
	s.vol = volume4{r: in.R, path: in.Path, pos: r.sfx}
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
		if s.hdr.splitAfter() || s.hdr.flags&fileSolid4 != 0 {
			r.idx.err = errNoRandomAccess4
			return
		}
		if s.hdr.encrypted() && !s.havePass && s.passErr == nil {
			s.needPassword() // once, here: Open runs concurrently
		}
		r.idx.entries = append(r.idx.entries, e)
		r.idx.hdrs = append(r.idx.hdrs, s.hdr)
		r.idx.pos = append(r.idx.pos, s.dataPos)
	}
	r.idx.pass, r.idx.havePw, r.idx.passErr = s.password, s.havePass, s.passErr
}

// Open returns a verified stream of entry i's data; it is safe for
// concurrent use once Entries has returned.
func (r *reader4) Open(i int) (io.ReadCloser, error) {
	if _, err := r.Entries(); err != nil {
		return nil, err
	}
	if i < 0 || i >= len(r.idx.entries) {
		return nil, archive.Errorf(archive.ErrCorrupt, "rar: no entry %d", i)
	}
	h := r.idx.hdrs[i]
	e := r.idx.entries[i]
	if e.Type != archive.TypeFile {
		return io.NopCloser(emptyData4{}), nil
	}
	sec := io.NewSectionReader(r.ra, r.idx.pos[i], h.packSize)
	x := &reader4{opt: r.opt, crc: verify.NewCRC32(), partCRC: verify.NewCRC32(), hdr: h, entry: e}
	x.unp.limit = r.opt.Limit()
	x.vol = volume4{r: bufio.NewReaderSize(sec, 32<<10), path: r.vol.path, pos: r.idx.pos[i]}
	if r.idx.havePw {
		x.password, x.havePass, x.passwords = r.idx.pass, true, []string{r.idx.pass}
	} else if x.passErr = r.idx.passErr; x.passErr == nil {
		x.passErr = archive.ErrNeedPassword
	}
	x.hasData = true
	x.partLeft, x.partAfter = h.packSize, false
	x.crcKnown, x.finalCRC = true, h.crc
	x.left = h.unpSize
	x.stored = h.method == 0x30
	x.encrypted = h.encrypted()
	return x, nil
}

type emptyData4 struct{}

func (emptyData4) Read([]byte) (int, error) { return 0, io.EOF }
