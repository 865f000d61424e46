package rarcrypt

import (
	"bytes"
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
	klen  int
	block cipher.Block
	mode  cipher.BlockMode
}

// Reset prepares c to decrypt a stream with key (16 or 32 bytes) and iv.
func (c *CBC) Reset(key, iv []byte) error {
	if c.block == nil || len(key) != c.klen || !bytes.Equal(key, c.key[:c.klen]) {
		b, err := aes.NewCipher(key)
		if err != nil {
			return err
		}
		c.block, c.mode = b, nil
		c.klen = copy(c.key[:], key)
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

// Reader decrypts an AES-CBC stream read from an underlying reader. It
// decrypts in place in the caller's buffer; only a block that a short
// read leaves over is kept inside, so Read allocates nothing.
type Reader struct {
	r    io.Reader
	cbc  CBC
	tail [16]byte // a decrypted block not yet returned in full
	pos  int      // start of the unread part of tail; 16 when empty
	err  error
}

// NewReader returns a Reader decrypting r with key and iv.
func NewReader(r io.Reader, key, iv []byte) (*Reader, error) {
	d := new(Reader)
	return d, d.Reset(r, key, iv)
}

// Reset makes d decrypt a new stream, reusing its key schedule.
func (d *Reader) Reset(r io.Reader, key, iv []byte) error {
	d.r, d.pos, d.err = r, len(d.tail), nil
	return d.cbc.Reset(key, iv)
}

// Read returns decrypted bytes. The underlying stream must end on a block
// boundary; a partial last block is ErrBlockSize.
func (d *Reader) Read(p []byte) (int, error) {
	if d.pos < len(d.tail) {
		n := copy(p, d.tail[d.pos:])
		d.pos += n
		return n, nil
	}
	if d.err != nil {
		return 0, d.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) < len(d.tail) {
		// Too small for a block: decrypt one into tail.
		if err := d.fill(d.tail[:]); err != nil {
			return 0, err
		}
		d.pos = copy(p, d.tail[:])
		return d.pos, nil
	}
	whole := len(p) &^ 15
	m, err := io.ReadAtLeast(d.r, p[:whole], len(d.tail))
	if m%16 != 0 && (err == nil || err == io.ErrUnexpectedEOF) {
		// Complete the last block.
		k, err2 := io.ReadFull(d.r, p[m:(m+15)&^15])
		m += k
		err = err2
	}
	if m%16 != 0 || (err == io.ErrUnexpectedEOF) {
		d.err = ErrBlockSize
		return 0, d.err
	}
	if err != nil && err != io.EOF {
		d.err = err
	}
	if err == io.EOF && m == 0 {
		d.err = io.EOF
		return 0, io.EOF
	}
	d.cbc.Decrypt(p[:m])
	return m, nil
}

// fill reads and decrypts exactly one block into b.
func (d *Reader) fill(b []byte) error {
	if _, err := io.ReadFull(d.r, b); err != nil {
		if err == io.ErrUnexpectedEOF {
			err = ErrBlockSize
		}
		d.err = err
		return err
	}
	d.cbc.Decrypt(b)
	return nil
}
