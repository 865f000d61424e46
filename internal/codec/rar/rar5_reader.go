package rar

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"strings"
	"sync"

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
	dec       *decoder5 // allocated for the first compressed entry
	src       io.Reader
	crc       hash.Hash32
	blake     hash.Hash
	solidErr  error // why the solid stream cannot be continued
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
	br, ok := in.R.(*bufio.Reader) // the caller's buffer, read on as it is
	if !ok {
		br = bufio.NewReaderSize(in.R, 64<<10)
	}
	r.vol = volume5{r: br, pos: sfxOffset, name: name}
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
	r := &reader5{opt: opt, path: path, hdrBuf: make([]byte, 512), crc: verify.NewCRC32(), keys: new(rarcrypt.KeyCache5)}
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

// errClosed5 is what a closed reader returns.
var errClosed5 = errors.New("rar: reader closed")

// decoders5 holds the decoders (Huffman tables, 25 KiB) of closed readers.
var decoders5 = sync.Pool{New: func() any { return new(decoder5) }}

// Close returns the reader's decoder and window to their pools and closes
// any volume the reader opened. The reader cannot be used afterwards.
func (r *reader5) Close() error {
	if r.dec != nil {
		r.dec.release()
		decoders5.Put(r.dec)
		r.dec = nil
	}
	r.src = nil
	r.fatal, r.finished, r.rerr = errClosed5, true, errClosed5
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
	data, err := io.ReadAll(io.LimitReader(readerFunc5(r.Read), maxComment5+1))
	r.cur = nil
	if err != nil {
		r.opt.Warnf("rar: archive comment unreadable: " + err.Error())
	} else {
		r.comment = strings.TrimRight(string(data), "\x00")
	}
	return r.skipRest()
}

type readerFunc5 func([]byte) (int, error)

func (f readerFunc5) Read(p []byte) (int, error) { return f(p) }

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
	r.started, r.finished, r.rerr, r.entryKey, r.src = false, false, nil, nil, nil
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
