package iso9660

import (
	"bytes"
	"encoding/binary"
	"hash"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/inflate"
	"github.com/unpack-dev/unpack/internal/verify"
)

// zisofsMagic starts a zisofs file's header.
var zisofsMagic = []byte{0x37, 0xE4, 0x53, 0x96, 0xC9, 0xDB, 0xD6, 0x07}

// zisofs decompresses a zisofs file: a header, a table of block offsets,
// and blocks each one zlib stream (or none: a block of zeros), each
// checked by its Adler-32.
type zisofs struct {
	src     *io.SectionReader // the stored data (one extent)
	size    int64             // uncompressed size
	block   int64             // block size
	ptrs    []uint32          // block offsets in src, one more than blocks
	next    int               // next block to decode
	out     []byte
	outPos  int
	inf     *inflate.Inflater
	comp    []byte
	adler   hash.Hash32
	err     error
	scratch [16]byte
}

func newZisofs(ra io.ReaderAt, exts []extent, zf zisofsInfo, limit int64) (io.ReadCloser, error) {
	if len(exts) != 1 {
		return nil, archive.Unsupportedf("iso9660: a zisofs file in %d extents", len(exts))
	}
	src := io.NewSectionReader(ra, exts[0].start, exts[0].size)
	z := &zisofs{src: src}
	h := z.scratch[:16]
	if _, err := src.ReadAt(h, 0); err != nil {
		return nil, readErr(err)
	}
	if !bytes.Equal(h[:8], zisofsMagic) {
		return nil, archive.Corruptf("iso9660: zisofs file without its header")
	}
	z.size = int64(binary.LittleEndian.Uint32(h[8:]))
	hdrLen, log2 := int64(h[12])*4, h[13]
	if log2 < 15 || log2 > 17 || hdrLen < 16 {
		return nil, archive.Corruptf("iso9660: zisofs header: block size 2^%d, header of %d bytes", log2, hdrLen)
	}
	if z.size != int64(zf.size) {
		return nil, archive.Corruptf("iso9660: zisofs sizes differ (%d in the header, %d in the ZF entry)", z.size, zf.size)
	}
	z.block = 1 << log2
	if z.block > limit {
		return nil, archive.Limitf("iso9660: zisofs block of %d bytes exceeds the memory limit", z.block)
	}
	blocks := (z.size + z.block - 1) / z.block
	if (blocks+1)*4 > limit {
		return nil, archive.Limitf("iso9660: a zisofs block table of %d bytes exceeds the memory limit", (blocks+1)*4)
	}
	if (blocks+1)*4 > exts[0].size-hdrLen {
		return nil, archive.Corruptf("iso9660: zisofs block table runs past the file's data")
	}
	table := make([]byte, (blocks+1)*4)
	if _, err := src.ReadAt(table, hdrLen); err != nil {
		return nil, readErr(err)
	}
	z.ptrs = make([]uint32, blocks+1)
	for i := range z.ptrs {
		z.ptrs[i] = binary.LittleEndian.Uint32(table[4*i:])
		if int64(z.ptrs[i]) > exts[0].size || i > 0 && z.ptrs[i] < z.ptrs[i-1] {
			return nil, archive.Corruptf("iso9660: zisofs block table out of order or past the data")
		}
	}
	z.out = make([]byte, 0, z.block)
	return z, nil
}

func (z *zisofs) Read(p []byte) (int, error) {
	for z.outPos == len(z.out) {
		if z.err != nil {
			return 0, z.err
		}
		if z.next >= len(z.ptrs)-1 {
			return 0, io.EOF
		}
		z.err = z.decodeBlock()
	}
	n := copy(p, z.out[z.outPos:])
	z.outPos += n
	return n, nil
}

// decodeBlock decodes block z.next into z.out.
func (z *zisofs) decodeBlock() error {
	i := z.next
	z.next++
	want := min(z.block, z.size-int64(i)*z.block)
	z.out = z.out[:want]
	z.outPos = 0
	start, end := int64(z.ptrs[i]), int64(z.ptrs[i+1])
	if start == end {
		clear(z.out) // a block of zeros, stored as nothing
		return nil
	}
	if end-start > 2*z.block+64 {
		return archive.Corruptf("iso9660: zisofs block %d of %d bytes", i, end-start)
	}
	if cap(z.comp) < int(end-start) {
		z.comp = make([]byte, end-start)
	}
	comp := z.comp[:end-start]
	if _, err := z.src.ReadAt(comp, start); err != nil {
		return readErr(err)
	}
	if len(comp) < 6 || comp[0]&0x0F != 8 || comp[0]>>4 > 7 || comp[1]&0x20 != 0 || (uint16(comp[0])<<8|uint16(comp[1]))%31 != 0 {
		return archive.Corruptf("iso9660: zisofs block %d: no zlib header", i)
	}
	if z.inf == nil {
		z.inf = inflate.NewInflater(bytes.NewReader(comp[2:]), false)
	} else {
		z.inf.Reset(bytes.NewReader(comp[2:]))
	}
	n, err := io.ReadFull(z.inf, z.out)
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return archive.Corruptf("iso9660: zisofs block %d decodes to %d bytes, want %d", i, n, want)
		}
		return archive.Corruptf("iso9660: zisofs block %d: %v", i, err)
	}
	var one [1]byte
	if m, err := z.inf.Read(one[:]); m != 0 || err != io.EOF {
		return archive.Corruptf("iso9660: zisofs block %d decodes to more than %d bytes", i, want)
	}
	rest := z.inf.Rest()
	if len(rest) < 4 {
		return archive.Corruptf("iso9660: zisofs block %d has no Adler-32", i)
	}
	if z.adler == nil {
		z.adler = verify.New(verify.Adler32).(hash.Hash32)
	}
	z.adler.Reset()
	z.adler.Write(z.out)
	stored, got := binary.BigEndian.Uint32(rest), z.adler.Sum32()
	if stored != got {
		return &verify.MismatchError{Kind: verify.Adler32,
			Want: binary.BigEndian.AppendUint32(nil, stored), Got: binary.BigEndian.AppendUint32(nil, got)}
	}
	return nil
}

func (z *zisofs) Close() error { return nil }
