package udf

import (
	"bytes"
	"encoding/binary"
	"io"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// File types of an ICB (ECMA-167 4/14.6.6).
const (
	ftDirectory = 4
	ftFile      = 5
	ftBlock     = 6
	ftChar      = 7
	ftFIFO      = 9
	ftSocket    = 10
	ftSymlink   = 12
	ftMetadata  = 250
)

// Allocation descriptor kinds, in the ICB tag's flags.
const (
	adShort    = 0
	adLong     = 1
	adExtended = 2
	adEmbedded = 3
)

// maxAllocExtents bounds the allocation extent descriptors followed for
// one file entry.
const maxAllocExtents = 1024

// span is a run of a file's data: at off in the image, or zeros (off -1).
type span struct {
	off, length int64
}

// fileEntry is what a (extended) file entry says.
type fileEntry struct {
	typ      byte
	flags    uint16 // ICB tag flags
	perm     uint32
	size     int64 // information length
	mtime    time.Time
	atime    time.Time
	spans    []span
	embedded []byte // data recorded in the entry itself
}

// image reads blocks of the volume's partitions.
type image struct {
	ra   io.ReaderAt
	size int64
	v    *volume
	fe   fileEntry // the file entry read last (see entry)

	// win holds the image's bytes from winOff: blocks are read a window
	// at a time (see block).
	win    []byte
	winOff int64
}

// window is how much of the image block reads at once: the file entries
// of a directory's files usually lie one after another, and one call for
// sixteen of them costs less than sixteen.
const window = 16 * blockSize

// offset maps block of partition reference part to a byte offset in the
// image.
func (m *image) offset(part uint16, block uint32) (int64, error) {
	if int(part) >= len(m.v.parts) {
		return 0, archive.Corruptf("udf: partition reference %d of %d", part, len(m.v.parts))
	}
	p := m.v.parts[part]
	if p.meta != nil {
		for _, s := range p.meta {
			if block >= s.first && block-s.first < s.count {
				return m.offset(uint16(p.phys), s.at+(block-s.first))
			}
		}
		return 0, archive.Corruptf("udf: metadata block %d is not in the metadata file", block)
	}
	if p.size != 0 && block >= p.size {
		return 0, archive.Corruptf("udf: block %d past partition %d's %d blocks", block, part, p.size)
	}
	return (int64(p.start) + int64(block)) * blockSize, nil
}

// block reads one block and checks the descriptor tag at its start. The
// block is in m's window buffer, valid until the next call: a thousand
// file entries are read through it, not each into a buffer of its own.
func (m *image) block(part uint16, block uint32) ([]byte, uint16, error) {
	off, err := m.offset(part, block)
	if err != nil {
		return nil, 0, err
	}
	b, err := m.read(off)
	if err != nil {
		return nil, 0, err
	}
	id, err := tag(b, block, true)
	return b, id, err
}

// read returns the block at byte off of the image: from the window when
// it is there, else from a new window read from off (as much of window
// bytes as the image has). Where that read fails before the block's end,
// the block is read alone, so that its failure is the block's own.
func (m *image) read(off int64) ([]byte, error) {
	if off >= m.winOff && off-m.winOff <= int64(len(m.win))-blockSize {
		return m.win[off-m.winOff:][:blockSize], nil
	}
	if m.win == nil {
		m.win = make([]byte, window)
	}
	buf := m.win[:cap(m.win)]
	m.win, m.winOff = m.win[:0], 0
	if n := min(int64(len(buf)), m.size-off); n > blockSize {
		k, _ := m.ra.ReadAt(buf[:n], off)
		if k >= blockSize {
			m.win, m.winOff = buf[:k], off
			return buf[:blockSize], nil
		}
	}
	b := buf[:blockSize]
	if _, err := m.ra.ReadAt(b, off); err != nil {
		return nil, readErr(err)
	}
	return b, nil
}

// entry reads the file entry at (part, block). What it returns is m's,
// valid until the next call (its spans too), as the block is.
func (m *image) entry(part uint16, block uint32) (*fileEntry, error) {
	b, id, err := m.block(part, block)
	if err != nil {
		return nil, err
	}
	fe := &m.fe
	*fe = fileEntry{typ: b[27], flags: binary.LittleEndian.Uint16(b[34:]), spans: fe.spans[:0]}
	if st := binary.LittleEndian.Uint16(b[16+4:]); st != 4 {
		return nil, archive.Unsupportedf("udf: ICB strategy %d", st)
	}
	fe.perm = binary.LittleEndian.Uint32(b[44:])
	fe.size = int64(binary.LittleEndian.Uint64(b[56:]))
	var eaLen, adLen uint32
	var adAt int
	switch id {
	case tagFileEntry:
		fe.atime, fe.mtime = timestamp(b[72:]), timestamp(b[84:])
		eaLen, adLen, adAt = binary.LittleEndian.Uint32(b[168:]), binary.LittleEndian.Uint32(b[172:]), 176
	case tagExtFileEntry:
		fe.atime, fe.mtime = timestamp(b[80:]), timestamp(b[92:])
		eaLen, adLen, adAt = binary.LittleEndian.Uint32(b[208:]), binary.LittleEndian.Uint32(b[212:]), 216
	default:
		return nil, archive.Corruptf("udf: block %d holds descriptor %d, not a file entry", block, id)
	}
	if fe.size < 0 || uint64(adAt)+uint64(eaLen)+uint64(adLen) > blockSize {
		return nil, archive.Corruptf("udf: file entry at block %d: sizes out of range", block)
	}
	ads := b[adAt+int(eaLen) : adAt+int(eaLen)+int(adLen)]
	if fe.flags&7 == adEmbedded {
		if int64(len(ads)) < fe.size {
			return nil, archive.Corruptf("udf: file entry at block %d embeds %d of %d bytes", block, len(ads), fe.size)
		}
		fe.embedded = bytes.Clone(ads[:fe.size]) // the block's buffer is reused
		return fe, nil
	}
	if err := m.spans(fe, ads, part); err != nil {
		return nil, err
	}
	return fe, nil
}

// spans reads allocation descriptors into fe.spans, following allocation
// extent descriptors, up to the entry's size.
func (m *image) spans(fe *fileEntry, ads []byte, part uint16) error {
	kind := fe.flags & 7
	var total int64
	for hops := 0; ; {
		var next *longAd
		for len(ads) > 0 && total < fe.size {
			var ad longAd
			switch kind {
			case adShort:
				if len(ads) < 8 {
					return archive.Corruptf("udf: short allocation descriptor cut")
				}
				ad = longAd{binary.LittleEndian.Uint32(ads), binary.LittleEndian.Uint32(ads[4:]), part}
				ads = ads[8:]
			case adLong:
				if len(ads) < 16 {
					return archive.Corruptf("udf: long allocation descriptor cut")
				}
				ad = readLongAd(ads)
				ads = ads[16:]
			case adExtended:
				if len(ads) < 20 {
					return archive.Corruptf("udf: extended allocation descriptor cut")
				}
				ad = longAd{binary.LittleEndian.Uint32(ads), binary.LittleEndian.Uint32(ads[12:]), binary.LittleEndian.Uint16(ads[16:])}
				ads = ads[20:]
			default:
				return archive.Unsupportedf("udf: allocation descriptor kind %d", kind)
			}
			length := int64(ad.length & 0x3FFFFFFF)
			switch ad.length >> 30 {
			case 3:
				a := ad
				next = &a
				ads = nil
				continue
			case 1, 2: // allocated or not, but not recorded: zeros
				fe.spans = append(fe.spans, span{-1, length})
			default:
				if length == 0 {
					ads = nil // the end of the descriptors
					continue
				}
				off, err := m.offset(ad.part, ad.block)
				if err != nil {
					return err
				}
				// A recorded extent is contiguous in its partition; in a
				// metadata partition every block is mapped on its own.
				if m.v.parts[ad.part].meta != nil {
					for b := int64(0); b < length; b += blockSize {
						o, err := m.offset(ad.part, ad.block+uint32(b/blockSize))
						if err != nil {
							return err
						}
						fe.spans = append(fe.spans, span{o, min(blockSize, length-b)})
					}
				} else {
					fe.spans = append(fe.spans, span{off, length})
				}
			}
			total += length
		}
		if next == nil || total >= fe.size {
			break
		}
		if hops++; hops > maxAllocExtents {
			return errAllocExtents
		}
		b, id, err := m.block(next.part, next.block)
		if err != nil {
			return err
		}
		if id != tagAllocExtent {
			return archive.Corruptf("udf: allocation extent at block %d is descriptor %d", next.block, id)
		}
		n := binary.LittleEndian.Uint32(b[20:])
		if n > blockSize-24 {
			return archive.Corruptf("udf: allocation extent of %d bytes", n)
		}
		ads, part = b[24:24+n], next.part
	}
	if total < fe.size {
		return archive.Corruptf("udf: file entry describes %d of %d bytes", total, fe.size)
	}
	// The last extent is rounded up to whole blocks: trim to the size.
	excess := total - fe.size
	for i := len(fe.spans) - 1; i >= 0 && excess > 0; i-- {
		cut := min(excess, fe.spans[i].length)
		fe.spans[i].length -= cut
		excess -= cut
	}
	return nil
}

// metadataSpans reads the metadata file's entry at block fileLoc of
// physical partition phys and returns where the metadata partition's
// blocks are.
func metadataSpans(ra io.ReaderAt, size int64, v *volume, phys int, fileLoc uint32) ([]metaSpan, error) {
	m := &image{ra: ra, size: size, v: v}
	fe, err := m.entry(uint16(phys), fileLoc)
	if err != nil {
		return nil, err
	}
	if fe.typ != ftMetadata {
		return nil, archive.Corruptf("udf: the metadata file entry has type %d", fe.typ)
	}
	start := int64(v.parts[phys].start) * blockSize
	var spans []metaSpan
	var first uint32
	for _, s := range fe.spans {
		if s.off < 0 || s.off < start || s.length%blockSize != 0 {
			return nil, archive.Corruptf("udf: metadata file extent not recorded whole")
		}
		n := uint32(s.length / blockSize)
		spans = append(spans, metaSpan{first: first, count: n, at: uint32((s.off - start) / blockSize)})
		first += n
	}
	return spans, nil
}

// timestamp decodes a 12-byte timestamp (ECMA-167 1/7.3): the type and
// time zone, year, month, day, hour, minute, second, centi-, hundreds of
// micro- and microseconds. It gives what time.Date would in the zone
// (then in UTC), with the seconds counted directly: time.Date and a
// FixedZone for every entry's two times were a tenth of a small image's
// run. Fields out of range (a damaged entry) are normalised as time.Date
// does them: days, hours, minutes, seconds and fractions past their ends
// count on, months out of range go through time.Date.
func timestamp(b []byte) time.Time {
	_ = b[11]
	tz := binary.LittleEndian.Uint16(b)
	year := int64(int16(binary.LittleEndian.Uint16(b[2:])))
	if year == 0 && b[4] == 0 {
		return time.Time{}
	}
	var off int64 // minutes east of UTC
	if tz>>12 == 1 {
		if o := int64(int16(tz<<4) >> 4); o != -2047 { // 12-bit signed; -2047: not given
			off = o
		}
	}
	ns := int64(b[9])*10_000_000 + int64(b[10])*100_000 + int64(b[11])*1000
	if b[4] < 1 || b[4] > 12 {
		// Whole seconds of ns apart: up to 2.58e9 ns overflow a 32-bit int.
		return time.Date(int(year), time.Month(b[4]), int(b[5]), int(b[6]), int(b[7]), int(b[8])+int(ns/1e9), int(ns%1e9), time.FixedZone("", int(off)*60)).UTC()
	}
	days := daysFromCivil(year, int64(b[4]), int64(b[5]))
	secs := days*86400 + int64(b[6])*3600 + int64(b[7])*60 + int64(b[8]) - off*60
	return time.Unix(secs, ns).UTC()
}

// daysFromCivil is the number of days from 1970-01-01 to the date y-m-d of
// the proleptic Gregorian calendar (m from 1 to 12; d counts on past the
// month's end, as in time.Date), for any year: H. Hinnant's
// days_from_civil, with years starting in March so that a leap day ends
// one. (iso9660 has its own copy, for years from 1900 on.)
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399 // floor division below
	}
	era /= 400
	yoe := y - era*400          // [0, 399]
	mp := (m + 9) % 12          // March is 0
	doy := (153*mp+2)/5 + d - 1 // day of the year from March 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468 // 719468: 0000-03-01 to 1970-01-01
}
