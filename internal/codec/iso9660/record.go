package iso9660

import (
	"bytes"
	"encoding/binary"
	"io"
	"io/fs"
	"math/bits"
	"strings"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Directory record flags (ECMA-119 9.1.6).
const (
	flagDir         = 0x02
	flagAssociated  = 0x04
	flagMultiExtent = 0x80
)

// minRecord is the length of a directory record with a one-byte name.
const minRecord = 34

// record is one directory record.
type record struct {
	extent uint32 // first sector of the data
	size   uint32 // data length
	flags  byte
	date   []byte // recording date, 7 bytes, decoded by shortTime when needed
	name   []byte // file identifier as stored
	sua    []byte // system use area (Rock Ridge)
}

func (r *record) dir() bool { return r.flags&flagDir != 0 }

// parseRecord decodes the directory record at the start of b and returns
// it with its length.
func parseRecord(b []byte) (record, int, error) {
	if len(b) < minRecord-1 || int(b[0]) < minRecord-1 || int(b[0]) > len(b) {
		return record{}, 0, archive.Corruptf("iso9660: directory record of %d bytes", b[0])
	}
	n := int(b[0])
	nameLen := int(b[32])
	if 33+nameLen > n {
		return record{}, 0, archive.Corruptf("iso9660: directory record name runs past the record")
	}
	r := record{
		extent: binary.LittleEndian.Uint32(b[2:]),
		size:   binary.LittleEndian.Uint32(b[10:]),
		flags:  b[25],
		date:   b[18:25],
		name:   b[33 : 33+nameLen],
	}
	sua := 33 + nameLen
	if nameLen%2 == 0 {
		sua++ // padding byte after an even-length name
	}
	if sua < n {
		r.sua = b[sua:n]
	}
	return r, n, nil
}

// shortTime decodes a 7-byte date (ECMA-119 9.1.5): years since 1900,
// month, day, hour, minute, second, offset from GMT in 15-minute units.
// It gives what time.Date would in UTC, moved by the offset, with the
// seconds counted directly: the date of every record and Rock Ridge
// entry goes through it, and time.Date's normalisation took a fifth of a
// small image's whole run. Fields out of range (a damaged record) are
// normalised as time.Date does them: days, hours, minutes and seconds
// past their ends simply count on, months past December go to it.
func shortTime(b []byte) time.Time {
	_ = b[6]
	if b[0] == 0 && b[1] == 0 && b[2] == 0 {
		return time.Time{}
	}
	if b[1] < 1 || b[1] > 12 {
		return inZone(time.Date(1900+int(b[0]), time.Month(b[1]), int(b[2]), int(b[3]), int(b[4]), int(b[5]), 0, time.UTC), b[6])
	}
	days := daysFromCivil(1900+int64(b[0]), int64(b[1]), int64(b[2]))
	secs := days*86400 + int64(b[3])*3600 + int64(b[4])*60 + int64(b[5]) - int64(int8(b[6]))*15*60
	return time.Unix(secs, 0).UTC()
}

// daysFromCivil is the number of days from 1970-01-01 to the date y-m-d of
// the proleptic Gregorian calendar (m from 1 to 12; d counts on past the
// month's end, as in time.Date), for years from 0 on: H. Hinnant's
// days_from_civil, with years starting in March so that a leap day ends
// one.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400          // [0, 399]
	mp := (m + 9) % 12          // March is 0
	doy := (153*mp+2)/5 + d - 1 // day of the year from March 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468 // 719468: 0000-03-01 to 1970-01-01
}

// longTime decodes a 17-byte date (ECMA-119 8.4.26.1): "YYYYMMDDHHMMSScc"
// in ASCII digits and a GMT offset byte.
func longTime(b []byte) time.Time {
	num := func(s []byte) int {
		v := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d := num(b[0:4]), num(b[4:6]), num(b[6:8])
	h, mi, s, cs := num(b[8:10]), num(b[10:12]), num(b[12:14]), num(b[14:16])
	if y <= 0 || mo <= 0 || d <= 0 || h < 0 || mi < 0 || s < 0 || cs < 0 {
		return time.Time{}
	}
	return inZone(time.Date(y, time.Month(mo), d, h, mi, s, cs*10_000_000, time.UTC), b[16])
}

// inZone turns t, a wall time read as UTC, into the instant it names at
// the GMT offset off (in 15-minute units), in UTC: time.Date in a
// FixedZone gives the same but allocates the zone, once per record.
func inZone(t time.Time, off byte) time.Time {
	return t.Add(-time.Duration(int8(off)) * 15 * time.Minute)
}

// isoName turns a plain ISO 9660 identifier into a name: the version
// (";1") and a dot before it with no extension are dropped.
func isoName(b []byte) []byte {
	if i := bytes.LastIndexByte(b, ';'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 1 && b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return b
}

// rockRidge is what the Rock Ridge entries of one record say.
type rockRidge struct {
	name      []byte // in the susp's buffer, until its next parse
	hasName   bool
	mode      uint32
	hasMode   bool
	serial    uint64 // file serial number (inode), 0 when not given
	mtime     time.Time
	atime     time.Time
	link      string
	isLink    bool
	childLink uint32 // CL: the relocated directory's extent
	hasChild  bool
	relocated bool // RE: this directory was moved here; its real place has a CL
	zf        *zisofsInfo
}

// zisofsInfo is a ZF entry: the file's data are zisofs-compressed.
type zisofsInfo struct {
	log2Block uint8
	size      uint32 // uncompressed
}

// susp walks the System Use Sharing Protocol entries of a record (after
// skip bytes), following continuation areas in the image.
type susp struct {
	ra   io.ReaderAt
	size int64
	skip int
	name []byte // the NM name of the last record parsed
}

// sig is a SUSP entry's two-letter signature as one number: a switch on
// it compares numbers, where one on string(area[:2]) made a string of the
// bytes for every entry.
func sig(a, b byte) uint16 { return uint16(a)<<8 | uint16(b) }

// The signatures of the SUSP and Rock Ridge entries read.
const (
	sigST = 'S'<<8 | 'T' // end of the system use area
	sigCE = 'C'<<8 | 'E' // continuation area
	sigNM = 'N'<<8 | 'M' // alternate name
	sigPX = 'P'<<8 | 'X' // POSIX attributes
	sigTF = 'T'<<8 | 'F' // time stamps
	sigSL = 'S'<<8 | 'L' // symbolic link
	sigCL = 'C'<<8 | 'L' // child link (a relocated directory)
	sigRE = 'R'<<8 | 'E' // relocated directory
	sigZF = 'Z'<<8 | 'F' // zisofs
)

// maxContinuations bounds the continuation areas followed for one record.
const maxContinuations = 16

// parse collects the Rock Ridge entries of a system use area.
func (s *susp) parse(sua []byte) (rockRidge, error) {
	var rr rockRidge
	var link strings.Builder
	name := s.name[:0]
	linkCont := false
	if len(sua) < s.skip {
		return rr, nil
	}
	area := sua[s.skip:]
	for hops := 0; ; hops++ {
		var next []byte
		for len(area) >= 4 {
			id, n := sig(area[0], area[1]), int(area[2])
			if n < 4 || n > len(area) {
				break // padding or damage: what came before stands
			}
			e := area[:n]
			area = area[n:]
			switch id {
			case sigST:
				area = nil
			case sigCE:
				if n < 28 {
					continue
				}
				block := int64(binary.LittleEndian.Uint32(e[4:]))
				off := int64(binary.LittleEndian.Uint32(e[12:]))
				length := int64(binary.LittleEndian.Uint32(e[20:]))
				at := block*sectorSize + off
				if length > sectorSize || at < 0 || at+length > s.size {
					return rr, archive.Corruptf("iso9660: Rock Ridge continuation area outside the image")
				}
				next = make([]byte, length)
				if _, err := s.ra.ReadAt(next, at); err != nil {
					return rr, readErr(err)
				}
			case sigNM:
				if n < 5 {
					continue
				}
				switch fl := e[4]; {
				case fl&0x02 != 0, fl&0x04 != 0:
					// "." or "..": records the walk skips anyway.
				default:
					name = append(name, e[5:]...)
					rr.hasName = true
				}
			case sigPX:
				if n < 36 {
					continue
				}
				rr.mode, rr.hasMode = binary.LittleEndian.Uint32(e[4:]), true
				if n >= 44 {
					rr.serial = uint64(binary.LittleEndian.Uint32(e[36:]))
				}
			case sigTF:
				parseTF(e, &rr)
			case sigSL:
				if n < 5 {
					continue
				}
				linkCont = parseSL(e[5:], &link, linkCont)
				rr.isLink = true
			case sigCL:
				if n >= 12 {
					rr.childLink, rr.hasChild = binary.LittleEndian.Uint32(e[4:]), true
				}
			case sigRE:
				rr.relocated = true
			case sigZF:
				if n >= 16 && string(e[4:6]) == "pz" {
					rr.zf = &zisofsInfo{log2Block: e[7], size: binary.LittleEndian.Uint32(e[8:])}
				}
			}
		}
		if next == nil {
			break
		}
		if hops >= maxContinuations {
			return rr, errContinuations
		}
		area = next
	}
	s.name = name
	rr.name, rr.link = name, link.String()
	return rr, nil
}

// parseTF reads the times of a TF entry: creation, modification, access,
// attributes… in flag order, 7 or 17 bytes each. Only the modification and
// access times are kept, and only they are decoded.
func parseTF(e []byte, rr *rockRidge) {
	if len(e) < 5 {
		return
	}
	flags := e[4]
	size := 7
	if flags&0x80 != 0 {
		size = 17
	}
	p := e[5:]
	for f := flags & 0x7F; f != 0; f &= f - 1 { // the times recorded, lowest bit first
		if len(p) < size {
			return
		}
		if bit := bits.TrailingZeros8(f); bit == 1 || bit == 2 {
			var t time.Time
			if size == 7 {
				t = shortTime(p[:7])
			} else {
				t = longTime(p[:17])
			}
			if bit == 1 {
				rr.mtime = t
			} else {
				rr.atime = t
			}
		} else if bit > 2 {
			return // the rest are neither
		}
		p = p[size:]
	}
}

// parseSL appends the components of an SL entry's data to link; cont says
// whether the last component of the previous SL entry continues here. It
// returns whether this one's last component continues.
func parseSL(p []byte, link *strings.Builder, cont bool) bool {
	for len(p) >= 2 {
		fl, n := p[0], int(p[1])
		if 2+n > len(p) {
			return false
		}
		data := p[2 : 2+n]
		p = p[2+n:]
		if !cont && link.Len() > 0 && !strings.HasSuffix(link.String(), "/") {
			link.WriteByte('/')
		}
		switch {
		case fl&0x02 != 0:
			link.WriteByte('.')
		case fl&0x04 != 0:
			link.WriteString("..")
		case fl&0x08 != 0:
			link.WriteByte('/')
		default:
			link.Write(data)
		}
		cont = fl&0x01 != 0
	}
	return cont
}

// posixMode turns a Rock Ridge st_mode into an fs.FileMode and an entry
// type.
func posixMode(m uint32) (archive.Type, fs.FileMode, string) {
	perm := archive.UnixMode(m)
	switch m & 0o170000 {
	case 0o040000:
		return archive.TypeDir, perm, ""
	case 0o120000:
		return archive.TypeSymlink, perm, ""
	case 0o020000:
		return archive.TypeOther, perm, "char device"
	case 0o060000:
		return archive.TypeOther, perm, "block device"
	case 0o010000:
		return archive.TypeOther, perm, "fifo"
	case 0o140000:
		return archive.TypeOther, perm, "socket"
	}
	return archive.TypeFile, perm, ""
}
