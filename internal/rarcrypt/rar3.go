// Package rarcrypt implements the encryption of RAR archives: for RAR 3.x
// and 4.x the salted, iterated SHA-1 key derivation and AES-128-CBC (files
// and, with -hp, headers); the block cipher of RAR 2.0 (rar3_crypt20.go)
// and the stream cipher of RAR 1.5 (rar15.go).
package rarcrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha1"
	"io"
	"sync"
	"unicode/utf16"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Salt3Size is the length of a RAR 3 salt.
const Salt3Size = 8

// rounds3 is the RAR 3 key derivation's iteration count (2^18).
const rounds3 = 0x40000

// Key3 is an AES-128 key and CBC IV derived from a password and salt.
type Key3 struct {
	Key [16]byte
	IV  [16]byte
}

type cacheKey3 struct {
	password string
	salt     [Salt3Size]byte
}

var (
	cache3Mu sync.Mutex
	cache3   = map[cacheKey3]Key3{}
)

// maxCache3 bounds the key cache; it is cleared when full.
const maxCache3 = 64

// DeriveKey3 returns the RAR 3.x AES-128 key and IV for password and an
// 8-byte salt: SHA-1 over 2^18 repetitions of the UTF-16LE password, the
// salt and a 3-byte counter, the IV taken from every 2^14th digest. Results
// are cached by password and salt (archives reuse one salt for all
// headers, and each derivation is 2^18 SHA-1 rounds).
//
// Passwords whose UTF-16 form plus salt reach 65 bytes (29 or more
// characters with a salt) go through unrar's SHA-1 variant (sha1rar), as
// RAR 3.x derived them.
func DeriveKey3(password string, salt []byte) Key3 {
	var ck cacheKey3
	ck.password = password
	copy(ck.salt[:], salt)
	cache3Mu.Lock()
	k, ok := cache3[ck]
	cache3Mu.Unlock()
	if ok {
		return k
	}
	u := utf16.Encode([]rune(password))
	raw := make([]byte, 0, 2*len(u)+Salt3Size)
	for _, c := range u {
		raw = append(raw, byte(c), byte(c>>8))
	}
	raw = append(raw, salt...)
	var sum [sha1.Size]byte
	if len(raw) < 65 {
		// Short inputs never reach unrar's SHA-1 quirk: use the
		// standard (hardware-accelerated) SHA-1 on password+salt+counter.
		n := len(raw)
		buf := append(raw, 0, 0, 0)
		h := sha1.New()
		for i := 0; i < rounds3; i++ {
			buf[n], buf[n+1], buf[n+2] = byte(i), byte(i>>8), byte(i>>16)
			h.Write(buf)
			if i%(rounds3/16) == 0 {
				h.Sum(sum[:0])
				k.IV[i/(rounds3/16)] = sum[19]
			}
		}
		h.Sum(sum[:0])
	} else {
		var h sha1rar
		h.reset()
		var num [3]byte
		for i := 0; i < rounds3; i++ {
			h.write(raw, true)
			num[0], num[1], num[2] = byte(i), byte(i>>8), byte(i>>16)
			h.write(num[:], false)
			if i%(rounds3/16) == 0 {
				s := h.sum()
				k.IV[i/(rounds3/16)] = s[19]
			}
		}
		sum = h.sum()
	}
	for i := 0; i < 4; i++ {
		k.Key[4*i+0] = sum[4*i+3]
		k.Key[4*i+1] = sum[4*i+2]
		k.Key[4*i+2] = sum[4*i+1]
		k.Key[4*i+3] = sum[4*i+0]
	}
	cache3Mu.Lock()
	if len(cache3) >= maxCache3 {
		clear(cache3)
	}
	cache3[ck] = k
	cache3Mu.Unlock()
	return k
}

// errPartial3 reports encrypted data whose length is not a whole number
// of AES blocks.
var errPartial3 = archive.Corruptf("rar: encrypted data is not a multiple of 16 bytes")

// Reader3 decrypts an AES-128-CBC stream in place in the caller's buffer
// (a block that a short read leaves over is kept inside), so Read
// allocates nothing and the data is copied no more than it is read.
type Reader3 struct {
	d Reader
}

// NewReader3 returns a Reader3 decrypting r with k.
func NewReader3(r io.Reader, k Key3) *Reader3 {
	d := &Reader3{}
	d.Reset(r, k)
	return d
}

// Reset makes d decrypt a new stream, keeping its key schedule when the
// key is unchanged.
func (d *Reader3) Reset(r io.Reader, k Key3) {
	d.d.Reset(r, k.Key[:], k.IV[:]) // a 16-byte key never fails
}

// Read returns decrypted bytes; data that does not end on a block
// boundary is archive.ErrCorrupt.
func (d *Reader3) Read(p []byte) (int, error) {
	n, err := d.d.Read(p)
	if err == ErrBlockSize {
		err = errPartial3
	}
	return n, err
}

// Decrypt3 decrypts whole blocks of b in place with mode (used for
// headers); len(b) must be a multiple of 16.
func Decrypt3(mode cipher.BlockMode, b []byte) {
	mode.CryptBlocks(b, b)
}

// NewHeaderDecrypter3 returns the CBC decrypter for one encrypted header.
func NewHeaderDecrypter3(k Key3) cipher.BlockMode {
	b, _ := aes.NewCipher(k.Key[:])
	return cipher.NewCBCDecrypter(b, k.IV[:])
}
