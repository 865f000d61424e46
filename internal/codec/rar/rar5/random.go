package rar5

import (
	"bufio"
	"io"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
)

// random reads a non-solid RAR 5 archive held in a seekable file. Besides
// reading in order, it lists every entry up front and opens entries
// independently and concurrently (archive.RandomAccess), each with its own
// decoder and file handles.
type random struct {
	*reader
	once  sync.Once
	index []entry
	err   error
}

// entry locates one entry's data.
type entry struct {
	e   archive.Entry
	fh  *fileHeader
	vol int   // volume index where its data starts
	off int64 // offset of its data in that volume
	src int   // a file copy: the index of its source; else -1
}

// Entries lists the archive's entries, scanning the headers once.
func (r *random) Entries() ([]*archive.Entry, error) {
	r.once.Do(r.scan)
	if r.err != nil {
		return nil, r.err
	}
	out := make([]*archive.Entry, len(r.index))
	for i := range r.index {
		e := r.index[i].e
		out[i] = &e
	}
	return out, nil
}

// section returns a reader of the volume set positioned at offset off of
// volume vol, seeking rather than reading to skip data. size is how much
// will be read there (-1: headers to scan), which bounds the buffer.
func (r *random) section(x *reader, vol int, off, size int64) error {
	bufSize := 64 << 10
	if size >= 0 && size < int64(bufSize) {
		bufSize = max(int(size), 16)
	}
	if vol == r.index0 {
		sr := io.NewSectionReader(r.ra, off, 1<<62)
		x.vol = volume{r: bufio.NewReaderSize(sr, bufSize), sr: sr, pos: off, index: vol, name: r.name0}
		return nil
	}
	name := r.names.Name(vol)
	f, err := rarshared.OpenVolume(r.opt, name)
	if err != nil {
		return err
	}
	sr := io.NewSectionReader(f, off, 1<<62)
	x.vol = volume{r: bufio.NewReaderSize(sr, bufSize), sr: sr, f: f, pos: off, index: vol, name: name}
	return nil
}

// child returns a reader sharing r's keys and archive state.
func (r *random) child() *reader {
	x := newReader(r.opt, r.path)
	x.keys, x.main, x.seekable = r.keys, r.main, true
	x.hdrKeys, x.hdrPassword, x.hdrChecked = r.hdrKeys, r.hdrPassword, true
	return x
}

func (r *random) scan() {
	s := r.child()
	s.hdrKeys = nil
	if r.err = r.section(s, r.index0, r.sfxOffset, -1); r.err != nil {
		return
	}
	defer s.Close()
	if r.err = s.startVolume(); r.err != nil {
		return
	}
	if r.err = s.readAhead(); r.err != nil {
		return
	}
	for {
		e, err := s.Next()
		if err == io.EOF {
			// Ask for a password now, once, rather than from concurrent Opens
			// (PasswordList may prompt and then remembers the answer).
			for i := range r.index {
				if r.index[i].fh.crypt != nil {
					r.opt.PasswordList()
					break
				}
			}
			return
		}
		if err != nil {
			r.err = err
			return
		}
		x := entry{e: *e, fh: s.cur, vol: s.vol.index, off: s.vol.pos, src: -1}
		if x.fh.redirType == redirFileCopy {
			r.copyEntry(&x)
		}
		r.index = append(r.index, x)
	}
}

// copyEntry makes x, a file-copy record, an independent file whose data is
// that of the earlier regular file it names (read by Open from there), as
// the sequential reader does.
func (r *random) copyEntry(x *entry) {
	name := slashName(x.fh.redirName)
	for j := len(r.index) - 1; j >= 0; j-- {
		src := &r.index[j]
		if src.e.Name == name && src.e.Type == archive.TypeFile && src.src < 0 {
			x.src = j
			x.e.Type, x.e.Linkname = archive.TypeFile, ""
			x.e.Size, x.e.Checksum, x.e.ChecksumValue = src.e.Size, src.e.Checksum, src.e.ChecksumValue
			x.e.Mode = mode(x.fh, archive.TypeFile)
			return
		}
	}
}

// Open returns entry i's verified data. It is safe for concurrent use.
func (r *random) Open(i int) (io.ReadCloser, error) {
	r.once.Do(r.scan)
	if r.err != nil {
		return nil, r.err
	}
	if i < 0 || i >= len(r.index) {
		return nil, archive.Errorf(archive.ErrUnsupported, "rar: no entry %d", i)
	}
	x := &r.index[i]
	if x.src >= 0 {
		x = &r.index[x.src]
	}
	c := r.child()
	if err := r.section(c, x.vol, x.off, x.fh.dataSize); err != nil {
		return nil, err
	}
	c.begin(x.fh)
	return c, nil
}
