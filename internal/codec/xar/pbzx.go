package xar

import (
	"bufio"
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/xz"
)

// pbzx is Apple's chunked xz: the magic "pbzx" and a big-endian 64-bit
// chunk size, then chunks, each a 64-bit word (its flags: bit 24 set while
// more chunks follow), a 64-bit length and that many bytes: an xz stream,
// or, when the bytes do not start with xz's magic, the data stored. The
// decoded chunks, concatenated, are the content (a cpio archive in a
// .pkg's Payload, a .xip's Content).

// PbzxMagic starts a pbzx stream.
const PbzxMagic = "pbzx"

var (
	errPbzx      = archive.Corruptf("pbzx: invalid header")
	errPbzxChunk = archive.Corruptf("pbzx: an xz chunk does not end where its length says")
)

const maxPbzxChunk = 1 << 30 // a longer chunk is refused

// PbzxReader decodes a pbzx stream, each xz chunk's checks verified.
type PbzxReader struct {
	r     *bufio.Reader
	chunk io.LimitedReader // the current chunk's bytes
	xz    *xz.Reader
	cur   io.Reader // the current chunk's decoded data; nil between chunks
	cfg   xz.Config
	last  bool // the last chunk header said no more follow
	err   error
	hdr   [16]byte
}

// NewPbzxReader reads the pbzx header from r; cfg configures the xz
// decoder of the chunks.
func NewPbzxReader(r io.Reader, cfg xz.Config) (*PbzxReader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	z := &PbzxReader{r: br, cfg: cfg}
	if _, err := io.ReadFull(br, z.hdr[:12]); err != nil {
		return nil, errPbzx
	}
	if string(z.hdr[:4]) != PbzxMagic {
		return nil, errPbzx
	}
	return z, nil
}

// Close releases the xz decoder.
func (z *PbzxReader) Close() error {
	if z.xz != nil {
		return z.xz.Close()
	}
	return nil
}

func (z *PbzxReader) Read(p []byte) (int, error) {
	for z.err == nil {
		if z.cur == nil {
			z.err = z.next()
			continue
		}
		n, err := z.cur.Read(p)
		if err == io.EOF {
			switch {
			case z.chunk.N != 0 && z.cur == io.Reader(&z.chunk):
				err = ErrTruncated
			case z.chunk.N != 0:
				err = errPbzxChunk
			default:
				z.cur, err = nil, nil
			}
		}
		if err != nil {
			z.err = truncated(err)
		}
		if n > 0 || z.err != nil {
			return n, z.err
		}
	}
	return 0, z.err
}

// next starts the next chunk, or returns io.EOF at the end of the input
// after the last one.
func (z *PbzxReader) next() error {
	n, err := io.ReadFull(z.r, z.hdr[:16])
	if n == 0 && err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return truncated(err)
	}
	if z.last {
		// Bytes after the chunk that said it was the last.
		return archive.Corruptf("pbzx: data after the last chunk")
	}
	z.last = binary.BigEndian.Uint64(z.hdr[:8])&(1<<24) == 0
	size := binary.BigEndian.Uint64(z.hdr[8:16])
	if size > maxPbzxChunk {
		return archive.Limitf("pbzx: a chunk of %d bytes", size)
	}
	z.chunk = io.LimitedReader{R: z.r, N: int64(size)}
	head, _ := z.r.Peek(6)
	if string(head) != "\xfd7zXZ\x00" {
		z.cur = &z.chunk
		return nil
	}
	if z.xz == nil {
		x, err := xz.NewReader(&z.chunk, z.cfg)
		if err != nil {
			return err
		}
		z.xz = x
	} else if err := z.xz.Reset(&z.chunk, z.cfg); err != nil {
		return err
	}
	z.cur = z.xz
	return nil
}
