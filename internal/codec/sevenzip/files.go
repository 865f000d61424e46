package sevenzip

import (
	"unicode/utf16"
	"unsafe"

	"github.com/unpack-dev/unpack/internal/archive"
)

// database is the parsed header: streams and files, linked together.
type database struct {
	si    *streamsInfo // nil when the archive has no data streams
	files []file
}

// header parses a plain (not encoded) Header after its kHeader byte.
func (h *hreader) header() *database {
	db := &database{}
	t := h.number()
	if t == idArchiveProperties {
		for h.err == nil {
			if h.number() == idEnd {
				break
			}
			h.skipData()
		}
		t = h.number()
	}
	if t == idAdditionalStreamsInfo {
		h.streamsInfo() // never written by 7-Zip; parsed to be skipped
		t = h.number()
	}
	if t == idMainStreamsInfo {
		db.si = h.streamsInfo()
		t = h.number()
	}
	if t == idFilesInfo {
		h.filesInfo(db)
		t = h.number()
	}
	if h.err == nil && t != idEnd {
		h.fail()
	}
	if h.err != nil {
		return nil
	}
	if err := db.link(); err != nil {
		h.err = err
		return nil
	}
	return db
}

func (h *hreader) filesInfo(db *database) {
	numSub := 0
	if db.si != nil {
		numSub = len(db.si.subSizes)
	}
	// Without an empty-stream vector every file has a substream; with one,
	// the vector needs a bit per file.
	n := h.count(max(numSub, 8*h.remaining()))
	// Each file also becomes an archive.Entry.
	if !h.charge(n, int(unsafe.Sizeof(file{})+unsafe.Sizeof(archive.Entry{}))+32) {
		return
	}
	files := make([]file, n)
	for i := range files {
		files[i].hasStream = true
	}
	var emptyStream, emptyFile, anti []bool
	numEmpty := 0
	for h.err == nil {
		t := h.number()
		if t == idEnd {
			break
		}
		size := h.number()
		data := h.bytes(size)
		if h.err != nil {
			return
		}
		p := &hreader{b: data, budget: h.budget}
		switch t {
		case idEmptyStream:
			emptyStream = p.bits(n)
			numEmpty = 0
			for _, e := range emptyStream {
				if e {
					numEmpty++
				}
			}
			emptyFile, anti = nil, nil
		case idEmptyFile:
			emptyFile = p.bits(numEmpty)
		case idAnti:
			anti = p.bits(numEmpty)
		case idName:
			p.names(files)
		case idWinAttributes:
			def := p.defined(n)
			if p.byte() != 0 {
				p.fail()
			}
			for i := range files {
				if p.err == nil && def[i] {
					files[i].attrib, files[i].attribDefined = p.uint32(), true
				}
			}
		case idMTime, idATime, idCTime:
			def := p.defined(n)
			if p.byte() != 0 {
				p.fail()
			}
			for i := range files {
				if p.err != nil || !def[i] {
					continue
				}
				v := p.uint64()
				switch t {
				case idMTime:
					files[i].mtime = v
				case idATime:
					files[i].atime = v
				default:
					files[i].ctime = v
				}
			}
		}
		if p.err != nil {
			h.fail()
			return
		}
	}
	k := 0
	for i := range files {
		f := &files[i]
		if emptyStream == nil || !emptyStream[i] {
			continue
		}
		f.hasStream = false
		f.isDir = emptyFile == nil || !emptyFile[k]
		f.anti = anti != nil && anti[k]
		k++
	}
	db.files = files
}

// names decodes the kName property: an external flag, then one
// zero-terminated UTF-16LE name per file.
func (h *hreader) names(files []file) {
	if h.byte() != 0 {
		h.fail() // names in an additional stream: never written
		return
	}
	units := make([]uint16, 0, 64)
	for i := range files {
		units = units[:0]
		for {
			b := h.bytes(2)
			if b == nil {
				return
			}
			u := uint16(b[0]) | uint16(b[1])<<8
			if u == 0 {
				break
			}
			if len(units) >= maxNameUnits {
				h.fail()
				return
			}
			units = append(units, u)
		}
		files[i].name = string(utf16.Decode(units))
	}
	if h.remaining() != 0 {
		h.fail()
	}
}

// link assigns substreams to the files that have data and checks that the
// numbers agree, and lays the pack streams out.
func (db *database) link() error {
	if db.si == nil {
		db.si = &streamsInfo{}
	}
	if err := db.linkPacks(); err != nil {
		return err
	}
	return db.linkFiles()
}

// linkPacks gives each folder its first pack stream and its offset.
func (db *database) linkPacks() error {
	si := db.si
	// Pack stream offsets, relative to the end of the signature header.
	pos := si.packPos
	np := 0
	for i := range si.folders {
		f := &si.folders[i]
		f.firstPack = np
		np += len(f.packed)
		if np > len(si.packSizes) {
			return ErrBadHeader
		}
	}
	packOff := make([]int64, len(si.packSizes))
	for i, s := range si.packSizes {
		if pos > 1<<62 || s > 1<<62 {
			return ErrBadHeader
		}
		packOff[i] = int64(pos)
		pos += s
	}
	for i := range si.folders {
		f := &si.folders[i]
		if len(f.packed) > 0 {
			f.packStart = packOff[f.firstPack]
		}
	}
	return nil
}

// linkFiles gives the files with data the substreams in order, skipping
// folders that hold none.
func (db *database) linkFiles() error {
	si := db.si
	for i := range si.folders {
		si.folders[i].firstFile = -1
	}
	fi, left, sub := -1, 0, 0
	var off uint64
	for i := range db.files {
		fl := &db.files[i]
		if !fl.hasStream {
			continue
		}
		for left == 0 {
			fi++
			if fi >= len(si.folders) {
				return ErrBadHeader
			}
			left, off = si.folders[fi].numSub, 0
			si.folders[fi].firstFile = i
		}
		if sub >= len(si.subSizes) {
			return ErrBadHeader
		}
		fl.folder, fl.offset, fl.size = fi, off, si.subSizes[sub]
		fl.crc, fl.crcDefined = si.subCRCs[sub], si.subCRCDefined[sub]
		off += fl.size
		sub++
		left--
	}
	if sub != len(si.subSizes) {
		return ErrBadHeader
	}
	return nil
}
