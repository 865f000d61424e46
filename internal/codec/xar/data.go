package xar

import (
	"bufio"
	"fmt"
	"hash"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/bzip2"
	"github.com/unpack-dev/unpack/internal/codec/gzip"
	"github.com/unpack-dev/unpack/internal/codec/lzma"
	"github.com/unpack-dev/unpack/internal/codec/xz"
	"github.com/unpack-dev/unpack/internal/verify"
)

// The encodings of file data (the <encoding style>) and their short names.
var methods = map[string]string{
	"":                         "stored",
	"application/octet-stream": "stored",
	"application/x-gzip":       "zlib",
	"application/x-bzip2":      "bzip2",
	"application/x-xz":         "xz",
	"application/x-lzma":       "lzma",
}

// dataReader gives a file's decoded data, checking at its end its size,
// the archived-checksum of the extent's bytes and the extracted-checksum
// of the decoded ones.
type dataReader struct {
	x      *extent
	raw    hashing // the extent's bytes
	dec    io.Reader
	closer io.Closer
	ext    hash.Hash
	n      int64
	err    error
}

// hashing hashes what is read through it (h nil: nothing).
type hashing struct {
	r io.Reader
	h hash.Hash
}

func (h *hashing) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if h.h != nil {
		h.h.Write(p[:n])
	}
	return n, err
}

// decoders are the buffers a Reader reuses from one file to the next (one
// file's data are read at a time).
type decoders struct {
	zlib zlibReader
	br   *bufio.Reader
}

// buffered returns the reused buffered reader, reading r.
func (c *decoders) buffered(r io.Reader) *bufio.Reader {
	if c.br == nil {
		c.br = bufio.NewReaderSize(r, 16<<10)
	} else {
		c.br.Reset(r)
	}
	return c.br
}

// newDataReader decodes extent x read from src.
func newDataReader(src io.Reader, x *extent, opt *archive.Options, c *decoders) (*dataReader, error) {
	d := &dataReader{x: x, raw: hashing{r: src, h: verify.New(x.archived.kind)}, ext: verify.New(x.extracted.kind)}
	var err error
	switch x.encoding {
	case "", "application/octet-stream":
		d.dec = &d.raw
	case "application/x-gzip":
		br := c.buffered(&d.raw)
		if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
			d.dec, err = gzip.NewReader(br)
		} else if err = c.zlib.reset(br); err == nil {
			d.dec = &c.zlib
		}
	case "application/x-bzip2":
		var z *bzip2.Reader
		if z, err = bzip2.NewReader(&d.raw, bzip2.Config{Threads: opt.Threads, MemLimit: opt.Limit()}); err == nil {
			d.dec, d.closer = z, z
		}
	case "application/x-xz", "application/x-lzma":
		br := c.buffered(&d.raw)
		if head, _ := br.Peek(6); string(head) == "\xfd7zXZ\x00" {
			var z *xz.Reader
			if z, err = xz.NewReader(br, xz.Config{MemLimit: opt.Limit(), Threads: opt.Threads, Warn: opt.Unverifiedf}); err == nil {
				d.dec, d.closer = z, z
			}
		} else if x.encoding == "application/x-lzma" {
			d.dec, err = lzma.NewAloneReader(br, opt.Limit())
		} else {
			err = archive.Corruptf("xar: xz data without the xz magic")
		}
	default:
		err = archive.Unsupportedf("xar: encoding %q", x.encoding)
	}
	if err != nil {
		return nil, truncated(err)
	}
	return d, nil
}

func (d *dataReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.dec.Read(p)
	if n > 0 {
		d.n += int64(n)
		if d.n > d.x.size {
			// Only the declared bytes go out, with the error.
			n -= int(d.n - d.x.size)
			d.n = d.x.size
			err = ErrSize
		}
		if d.ext != nil {
			d.ext.Write(p[:n])
		}
	}
	switch err {
	case nil:
	case io.EOF:
		err = d.finish()
	default:
		err = truncated(err)
	}
	if err != nil {
		d.err = err
		d.Close()
	}
	return n, err
}

// finish checks the size and both checksums once the decoder has ended;
// the extent's bytes after the encoded stream are hashed too.
func (d *dataReader) finish() error {
	if d.n != d.x.size {
		return ErrSize
	}
	if _, err := io.Copy(io.Discard, &d.raw); err != nil {
		return err
	}
	if err := verify.Check(d.x.archived.kind, d.raw.h, d.x.archived.want); err != nil {
		return fmt.Errorf("xar: archived-checksum: %w", err)
	}
	if err := verify.Check(d.x.extracted.kind, d.ext, d.x.extracted.want); err != nil {
		return fmt.Errorf("xar: extracted-checksum: %w", err)
	}
	return io.EOF
}

// Close releases the decoder.
func (d *dataReader) Close() error {
	c := d.closer
	d.closer = nil
	if c != nil {
		return c.Close()
	}
	return nil
}
