// Package udf reads UDF file systems (ECMA-167 with the OSTA UDF
// profiles 1.02 to 2.60) as an archive.Reader: DVD and Blu-ray images,
// Windows installation images and the UDF side of UDF/ISO 9660 bridge
// images, where files over 4 GiB exist only in UDF. Physical, sparable
// and metadata partitions (UDF 2.50 and later) are read; virtual
// partitions (CD-R VAT) are not.
//
// Every descriptor's tag checksum, location and CRC are checked as it is
// read. File data carry no checksum in UDF. Directory loops, extents
// outside the image and partially overlapping file extents are refused as
// corrupt; names sharing one file entry are hard links to the first.
package udf

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// blockSize is the only logical block size read here: optical media and
// the images made of them use it.
const blockSize = 2048

// Descriptor tag identifiers (ECMA-167 3/7.2.1, 4/7.2.1).
const (
	tagPrimaryVD     = 1
	tagAnchor        = 2
	tagVDPointer     = 3
	tagPartition     = 5
	tagLogicalVolume = 6
	tagTerminating   = 8
	tagFileSet       = 256
	tagFileID        = 257
	tagAllocExtent   = 258
	tagFileEntry     = 261
	tagExtFileEntry  = 266
)

var (
	errTruncated = archive.Corruptf("udf: image cut short")
	// errDirLoop: a directory reached again below itself.
	errDirLoop = archive.Corruptf("udf: directory loop")
	// errDirTwice: a directory's file entry named again (a loop or a
	// hard link to a directory).
	errDirTwice = archive.Corruptf("udf: two names for one directory")
	// errAllocExtents: allocation extent descriptors that lead on and on.
	errAllocExtents = archive.Corruptf("udf: more than %d allocation extents", maxAllocExtents)
	// errDescriptorCRC: a descriptor whose CRC does not match its bytes.
	errDescriptorCRC = archive.Corruptf("udf: descriptor CRC mismatch")
	// errMisplaced: a descriptor whose tag names another block than its own.
	errMisplaced = archive.Corruptf("udf: misplaced descriptor")
)

// Present reports whether the image in ra has a UDF volume recognition
// sequence (an NSR02 or NSR03 descriptor after BEA01, from sector 16).
func Present(ra io.ReaderAt, size int64) bool {
	var b [8]byte
	bea := false
	for s := int64(16); s < 16+64 && (s+1)*blockSize <= size; s++ {
		if _, err := ra.ReadAt(b[:], s*blockSize); err != nil {
			return false
		}
		switch string(b[1:6]) {
		case "BEA01":
			bea = true
		case "NSR02", "NSR03":
			return bea
		case "TEA01":
			return false
		case "CD001", "BOOT2", "CDW02":
		default:
			return false
		}
	}
	return false
}

// tag checks the descriptor tag at the start of d, read from block loc
// (of its partition, or absolute; checked when checkLoc is set), and
// returns its identifier.
func tag(d []byte, loc uint32, checkLoc bool) (uint16, error) {
	if len(d) < 16 {
		return 0, errTruncated
	}
	id := binary.LittleEndian.Uint16(d)
	if tagSum(d) != d[4] {
		return id, archive.Corruptf("udf: descriptor at block %d: tag checksum does not add up", loc)
	}
	if got := binary.LittleEndian.Uint32(d[12:]); checkLoc && got != loc {
		return id, archive.Corruptf("%w: at block %d, says it is at block %d", errMisplaced, loc, got)
	}
	n := int(binary.LittleEndian.Uint16(d[10:]))
	if 16+n > len(d) {
		return id, archive.Corruptf("udf: descriptor at block %d: CRC length %d runs past it", loc, n)
	}
	if want, got := binary.LittleEndian.Uint16(d[8:]), verify.SumCRC16ITU(d[16:16+n]); want != got {
		return id, archive.Corruptf("%w: at block %d, stored %04x, computed %04x", errDescriptorCRC, loc, want, got)
	}
	return id, nil
}

// tagSum is the tag checksum of the 16-byte tag at the start of d: the
// sum modulo 256 of its bytes but the checksum's own (byte 4). The bytes
// are added in 16-bit lanes, eight pairs at a time, and the lanes summed
// by one multiplication (no lane passes 4 × 2 × 255).
func tagSum(d []byte) byte {
	const lo = 0x00FF00FF00FF00FF
	x, y := binary.LittleEndian.Uint64(d), binary.LittleEndian.Uint64(d[8:16])
	lanes := x&lo + x>>8&lo + y&lo + y>>8&lo
	return byte(lanes*0x0001000100010001>>48) - d[4]
}

// extentAd is an extent_ad: a length and an absolute block.
type extentAd struct{ length, loc uint32 }

func readExtentAd(b []byte) extentAd {
	return extentAd{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])}
}

// longAd is a long_ad: an extent in a partition.
type longAd struct {
	length uint32 // with the extent type in its top two bits
	block  uint32
	part   uint16
}

func readLongAd(b []byte) longAd {
	return longAd{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint16(b[8:])}
}

// partition maps a partition reference's blocks to image blocks.
type partition struct {
	start uint32     // physical partition: first block in the image
	size  uint32     // in blocks
	meta  []metaSpan // metadata partition: where its blocks are, in phys
	phys  int        // metadata partition: the physical partition reference
}

// metaSpan maps blocks [first, first+count) of a metadata partition to
// block at of its physical partition.
type metaSpan struct{ first, count, at uint32 }

// volume is what the volume descriptors say: the partitions and where the
// file set descriptor is.
type volume struct {
	parts   []partition
	fileSet longAd
}

// readVolume reads the anchor and the main volume descriptor sequence
// (falling back to the reserve sequence).
func readVolume(ra io.ReaderAt, size int64) (*volume, error) {
	var anchor [blockSize]byte
	var avdp []byte
	last := uint32(size/blockSize) - 1
	for _, loc := range []uint32{256, last - 256, last} {
		if int64(loc+1)*blockSize > size || loc == 0 {
			continue
		}
		if _, err := ra.ReadAt(anchor[:], int64(loc)*blockSize); err != nil {
			return nil, readErr(err)
		}
		if id, err := tag(anchor[:512], loc, true); err == nil && id == tagAnchor {
			avdp = anchor[:]
			break
		}
	}
	if avdp == nil {
		return nil, archive.Corruptf("udf: no anchor volume descriptor pointer")
	}
	main, reserve := readExtentAd(avdp[16:]), readExtentAd(avdp[24:])
	v, err := readSequence(ra, size, main)
	if err != nil {
		if v2, err2 := readSequence(ra, size, reserve); err2 == nil {
			return v2, nil
		}
		return nil, err
	}
	return v, nil
}

// maxDescriptors bounds the descriptors read in a volume descriptor
// sequence, pointers followed included.
const maxDescriptors = 256

func readSequence(ra io.ReaderAt, size int64, ext extentAd) (*volume, error) {
	parts := map[uint16][2]uint32{} // partition number → start, length
	var lvd []byte
	var b [blockSize]byte
	loc, end := ext.loc, ext.loc+ext.length/blockSize
	for n := 0; loc < end; n++ {
		if n >= maxDescriptors {
			return nil, archive.Corruptf("udf: volume descriptor sequence longer than %d", maxDescriptors)
		}
		if int64(loc+1)*blockSize > size {
			return nil, errTruncated
		}
		if _, err := ra.ReadAt(b[:], int64(loc)*blockSize); err != nil {
			return nil, readErr(err)
		}
		if allZero(b[:16]) {
			break // an unrecorded block ends the sequence
		}
		id, err := tag(b[:], loc, true)
		if err != nil {
			return nil, err
		}
		switch id {
		case tagVDPointer:
			next := readExtentAd(b[20:])
			loc, end = next.loc, next.loc+next.length/blockSize
			continue
		case tagPartition:
			num := binary.LittleEndian.Uint16(b[22:])
			parts[num] = [2]uint32{binary.LittleEndian.Uint32(b[188:]), binary.LittleEndian.Uint32(b[192:])}
		case tagLogicalVolume:
			lvd = append([]byte(nil), b[:]...)
		case tagTerminating:
			loc = end
			continue
		}
		loc++
	}
	if lvd == nil {
		return nil, archive.Corruptf("udf: no logical volume descriptor")
	}
	if bs := binary.LittleEndian.Uint32(lvd[212:]); bs != blockSize {
		return nil, archive.Unsupportedf("udf: logical block size %d", bs)
	}
	v := &volume{fileSet: readLongAd(lvd[248:])}
	mapLen, nMaps := binary.LittleEndian.Uint32(lvd[264:]), binary.LittleEndian.Uint32(lvd[268:])
	if 440+int64(mapLen) > int64(len(lvd)) {
		return nil, archive.Corruptf("udf: partition maps run past the logical volume descriptor")
	}
	maps := lvd[440 : 440+mapLen]
	var metaMaps []struct {
		ref      int
		num      uint16
		fileLoc  uint32
		physPart uint16
	}
	for i := uint32(0); i < nMaps; i++ {
		if len(maps) < 2 || int(maps[1]) < 2 || int(maps[1]) > len(maps) {
			return nil, archive.Corruptf("udf: partition map %d malformed", i)
		}
		m := maps[:maps[1]]
		maps = maps[maps[1]:]
		switch {
		case m[0] == 1 && len(m) >= 6:
			num := binary.LittleEndian.Uint16(m[4:])
			p, ok := parts[num]
			if !ok {
				return nil, archive.Corruptf("udf: partition %d has no descriptor", num)
			}
			v.parts = append(v.parts, partition{start: p[0], size: p[1]})
		case m[0] == 2 && len(m) >= 64:
			num := binary.LittleEndian.Uint16(m[38:])
			p, ok := parts[num]
			if !ok {
				return nil, archive.Corruptf("udf: partition %d has no descriptor", num)
			}
			ident := string(m[5:28])
			switch {
			case hasPrefix(ident, "*UDF Sparable Partition"):
				// Spared packets are a concern of the recorder; an image
				// reads straight.
				v.parts = append(v.parts, partition{start: p[0], size: p[1]})
			case hasPrefix(ident, "*UDF Metadata Partition"):
				metaMaps = append(metaMaps, struct {
					ref      int
					num      uint16
					fileLoc  uint32
					physPart uint16
				}{len(v.parts), num, binary.LittleEndian.Uint32(m[40:]), num})
				v.parts = append(v.parts, partition{start: p[0], size: p[1]})
			default:
				return nil, archive.Unsupportedf("udf: partition map %q", trimNul(ident))
			}
		default:
			return nil, archive.Unsupportedf("udf: partition map of type %d", m[0])
		}
	}
	// A metadata partition's blocks are those of its metadata file, whose
	// entry lies in the physical partition of the same number.
	for _, mm := range metaMaps {
		phys := -1
		for i, p := range v.parts {
			if i != mm.ref && p.meta == nil && p.start == v.parts[mm.ref].start {
				phys = i
			}
		}
		if phys < 0 {
			// No type 1 map of its own: the partition descriptor alone.
			phys = len(v.parts)
			v.parts = append(v.parts, partition{start: v.parts[mm.ref].start, size: v.parts[mm.ref].size})
		}
		spans, err := metadataSpans(ra, size, v, phys, mm.fileLoc)
		if err != nil {
			return nil, err
		}
		v.parts[mm.ref] = partition{meta: spans, phys: phys}
	}
	return v, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func trimNul(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}

func readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errTruncated
	}
	return err
}
