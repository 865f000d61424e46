package cab

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzx"
	"github.com/unpack-dev/unpack/internal/codec/quantum"
)

// Compression methods (the low 4 bits of CFFOLDER's typeCompress).
const (
	methodNone    = 0
	methodMSZIP   = 1
	methodQuantum = 2
	methodLZX     = 3
)

// maxFrame bounds a compressed CFDATA block's uncompressed size, as the
// specification does; stored blocks are allowed the field's whole range.
const maxFrame = 32768

// part is the run of a folder's data blocks in one cabinet.
type part struct {
	cab     *cabinet
	off     int64
	nblocks int
}

// folder is a folder of the set: its parts in consecutive cabinets.
type folder struct {
	parts  []part
	comp   uint16
	broken error // the set ends before the folder does (a missing cabinet)
}

// methodName names a folder's compression as 7-Zip lists it.
func methodName(comp uint16) string {
	switch comp & 0x0F {
	case methodNone:
		return "None"
	case methodMSZIP:
		return "MSZip"
	case methodQuantum:
		return "Quantum:" + itoa(int(comp>>8&0x1F))
	case methodLZX:
		return "LZX:" + itoa(int(comp>>8&0x1F))
	}
	return "unknown"
}

func itoa(n int) string {
	if n >= 10 {
		return string(rune('0'+n/10)) + string(rune('0'+n%10))
	}
	return string(rune('0' + n))
}

// folderReader decodes a folder's data blocks in order, each one's
// checksum (when it has one) verified before it is decoded.
type folderReader struct {
	f         *folder
	pi, bi    int   // the next block: part, index in the part
	off       int64 // the next block's CFDATA header
	upos      int64 // uncompressed offset of the next byte Read gives
	out       []byte
	op        int
	unchecked bool // a block without a checksum was decoded
	err       error
	limit     int64

	hdr   [dataHdrSize + 255]byte
	data  []byte // one block, or a split block's two pieces
	frame []byte // decoded output of one block
	lzx   *lzx.Decoder
	lzxW  int
	qtm   *quantum.Decoder
	qtmW  int
	zip   *mszip
}

func newFolderReader(limit int64) *folderReader {
	return &folderReader{limit: limit, data: make([]byte, 0, 2*65536), frame: make([]byte, 65536)}
}

// reset positions the reader at the start of folder f.
func (r *folderReader) reset(f *folder) error {
	r.f, r.pi, r.bi, r.upos, r.out, r.op, r.err = f, 0, 0, 0, nil, 0, nil
	r.unchecked = false
	r.off = f.parts[0].off
	bits := int(f.comp >> 8 & 0x1F)
	switch f.comp & 0x0F {
	case methodNone:
	case methodMSZIP:
		if r.zip == nil {
			r.zip = newMSZIP()
		}
		r.zip.reset()
	case methodLZX:
		if bits < lzx.MinWindowBits || bits > lzx.MaxWindowBits {
			return lzx.ErrWindow
		}
		if lzx.BufferSize(bits, lzx.CAB) > r.limit {
			return archive.Limitf("cab: LZX window of %d bytes is over the memory limit", int64(1)<<bits)
		}
		if r.lzx == nil || r.lzxW != bits {
			d, err := lzx.NewDecoder(bits, lzx.CAB)
			if err != nil {
				return err
			}
			r.lzx, r.lzxW = d, bits
		}
		r.lzx.Reset()
	case methodQuantum:
		if bits < quantum.MinWindowBits || bits > quantum.MaxWindowBits {
			return quantum.ErrWindow
		}
		if int64(1)<<bits > r.limit {
			return archive.Limitf("cab: Quantum window of %d bytes is over the memory limit", int64(1)<<bits)
		}
		if r.qtm == nil || r.qtmW != bits {
			d, err := quantum.NewDecoder(bits)
			if err != nil {
				return err
			}
			r.qtm, r.qtmW = d, bits
		}
		r.qtm.Reset()
	default:
		return ErrMethod
	}
	return nil
}

// readPiece reads the next CFDATA of the folder: its data appended to
// r.data, its checksum verified. It returns the uncompressed size, and
// whether the block was the last of its part.
func (r *folderReader) readPiece() (int, bool, error) {
	if r.pi >= len(r.f.parts) {
		if r.f.broken != nil {
			return 0, false, r.f.broken
		}
		return 0, false, io.EOF
	}
	p := &r.f.parts[r.pi]
	if r.bi >= p.nblocks {
		if r.f.broken != nil {
			return 0, false, r.f.broken
		}
		return 0, false, io.EOF
	}
	hn := dataHdrSize + p.cab.dataRes
	h := r.hdr[:hn]
	if n, err := p.cab.ra.ReadAt(h, r.off); n < hn {
		return 0, false, ioErr(err)
	}
	sum := binary.LittleEndian.Uint32(h)
	cbData := int(binary.LittleEndian.Uint16(h[4:]))
	cbUncomp := int(binary.LittleEndian.Uint16(h[6:]))
	start := len(r.data)
	r.data = r.data[:start+cbData]
	if n, err := p.cab.ra.ReadAt(r.data[start:], r.off+int64(hn)); n < cbData {
		return 0, false, ioErr(err)
	}
	if sum != 0 {
		if got := checksum(h[4:8], checksum(r.data[start:], 0)); got != sum {
			return 0, false, &checksumError{want: sum, got: got}
		}
	} else {
		r.unchecked = true
	}
	r.off += int64(hn + cbData)
	r.bi++
	last := r.bi == p.nblocks
	if last {
		r.pi++
		r.bi = 0
		if r.pi < len(r.f.parts) {
			r.off = r.f.parts[r.pi].off
		}
	}
	return cbUncomp, last, nil
}

// block reads and decodes the next block into r.out.
func (r *folderReader) block() error {
	r.data = r.data[:0]
	n, last, err := r.readPiece()
	if err != nil {
		return err
	}
	if n == 0 {
		// A block split between cabinets: its first piece, in the
		// folder's last block of this cabinet, says 0; the piece at the
		// start of the next cabinet's folder gives the size.
		if !last {
			return ErrBlock
		}
		if n, _, err = r.readPiece(); err == io.EOF {
			return ErrMissingNext
		} else if err != nil {
			return err
		}
		if n == 0 {
			return ErrBlock
		}
	}
	src := r.data
	switch r.f.comp & 0x0F {
	case methodNone:
		if len(src) != n {
			return ErrBlock
		}
		r.out = src
	case methodMSZIP:
		if n > maxFrame {
			return ErrBlock
		}
		if err := r.zip.decode(r.frame[:n], src); err != nil {
			return err
		}
		r.out = r.frame[:n]
	case methodLZX:
		if _, err := r.lzx.Decode(r.frame[:n], src); err != nil {
			return err
		}
		r.out = r.frame[:n]
	case methodQuantum:
		if err := r.qtm.Decode(r.frame[:n], src); err != nil {
			return err
		}
		r.out = r.frame[:n]
	}
	r.op = 0
	return nil
}

// Read returns the folder's uncompressed data.
func (r *folderReader) Read(p []byte) (int, error) {
	for r.op == len(r.out) {
		if r.err != nil {
			return 0, r.err
		}
		if err := r.block(); err != nil {
			r.err = err
			return 0, err
		}
	}
	n := copy(p, r.out[r.op:])
	r.op += n
	r.upos += int64(n)
	return n, nil
}

// skip advances n bytes.
func (r *folderReader) skip(n int64) error {
	for n > 0 {
		if r.op == len(r.out) {
			if r.err != nil {
				return r.err
			}
			if err := r.block(); err != nil {
				r.err = err
				return err
			}
			continue
		}
		k := int(min(n, int64(len(r.out)-r.op)))
		r.op += k
		r.upos += int64(k)
		n -= int64(k)
	}
	return nil
}

// checksum is the CFDATA checksum: the XOR of the data's little-endian
// 32-bit words, a last partial word taken with its first byte highest
// (libmspack's cabd_checksum), starting from seed.
func checksum(b []byte, seed uint32) uint32 {
	for len(b) >= 4 {
		seed ^= binary.LittleEndian.Uint32(b)
		b = b[4:]
	}
	var w uint32
	for _, c := range b {
		w = w<<8 | uint32(c)
	}
	return seed ^ w
}

// checksumError is a CFDATA checksum mismatch.
type checksumError struct{ want, got uint32 }

func (e *checksumError) Error() string {
	return "cab: data block checksum mismatch: stored " + hex32(e.want) + ", computed " + hex32(e.got)
}

func (e *checksumError) Is(target error) bool {
	return target == archive.ErrChecksum || target == archive.ErrCorrupt
}

func hex32(v uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// ioErr turns a short read into ErrTruncated.
func ioErr(err error) error {
	if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}
