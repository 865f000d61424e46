package xar

import (
	"encoding/binary"
	"hash"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/inflate"
	"github.com/unpack-dev/unpack/internal/verify"
)

// errZlib: a zlib header (RFC 1950) that is not deflate, or a preset
// dictionary, which xar never uses.
var errZlib = archive.Corruptf("xar: invalid zlib header")

// zlibReader decodes a zlib stream (RFC 1950), as xar's
// "application/x-gzip" encoding and its TOC are, checking its Adler-32.
// The source is bounded by the caller (a heap extent): the inflater may
// read ahead of the stream's end, and what follows the checksum is not
// looked at.
type zlibReader struct {
	src   io.Reader
	f     *inflate.Inflater
	adler hash.Hash32
	err   error
	sum   [4]byte
}

// reset makes z (the zero value, or a reader used before, whose buffers
// it keeps) decode the zlib stream r.
func (z *zlibReader) reset(r io.Reader) error {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return truncated(err)
	}
	if h[0]&0x0f != 8 || h[0]>>4 > 7 || (uint(h[0])<<8|uint(h[1]))%31 != 0 || h[1]&0x20 != 0 {
		return errZlib
	}
	if z.f == nil {
		z.f, z.adler = inflate.NewInflater(r, false), verify.New(verify.Adler32).(hash.Hash32)
	}
	z.f.Reset(r)
	z.adler.Reset()
	z.src, z.err = r, nil
	return nil
}

func (z *zlibReader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n, err := z.f.Read(p)
	z.adler.Write(p[:n])
	if err == io.EOF {
		err = z.trailer()
	} else if err == io.ErrUnexpectedEOF {
		err = ErrTruncated
	}
	if err != nil {
		z.err = err
	}
	return n, err
}

// trailer checks the Adler-32 after the final block: in what the
// inflater read past it, and from the source for what it did not.
func (z *zlibReader) trailer() error {
	k := copy(z.sum[:], z.f.Rest())
	if k < 4 {
		if _, err := io.ReadFull(z.src, z.sum[k:]); err != nil {
			return truncated(err)
		}
	}
	if got := z.adler.Sum32(); got != binary.BigEndian.Uint32(z.sum[:]) {
		var g [4]byte
		binary.BigEndian.PutUint32(g[:], got)
		return &verify.MismatchError{Kind: verify.Adler32, Want: append([]byte(nil), z.sum[:]...), Got: g[:]}
	}
	return io.EOF
}

// truncated maps the end of the input inside a structure to ErrTruncated,
// keeping other errors (a failed read) as they are.
func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}
