package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// maxEncodedDepth bounds how often a header may itself be encoded.
const maxEncodedDepth = 4

// Open reads the signature header and the header database of a 7z archive
// (finding it behind an SFX stub, joining .001 volumes, decrypting an
// encrypted header with opt's passwords) and returns a reader of its
// entries. The reader also implements archive.RandomAccess.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	return open(in, opt)
}

func open(in *archive.Input, opt *archive.Options) (*Reader, error) {
	ra, size, closers, err := openSource(in, opt)
	if err != nil {
		return nil, err
	}
	r := &Reader{opt: opt, closers: closers, limit: opt.Limit(), cur: -1}
	if err := r.init(ra, size, in); err != nil {
		closeAll(closers)
		return nil, err
	}
	return r, nil
}

func (r *Reader) init(ra io.ReaderAt, size int64, in *archive.Input) error {
	base, sh, err := findSignature(ra, size)
	if err != nil {
		return err
	}
	r.src = folderSource{ra: ra, base: base + sigHeaderSize}
	if sh.unfinished {
		if err := r.recoverHeader(size); err != nil {
			return err
		}
	} else if sh.nextSize == 0 {
		r.db = &database{si: &streamsInfo{}}
	} else {
		end := uint64(r.src.base) + sh.nextOff + sh.nextSize
		if sh.nextOff > 1<<62 || sh.nextSize > 1<<62 || end > uint64(size) {
			if strings.HasSuffix(in.Path, ".001") {
				return archive.Errorf(archive.ErrMissingVolume, "7z: header beyond the last volume (%d bytes)", size)
			}
			return fmt.Errorf("%w: header at offset %d, size %d, beyond the end of the file (%d bytes)",
				ErrTruncated, uint64(r.src.base)+sh.nextOff, sh.nextSize, size)
		}
		if int64(sh.nextSize) > r.limit {
			return archive.Limitf("7z: header of %d bytes exceeds the memory limit", sh.nextSize)
		}
		buf := make([]byte, sh.nextSize)
		if _, err := ra.ReadAt(buf, r.src.base+int64(sh.nextOff)); err != nil {
			return ErrTruncated
		}
		if verify.SumCRC32(buf) != sh.nextCRC {
			return fmt.Errorf("%w at offset %d", ErrHeaderCRC, r.src.base+int64(sh.nextOff))
		}
		if err := r.readDatabase(buf); err != nil {
			return err
		}
	}
	r.src.packSize = r.db.si.packSizes
	r.src.packCRC, r.src.packCRCDefined = r.db.si.packCRCs, r.db.si.packCRCDefined
	return r.buildEntries(noName(in))
}

// maxHeaderScan bounds how far from the end recoverHeader looks.
const maxHeaderScan = 1 << 20

// recoverHeader finds the header of an archive whose signature header was
// never filled in (the writer was interrupted after writing the header), by
// trying each header start byte from the end backwards, as 7-Zip does.
func (r *Reader) recoverHeader(size int64) error {
	start := max(r.src.base, size-maxHeaderScan)
	buf := make([]byte, size-start)
	if _, err := r.src.ra.ReadAt(buf, start); err != nil && err != io.EOF {
		return ErrTruncated
	}
	for i := len(buf) - 1; i >= 0; i-- {
		if buf[i] != idHeader && buf[i] != idEncodedHeader {
			continue
		}
		r.db, r.headerEncrypted = nil, false
		err := r.readDatabase(buf[i:])
		if err == nil && len(r.db.files) > 0 {
			r.opt.Warnf("7z: the start header is empty; using the header found at offset " + strconv.FormatInt(start+int64(i), 10))
			return nil
		}
		if errors.Is(err, archive.ErrNeedPassword) || errors.Is(err, archive.ErrPassword) {
			return err
		}
	}
	return archive.Corruptf("7z: the start header is empty and no header was found near the end")
}

// noName is what 7-Zip calls an item stored without a name: the archive's
// name without its extension.
func noName(in *archive.Input) string {
	n := in.Path
	if n == "" {
		n = in.Name
	}
	n = filepath.Base(n)
	if strings.HasSuffix(n, ".001") {
		n = strings.TrimSuffix(n, ".001")
	}
	if ext := filepath.Ext(n); ext != "" && ext != n {
		n = strings.TrimSuffix(n, ext)
	}
	if n == "" || n == "-" || n == "." {
		n = "noname"
	}
	return n
}

// readDatabase parses the header, decoding it first when it is encoded
// (compressed, possibly encrypted).
func (r *Reader) readDatabase(buf []byte) error {
	for depth := 0; ; depth++ {
		budget := r.limit
		h := &hreader{b: buf, budget: &budget}
		switch h.number() {
		case idHeader:
			db := h.header()
			if h.err != nil {
				if r.headerEncrypted && !errors.Is(h.err, archive.ErrLimit) {
					return ErrWrongPassword
				}
				return h.err
			}
			if n := h.remaining(); n > 0 {
				r.opt.Warnf("7z: " + strconv.Itoa(n) + " unused bytes after the header")
			}
			r.db = db
			return nil
		case idEncodedHeader:
			if depth >= maxEncodedDepth {
				return ErrBadHeader
			}
			si := h.streamsInfo()
			if h.err != nil {
				return h.err
			}
			var err error
			if buf, err = r.decodeHeader(si); err != nil {
				return err
			}
		default:
			return ErrBadHeader
		}
	}
}

// decodeHeader decodes the folders of an encoded header into one buffer,
// trying each password when the header is encrypted.
func (r *Reader) decodeHeader(si *streamsInfo) ([]byte, error) {
	var total uint64
	encrypted := false
	for i := range si.folders {
		f := &si.folders[i]
		if f.numSub == 0 && len(si.folders) == 1 {
			f.numSub = 1
		}
		total += f.unpackSize()
		encrypted = encrypted || f.encrypted()
		if total > maxEncodedHeader || int64(total) > r.limit {
			return nil, archive.Limitf("7z: encoded header of more than %d bytes exceeds the memory limit", total)
		}
	}
	if err := (&database{si: si}).linkPacks(); err != nil {
		return nil, err
	}
	src := r.src
	src.packSize = si.packSizes
	src.packCRC, src.packCRCDefined = si.packCRCs, si.packCRCDefined
	if !encrypted {
		env := &decodeEnv{limit: r.limit, threads: r.threads(), keys: &r.keys}
		return decodeFolders(si, &src, env, total)
	}
	r.headerEncrypted = true
	pws, err := r.opt.PasswordList()
	if err != nil {
		if errors.Is(err, archive.ErrNeedPassword) {
			return nil, archive.Errorf(archive.ErrNeedPassword, "7z: encrypted header needs a password")
		}
		return nil, err
	}
	for _, pw := range pws {
		env := &decodeEnv{limit: r.limit, threads: r.threads(), password: pw, havePW: true, keys: &r.keys}
		buf, err := decodeFolders(si, &src, env, total)
		if err == nil {
			if h := (&hreader{b: buf}); h.number() == idHeader || h.err == nil && buf[0] == idEncodedHeader {
				r.password, r.havePW = pw, true
				r.opt.Accepted(pw)
				return buf, nil
			}
			continue
		}
		if errors.Is(err, archive.ErrUnsupported) || errors.Is(err, archive.ErrLimit) {
			return nil, err
		}
	}
	return nil, ErrWrongPassword
}

// decodeFolders decodes every folder of si, checking folder CRCs.
func decodeFolders(si *streamsInfo, src *folderSource, env *decodeEnv, total uint64) ([]byte, error) {
	defer env.release()
	buf := make([]byte, total)
	off := uint64(0)
	for i := range si.folders {
		f := &si.folders[i]
		fr, err := openFolder(f, src, env)
		if err != nil {
			return nil, err
		}
		part := buf[off : off+f.unpackSize()]
		if _, err := io.ReadFull(fr, part); err != nil {
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				err = ErrTruncated
			}
			return nil, corrupt(err)
		}
		if f.crcDefined && verify.SumCRC32(part) != f.crc {
			return nil, ErrHeaderCRC
		}
		off += f.unpackSize()
	}
	return buf, nil
}

// buildEntries turns the files into archive entries (anti-items, which
// mark deletions in update archives, are left out).
func (r *Reader) buildEntries(unnamed string) error {
	si := r.db.si
	methods := make([]string, len(si.folders))
	packed := make([]int64, len(si.folders))
	for i := range si.folders {
		f := &si.folders[i]
		methods[i] = folderMethod(f)
		for j := range f.packed {
			packed[i] += int64(si.packSizes[f.firstPack+j])
		}
	}
	anti := 0
	for i := range r.db.files {
		fl := &r.db.files[i]
		if fl.anti {
			anti++
			continue
		}
		e := &archive.Entry{
			Name:       fl.name,
			Size:       int64(fl.size),
			PackedSize: 0,
			ModTime:    filetime(fl.mtime),
			AccessTime: filetime(fl.atime),
			Encrypted:  r.headerEncrypted,
		}
		if e.Name == "" {
			e.Name = unnamed
		} else if strings.IndexByte(e.Name, '\\') >= 0 && strings.IndexByte(e.Name, '/') < 0 {
			// Written on Windows by a tool that kept its separator.
			e.Name = strings.ReplaceAll(e.Name, "\\", "/")
		}
		if fl.hasStream {
			f := &si.folders[fl.folder]
			e.Method = methods[fl.folder]
			e.Encrypted = e.Encrypted || f.encrypted()
			if f.firstFile == i {
				e.PackedSize = packed[fl.folder]
			}
			if fl.crcDefined {
				e.Checksum = verify.CRC32
				e.ChecksumValue = []byte{byte(fl.crc >> 24), byte(fl.crc >> 16), byte(fl.crc >> 8), byte(fl.crc)}
			}
		}
		setType(e, fl)
		if e.Type == archive.TypeSymlink {
			if r.ra.links == nil {
				r.ra.links = make(map[int][]int)
			}
			r.ra.links[fl.folder] = append(r.ra.links[fl.folder], len(r.entries))
		}
		r.entries = append(r.entries, e)
		r.fileOf = append(r.fileOf, i)
	}
	if anti > 0 {
		r.opt.Warnf("7z: skipped " + strconv.Itoa(anti) + " anti-items (deletion markers)")
	}
	return nil
}

// Windows and Unix attribute bits 7-Zip stores.
const (
	attrDirectory = 0x10
	attrUnixExt   = 0x8000
	sIFMT         = 0xF000
	sIFLNK        = 0xA000
	sIFDIR        = 0x4000
	sIFREG        = 0x8000
	sIFCHR        = 0x2000
	sIFBLK        = 0x6000
	sIFIFO        = 0x1000
	sIFSOCK       = 0xC000
)

// setType sets the entry's type and mode from the file's attributes: Unix
// mode in the high 16 bits when bit 0x8000 is set; a symlink is S_IFLNK with
// the target as its data.
func setType(e *archive.Entry, fl *file) {
	e.Type = archive.TypeFile
	if fl.isDir || fl.attribDefined && fl.attrib&attrDirectory != 0 {
		e.Type = archive.TypeDir
	}
	if !fl.attribDefined || fl.attrib&attrUnixExt == 0 {
		return
	}
	m := fl.attrib >> 16
	e.Mode = archive.UnixMode(uint32(m))
	switch m & sIFMT {
	case sIFLNK:
		if fl.hasStream && e.Type != archive.TypeDir {
			e.Type = archive.TypeSymlink
		}
	case sIFDIR:
		e.Type = archive.TypeDir
	case sIFCHR:
		e.Type, e.Device = archive.TypeOther, "char device"
	case sIFBLK:
		e.Type, e.Device = archive.TypeOther, "block device"
	case sIFIFO:
		e.Type, e.Device = archive.TypeOther, "fifo"
	case sIFSOCK:
		e.Type, e.Device = archive.TypeOther, "socket"
	}
}

// filetime converts a Windows FILETIME (100 ns since 1601) to time; zero
// stays the zero time.
func filetime(ft uint64) time.Time {
	if ft == 0 {
		return time.Time{}
	}
	const epochDiff = 116444736000000000 // 1601 to 1970 in 100 ns
	t := int64(ft - epochDiff)
	if ft < epochDiff {
		t = -int64(epochDiff - ft)
	}
	return time.Unix(t/1e7, t%1e7*100).UTC()
}
