package wim

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// checkIntegrity verifies part p's integrity table, when it has one
// (wimlib-imagex capture --check, WIMGAPI's WIM_FLAG_VERIFY): the SHA-1
// of each chunk of the bytes from the end of the header to the end of the
// blob table. A mismatch names the chunk and its bytes.
func (r *Reader) checkIntegrity(p *part) error {
	t := p.hdr.integrity
	if t.offset == 0 && t.size == 0 {
		return nil
	}
	if t.flags&resCompressed != 0 || t.size < 12 || int64(t.usize) != t.size {
		return archive.Corruptf("wim: %sintegrity table header (%d bytes, flags %#x)", r.partName(p), t.size, t.flags)
	}
	if t.size > r.limit {
		return archive.Limitf("wim: %sintegrity table of %d bytes exceeds the memory limit", r.partName(p), t.size)
	}
	// readHeader made sure the table lies within the part.
	tab := make([]byte, t.size)
	if _, err := p.ra.ReadAt(tab, t.offset); err != nil {
		return readErr(err)
	}
	le := binary.LittleEndian
	size, n, chunk := int64(le.Uint32(tab)), int64(le.Uint32(tab[4:])), int64(le.Uint32(tab[8:]))
	end := p.hdr.blobTable.offset + p.hdr.blobTable.size
	if size != t.size || 12+20*n != size || chunk == 0 || end < headerSize || end > p.size ||
		(end-headerSize+chunk-1)/chunk != n {
		return archive.Corruptf("wim: %sintegrity table of %d chunks of %d bytes does not cover bytes %d to %d", r.partName(p), n, chunk, headerSize, end)
	}
	buf := make([]byte, min(chunk, 1<<20))
	h := sha1.New()
	var sum [sha1.Size]byte
	for i := int64(0); i < n; i++ {
		off := headerSize + i*chunk
		h.Reset()
		k := min(chunk, end-off)
		if got, err := io.CopyBuffer(h, io.NewSectionReader(p.ra, off, k), buf); err != nil || got != k {
			return readErr(cmp.Or(err, io.ErrUnexpectedEOF))
		}
		want := tab[12+20*i : 32+20*i]
		if !bytes.Equal(h.Sum(sum[:0]), want) {
			return archive.Errorf(archive.ErrChecksum, "wim: %sintegrity chunk %d of %d (bytes %d to %d): SHA-1 %x, table says %x",
				r.partName(p), i+1, n, off, min(off+chunk, end), sum, want)
		}
	}
	return nil
}

// partName names a part of a split set in messages ("part 2: "); nothing
// for a WIM of one part.
func (r *Reader) partName(p *part) string {
	if len(r.parts) < 2 {
		return ""
	}
	return fmt.Sprintf("part %d: ", p.hdr.part)
}
