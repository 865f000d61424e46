package zip

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/bzip2"
	"github.com/unpack-dev/unpack/internal/codec/inflate"
	"github.com/unpack-dev/unpack/internal/codec/lzma"
	"github.com/unpack-dev/unpack/internal/codec/xz"
	"github.com/unpack-dev/unpack/internal/codec/zstdframe"
)

// Compression methods (APPNOTE 4.4.5).
const (
	methodStore     = 0
	methodShrink    = 1
	methodReduce1   = 2 // to 5: reduce with compression factor 1 to 4
	methodReduce4   = 5
	methodImplode   = 6
	methodDeflate   = 8
	methodDeflate64 = 9
	methodBzip2     = 12
	methodLZMA      = 14
	methodZstdOld   = 20
	methodZstd      = 93
	methodXZ        = 95
	methodPPMd      = 98
	methodAES       = 99
)

// methodName names a compression method for Entry.Method and messages.
func methodName(m uint16) string {
	switch m {
	case methodStore:
		return "store"
	case methodShrink:
		return "shrink"
	case methodReduce1, 3, 4, methodReduce4:
		return fmt.Sprintf("reduce%d", m-1)
	case methodImplode:
		return "implode"
	case methodDeflate:
		return "deflate"
	case methodDeflate64:
		return "deflate64"
	case methodBzip2:
		return "bzip2"
	case methodLZMA:
		return "lzma"
	case methodZstd, methodZstdOld:
		return "zstd"
	case methodXZ:
		return "xz"
	case methodPPMd:
		return "ppmd"
	case methodAES:
		return "aes"
	}
	return fmt.Sprintf("method %d", m)
}

// byteReader is the input every decoder gets: reading it never goes past
// the end of the compressed data, so streaming stays in step.
type byteReader interface {
	io.Reader
	io.ByteReader
}

// decoder returns a reader of the decompressed data of an entry with method
// m whose compressed bytes come from raw, or from src, the same bytes
// through a byte reader (buffered unless the entry's size is unknown). The
// deflate and Deflate64 decoders are kept in p and reset for each entry;
// the rarer methods get a fresh decoder. Deflate and Deflate64 use the
// buffered inflater of internal/codec/inflate, which reads ahead: a
// streamed entry of unknown size hands back what it read past its end
// (p.ahead, see StreamReader.unread), unless it is encrypted: decrypted
// bytes cannot be handed back, so it gets inflate.Reader, which stops
// exactly at its end. LZMA and xz are the project's own decoders, as is
// bzip2; PPMd is internal/codec/ppmd's variant I, its model kept in p.
func (p *pipeline) decoder(m uint16, raw io.Reader, src byteReader, h *header, limit int64) (io.Reader, error) {
	switch m {
	case methodStore:
		return src, nil
	case methodDeflate, methodDeflate64:
		d64 := m == methodDeflate64
		if h.usizeUnknown && h.encrypted() {
			if p.exact[b2i(d64)] == nil {
				p.exact[b2i(d64)] = inflate.NewReader(src, d64)
			} else {
				p.exact[b2i(d64)].Reset(src)
			}
			return p.exact[b2i(d64)], nil
		}
		if p.inflate[b2i(d64)] == nil {
			p.inflate[b2i(d64)] = inflate.NewInflater(raw, d64)
		} else {
			p.inflate[b2i(d64)].Reset(raw)
		}
		if h.usizeUnknown {
			p.ahead = p.inflate[b2i(d64)]
		}
		return p.inflate[b2i(d64)], nil
	case methodBzip2:
		// One thread: entries are what runs in parallel.
		return bzip2.NewReader(src, bzip2.Config{Threads: 1, MemLimit: limit})
	case methodLZMA:
		return p.newLZMA(src, h, limit)
	case methodXZ:
		r, err := xz.NewReader(src, xz.Config{MemLimit: limit, Threads: 1, Warn: p.opt.Unverifiedf})
		if err != nil {
			return nil, err
		}
		p.closer = r
		return r, nil
	case methodZstd, methodZstdOld:
		d, err := zstdframe.NewReader(src, zstdframe.Config{MaxWindow: uint64(limit), LowMem: true})
		if err != nil {
			return nil, archive.Corruptf("zip: zstd: %v", err)
		}
		p.closer = d
		return d, nil
	case methodImplode:
		return newExploder(src, h)
	case methodShrink:
		return newUnshrinker(src, h)
	case methodPPMd:
		return p.newPPMd(src, h, limit)
	case methodReduce1, 3, 4, methodReduce4:
		return nil, &archive.MethodError{Format: "zip", Method: strconv.Itoa(int(m)), Name: methodName(m)}
	}
	return nil, &archive.MethodError{Format: "zip", Method: strconv.Itoa(int(m))}
}

// newLZMA reads the zip LZMA header (version, properties size, properties)
// and returns a decoder of the raw LZMA stream behind it, which ends with
// an end marker when flag bit 1 says so and otherwise at the entry's size
// (Reader1 accepts a marker at the size too).
func (p *pipeline) newLZMA(src byteReader, h *header, limit int64) (io.Reader, error) {
	hdr := p.lzmaHdr[:]
	if _, err := io.ReadFull(src, hdr[:4]); err != nil {
		return nil, ErrTruncated
	}
	if psize := int(binary.LittleEndian.Uint16(hdr[2:])); psize != 5 {
		return nil, archive.Corruptf("zip: lzma: properties size %d, want 5", psize)
	}
	if _, err := io.ReadFull(src, hdr[4:]); err != nil {
		return nil, ErrTruncated
	}
	props, err := lzma.ParseProps(hdr[4:])
	if err != nil {
		return nil, err
	}
	if err := lzma.DictLimit(int64(props.DictSize), limit); err != nil {
		return nil, err
	}
	size := int64(h.usize)
	if h.usizeUnknown {
		size = -1
	}
	if p.lzma == nil {
		p.lzma, err = lzma.NewReader1(src, props, size)
		return p.lzma, err
	}
	return p.lzma, p.lzma.Reset(src, props, size)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
