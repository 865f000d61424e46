package rarcrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"io"
)

// ErrBlockSize is returned when encrypted data does not end on a 16-byte
// AES block boundary.
var ErrBlockSize = errors.New("rarcrypt: encrypted data is not a whole number of blocks")

// ivSetter is implemented by the standard library's CBC modes; it lets one
// decrypter be re-keyed with a new IV without allocating.
type ivSetter interface{ SetIV([]byte) }

// CBC decrypts AES-CBC in place. Reset re-keys it; the key schedule is
// reused when the key is unchanged.
type CBC struct {
	key   [32]byte
	block cipher.Block
	mode  cipher.BlockMode
}

// Reset prepares c to decrypt a stream with key (16 or 32 bytes) and iv.
func (c *CBC) Reset(key, iv []byte) error {
	if c.block == nil || len(key) != 32 || [32]byte(key) != c.key {
		b, err := aes.NewCipher(key)
		if err != nil {
			return err
		}
		c.block, c.mode = b, nil
		if len(key) == 32 {
			c.key = [32]byte(key)
		} else {
			c.key = [32]byte{}
		}
	}
	if s, ok := c.mode.(ivSetter); ok {
		s.SetIV(iv)
		return nil
	}
	c.mode = cipher.NewCBCDecrypter(c.block, iv)
	return nil
}

// Decrypt decrypts buf in place; len(buf) must be a multiple of 16.
func (c *CBC) Decrypt(buf []byte) {
	if len(buf) > 0 {
		c.mode.CryptBlocks(buf, buf)
	}
}

// Reader decrypts an AES-CBC stream read from an underlying reader through
// one reused buffer: no allocation per Read.
type Reader struct {
	r   io.Reader
	cbc CBC
	buf []byte
	pos int // start of decrypted, unread bytes in buf
	end int // end of decrypted bytes
	raw int // end of raw (not yet decrypted) bytes, a partial block
	err error
}

// readerBufSize is the decryption buffer size.
const readerBufSize = 64 << 10

// NewReader returns a Reader decrypting r with key and iv.
func NewReader(r io.Reader, key, iv []byte) (*Reader, error) {
	d := new(Reader)
	return d, d.Reset(r, key, iv)
}

// Reset makes d decrypt a new stream, reusing its buffer and key schedule.
func (d *Reader) Reset(r io.Reader, key, iv []byte) error {
	if d.buf == nil {
		d.buf = make([]byte, readerBufSize)
	}
	d.r, d.pos, d.end, d.raw, d.err = r, 0, 0, 0, nil
	return d.cbc.Reset(key, iv)
}

// Read returns decrypted bytes. The underlying stream must end on a block
// boundary; a partial last block is ErrBlockSize.
func (d *Reader) Read(p []byte) (int, error) {
	for d.pos == d.end {
		if d.err != nil {
			return 0, d.err
		}
		// Keep the partial block at the front and fill behind it.
		n := copy(d.buf, d.buf[d.end:d.raw])
		d.pos, d.end, d.raw = 0, 0, n
		m, err := d.r.Read(d.buf[d.raw:])
		d.raw += m
		whole := d.raw &^ 15
		d.cbc.Decrypt(d.buf[:whole])
		d.end = whole
		if err != nil {
			if err == io.EOF && d.raw != d.end {
				err = ErrBlockSize
			}
			d.err = err
		}
	}
	n := copy(p, d.buf[d.pos:d.end])
	d.pos += n
	return n, nil
}
