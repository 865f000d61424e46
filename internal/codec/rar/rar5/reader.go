// Package rar5 reads RAR 5.0 and 7.0 archives as RARLAB's "RAR 5.0
// archive format" describes them and unrar reads them: volumes, encrypted
// headers and data (PBKDF2-HMAC-SHA256, AES-256), CRC32 and BLAKE2sp
// checks, service headers, redirections, and the RAR 5 LZ decoder with its
// filters. Package rar finds the signature and calls Open.
package rar5

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
	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
	"github.com/unpack-dev/unpack/internal/rarcrypt"
	"github.com/unpack-dev/unpack/internal/spool"
	"github.com/unpack-dev/unpack/internal/verify"
)

// reader reads a RAR 5 archive (one volume or a set) entry by entry.
type reader struct {
	opt    *archive.Options
	path   string // path of the volume opened, "" for standard input
	names  rarshared.VolumeNames
	vol    volume
	volBuf *bufio.Reader // reused for volumes after the first
	main   mainHeader

	hdrBuf      []byte
	hdrKeys     *rarcrypt.RAR5Keys // non-nil when headers are encrypted
	hdrPassword string
	hdrChecked  bool // the header password is known right
	hdrCBC      rarcrypt.CBC
	keys        *rarcrypt.KeyCache5 // shared with readers made by Open(i)
	ra          io.ReaderAt         // the first volume, when seekable
	sfxOffset   int64

	comment  string
	name0    string // name of the volume opened
	index0   int    // its index in the set
	seekable bool   // volumes are read through section readers (random access)
	pending  *block // a header read ahead by Open
	fatal    error  // the archive cannot be read further
	done     bool   // end of archive reached

	// The current entry.
	cur      *fileHeader
	last     *fileHeader // header of the entry's last part (its checksums)
	entry    archive.Entry
	started  bool // the data stream is set up
	finished bool // Read returned the end (or an error)
	rerr     error
	entryKey *rarcrypt.RAR5Keys
	entryPw  string

	// Packed data of the current part.
	partLeft  int64
	partSplit bool // more parts follow in the next volume
	partRead  bool // every byte of the part so far went through rawPart
	partCRC   hash.Hash32
	partBlake hash.Hash
	cbc       rarcrypt.Reader
	raw       rawPart
	packed    packed
	store     stored
	dec       *decoder // allocated for the first compressed entry
	src       io.Reader
	crc       hash.Hash32
	blake     hash.Hash
	solidErr  error // why the solid stream cannot be continued

	// Names of the entries so far (up to maxSeen), which absolute link
	// targets resolve against, with the check of the first regular file of
	// each name (a copy of it is checked by the same); and for a file
	// copy, the name of its source with the reader of its data.
	seen map[string]verify.Kind
	// again reads the archive again from the start of its first volume,
	// at againAt, for a file copy's source: the file itself, or a spool
	// of the pipe kept as it is read (Options.CopySources). Nil: copies
	// are marked Copy for the sink.
	again   io.ReaderAt
	againAt int64
	spool   io.Closer
	copyOf  string
	copySrc *reader
	copyGot int64 // bytes of the copy handed out
}

// maxSeen bounds the names a reader remembers for resolving absolute link
// targets (a few MiB); past it such targets stay as stored and are refused.
const maxSeen = 1 << 16

// maxVolumes bounds a volume number read from a main header, so that it
// converts to an int on every target (RAR itself stops far below).
const maxVolumes = 1 << 30

// Open opens a RAR 5 archive whose signature starts in.R, at offset
// sfxOffset of the file (after a self-extractor stub, or 0); package rar's
// Open finds it. Later volumes are opened by name from in.Path.
func Open(in *archive.Input, opt *archive.Options, sfxOffset int64) (archive.Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	r := newReader(opt, in.Path)
	r.ra, r.sfxOffset = in.RA, sfxOffset
	name := in.Name
	if name == "" {
		name = in.Path
	}
	br, ok := in.R.(*bufio.Reader) // the caller's buffer, read on as it is
	if !ok {
		br = bufio.NewReaderSize(in.R, 64<<10)
	}
	if in.RA == nil && opt.CopySources {
		// Everything read is kept, so that a file copy's source, which
		// precedes it, can be decoded again.
		s, err := spool.Create(opt.SpoolLimit)
		if err != nil {
			return nil, err
		}
		r.again, r.spool = s, s
		br = bufio.NewReaderSize(io.TeeReader(br, s), 64<<10)
	}
	opened := false
	defer func() {
		if !opened {
			r.Close()
		}
	}()
	r.vol = volume{r: br, pos: sfxOffset, name: name}
	r.name0 = name
	if err := r.startVolume(); err != nil {
		return nil, err
	}
	if r.main.flags&mhflVolume != 0 {
		// Volume numbers come from the main header; a first volume has none.
		if r.main.flags&mhflVolNumber != 0 {
			if r.main.volNum > maxVolumes {
				return nil, archive.Corruptf("rar: volume number %d out of range", r.main.volNum)
			}
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
	if r.ra != nil && r.vol.f == nil {
		r.again, r.againAt = r.ra, r.sfxOffset
	}
	if err := r.readAhead(); err != nil {
		return nil, err
	}
	opened = true
	if r.ra != nil && r.main.flags&mhflSolid == 0 && r.vol.f == nil {
		return &random{reader: r}, nil
	}
	return r, nil
}

// newReader returns a reader with its buffers and stages wired up.
func newReader(opt *archive.Options, path string) *reader {
	r := &reader{opt: opt, path: path, hdrBuf: make([]byte, 512), crc: verify.NewCRC32(), keys: new(rarcrypt.KeyCache5)}
	r.raw.r = r
	r.packed.r = r
	r.store.r = r
	if path != "" {
		r.names, _ = rarshared.ParseVolumeName(path, false)
	}
	return r
}

// readAhead reads the headers before the first entry, so the archive
// comment is available before Next.
func (r *reader) readAhead() error {
	for {
		b, err := r.readBlock()
		if err != nil {
			return err
		}
		if b.typ == headService {
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
func (r *reader) Comment() string { return r.comment }

// errClosed is what a closed reader returns.
var errClosed = errors.New("rar: reader closed")

// decoders holds the decoders (Huffman tables, 25 KiB) of closed readers.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// Close returns the reader's decoder and window to their pools and closes
// any volume the reader opened. The reader cannot be used afterwards.
func (r *reader) Close() error {
	r.closeCopy()
	if r.dec != nil {
		r.dec.release()
		decoders.Put(r.dec)
		r.dec = nil
	}
	r.src = nil
	r.fatal, r.finished, r.rerr = errClosed, true, errClosed
	if r.spool != nil {
		r.spool.Close()
		r.spool = nil
	}
	if r.vol.f != nil {
		err := r.vol.f.Close()
		r.vol.f = nil
		return err
	}
	return nil
}

// maxComment bounds the archive comment read into memory.
const maxComment = 1 << 20

// service handles a service header: the archive comment is read, anything
// else is skipped.
func (r *reader) service(b *block) error {
	fh, err := parseFile(b)
	if err != nil {
		return err
	}
	if fh.name != "CMT" || fh.unpSize > maxComment || fh.flags&hflSplitAfter != 0 {
		return r.vol.skip(b.dataSize)
	}
	// Read the comment through the entry machinery.
	r.begin(fh)
	data, err := io.ReadAll(io.LimitReader(readerFunc(r.Read), maxComment+1))
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
func (r *reader) Next() (*archive.Entry, error) {
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
		var b block
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
		case headFile:
			fh, err := parseFile(&b)
			if err != nil {
				r.fatal = err
				return nil, err
			}
			if fh.flags&hflSplitBefore != 0 {
				// The rest of an entry whose start is in an earlier volume.
				if err := r.vol.skip(b.dataSize); err != nil {
					r.fatal = r.dataReadErr(err)
					return nil, r.fatal
				}
				continue
			}
			r.begin(fh)
			if fh.redirType == 0 && len(r.seen) < maxSeen {
				if r.seen == nil {
					r.seen = map[string]verify.Kind{}
				}
				if _, ok := r.seen[fh.name]; !ok {
					r.seen[fh.name] = r.entry.Checksum
				}
			}
			return &r.entry, nil
		case headService:
			if err := r.service(&b); err != nil {
				r.fatal = r.dataReadErr(err)
				return nil, r.fatal
			}
		case headEnd:
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
func (r *reader) begin(fh *fileHeader) {
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
		Method:     method(fh),
	}
	if r.partSplit {
		e.PackedSize = -1
	}
	r.copyOf = ""
	switch {
	case fh.redirType == redirUnixSymlink:
		e.Type = archive.TypeSymlink
		e.Linkname = fh.redirName
	case fh.redirType == redirWinSymlink || fh.redirType == redirJunction:
		e.Type = archive.TypeSymlink
		e.Linkname = r.windowsTarget(fh.name, fh.redirName)
	case fh.redirType == redirFileCopy && r.again != nil && fh.redirName != "":
		// A copy of an earlier file, made an independent file as unrar
		// does: its data is the source's, read again from the archive
		// and checked by the source's checksum there. (The record's own
		// checksum is that of its empty data.)
		r.copyOf = slashName(fh.redirName)
		e.Type = archive.TypeFile
	case fh.redirType == redirHardLink || fh.redirType == redirFileCopy:
		// A file copy read from a stream, whose source cannot be read
		// again, is marked Copy: a sink copies the file it extracted.
		e.Type = archive.TypeHardlink
		e.Linkname = slashName(fh.redirName)
		e.Copy = fh.redirType == redirFileCopy
	case fh.fflags&fhflDir != 0:
		e.Type = archive.TypeDir
	default:
		e.Type = archive.TypeFile
	}
	if e.Type != archive.TypeFile && !e.Copy {
		e.Size = 0
	}
	e.Mode = mode(fh, e.Type)
	switch {
	case e.Copy || r.copyOf != "":
		// Decoded again from the source (or copied from the file made
		// of it), whose check covers these bytes.
		e.Checksum = r.seen[slashName(fh.redirName)]
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

// method names an entry's compression as "store" or "mN:DICT".
func method(fh *fileHeader) string {
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

// hostUnix is the host system whose attributes are Unix modes; the other
// (0, Windows) has DOS attributes.
const hostUnix = 1

// mode converts an entry's attributes to permission bits.
func mode(fh *fileHeader, t archive.Type) fs.FileMode {
	if fh.hostOS == hostUnix {
		return archive.UnixMode(uint32(fh.attr))
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
