package zip

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha1" // not a checksum: WinZip AES derives its keys with PBKDF2-HMAC-SHA1
	"crypto/subtle"
	"hash"
	"hash/crc32" // not a checksum: ZipCrypto's key schedule steps its keys with the CRC32 table (APPNOTE 6.1.5)
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// zipCrypto decrypts the traditional PKWARE stream cipher (APPNOTE 6.1).
type zipCrypto struct {
	k0, k1, k2 uint32
	r          byteReader
}

const zipCryptoHeaderLen = 12

func (z *zipCrypto) init(password string) {
	z.k0, z.k1, z.k2 = 0x12345678, 0x23456789, 0x34567890
	for i := 0; i < len(password); i++ {
		z.update(password[i])
	}
}

func (z *zipCrypto) update(c byte) {
	z.k0 = crc32.IEEETable[byte(z.k0)^c] ^ z.k0>>8
	z.k1 = (z.k1+z.k0&0xff)*134775813 + 1
	z.k2 = crc32.IEEETable[byte(z.k2)^byte(z.k1>>24)] ^ z.k2>>8
}

// decrypt decrypts b in place.
func (z *zipCrypto) decrypt(b []byte) {
	k0, k1, k2 := z.k0, z.k1, z.k2
	for i, c := range b {
		t := k2 | 2
		c ^= byte((t * (t ^ 1)) >> 8)
		b[i] = c
		k0 = crc32.IEEETable[byte(k0)^c] ^ k0>>8
		k1 = (k1+k0&0xff)*134775813 + 1
		k2 = crc32.IEEETable[byte(k2)^byte(k1>>24)] ^ k2>>8
	}
	z.k0, z.k1, z.k2 = k0, k1, k2
}

// open tries each password against the 12-byte encryption header hdr and
// leaves z keyed with the first that passes the check byte, whose index it
// returns. The check byte is the CRC's high byte, or the DOS time's high
// byte for entries with a data descriptor (Info-ZIP); both are accepted.
func (z *zipCrypto) open(hdr *[zipCryptoHeaderLen]byte, h *header, passwords []string) (int, error) {
	var b [zipCryptoHeaderLen]byte
	for i, pw := range passwords {
		z.init(pw)
		b = *hdr
		z.decrypt(b[:])
		c := b[11]
		if c == byte(h.crc>>24) || (h.flags&flagDescriptor != 0 && c == byte(h.dosTime>>8)) {
			return i, nil
		}
	}
	return 0, archive.Errorf(archive.ErrPassword, "zip: wrong password for %q", h.name)
}

func (z *zipCrypto) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	z.decrypt(p[:n])
	return n, err
}

func (z *zipCrypto) ReadByte() (byte, error) {
	c, err := z.r.ReadByte()
	if err != nil {
		return 0, err
	}
	b := [1]byte{c}
	z.decrypt(b[:])
	return b[0], nil
}

// WinZip AES (https://www.winzip.com/en/support/aes-encryption/).
const (
	aesVerifierLen = 2
	aesMACLen      = 10
	aesIterations  = 1000
)

// aesSaltLen and aesKeyLen give the salt and key lengths of strength s.
func aesSaltLen(s uint8) int { return 4 * (int(s) + 1) }
func aesKeyLen(s uint8) int  { return 8 * (int(s) + 1) }

// aesReader decrypts WinZip AES data (AES-CTR with a little-endian counter
// starting at 1) and authenticates the ciphertext with HMAC-SHA1.
type aesReader struct {
	r      byteReader
	block  cipher.Block
	mac    hash.Hash
	ctr    [aes.BlockSize]byte
	ks     [aes.BlockSize * 32]byte
	ksPos  int
	remain int64 // ciphertext bytes left; -1 when unknown (streaming)
	one    [1]byte
}

// aesKeys derives the AES key, the HMAC key and the password verifier.
func aesKeys(password string, salt []byte, strength uint8) (key, macKey, verifier []byte, err error) {
	kl := aesKeyLen(strength)
	dk, err := pbkdf2.Key(sha1.New, password, salt, aesIterations, 2*kl+aesVerifierLen)
	if err != nil {
		return nil, nil, nil, err
	}
	return dk[:kl], dk[kl : 2*kl], dk[2*kl:], nil
}

// open checks the passwords against the stored verifier, keys a with the
// first that matches and returns its index.
func (a *aesReader) open(salt, verifier []byte, h *header, passwords []string) (int, error) {
	for i, pw := range passwords {
		key, macKey, v, err := aesKeys(pw, salt, h.aesStrength)
		if err != nil {
			return 0, err
		}
		if subtle.ConstantTimeCompare(v, verifier) != 1 {
			continue
		}
		a.block, err = aes.NewCipher(key)
		if err != nil {
			return 0, err
		}
		a.mac = hmac.New(sha1.New, macKey)
		a.ctr = [aes.BlockSize]byte{}
		a.ksPos = len(a.ks)
		return i, nil
	}
	return 0, archive.Errorf(archive.ErrPassword, "zip: wrong password for %q", h.name)
}

// aesMACFirst is the size of ciphertext up to which, per later candidate,
// the MAC is checked before decoding rather than the later candidates'
// verifiers: one key derivation hashes about as much (1000 PBKDF2-SHA1
// rounds over up to four blocks).
const aesMACFirst = 512 << 10

// macMatches reports whether the n bytes of ciphertext at off in ra have
// the MAC stored after them, under a's key; it leaves a ready to decrypt.
func (a *aesReader) macMatches(ra io.ReaderAt, off, n int64) (bool, error) {
	buf := a.ks[:]
	for left := n; left > 0; {
		m := min(int64(len(buf)), left)
		if _, err := ra.ReadAt(buf[:m], off+n-left); err != nil {
			return false, ErrTruncated
		}
		a.mac.Write(buf[:m])
		left -= m
	}
	var stored [aesMACLen]byte
	if _, err := ra.ReadAt(stored[:], off+n); err != nil {
		return false, ErrTruncated
	}
	var sum [sha1.Size]byte
	ok := hmac.Equal(a.mac.Sum(sum[:0])[:aesMACLen], stored[:])
	a.mac.Reset()
	a.ksPos = len(a.ks)
	return ok, nil
}

// aesPasses reports whether one of passwords matches the verifier.
func aesPasses(salt, verifier []byte, h *header, passwords []string) bool {
	for _, pw := range passwords {
		_, _, v, err := aesKeys(pw, salt, h.aesStrength)
		if err == nil && subtle.ConstantTimeCompare(v, verifier) == 1 {
			return true
		}
	}
	return false
}

// refill computes the next batch of key stream.
func (a *aesReader) refill() {
	for i := 0; i < len(a.ks); i += aes.BlockSize {
		for j := 0; j < 8; j++ {
			a.ctr[j]++
			if a.ctr[j] != 0 {
				break
			}
		}
		a.block.Encrypt(a.ks[i:i+aes.BlockSize], a.ctr[:])
	}
	a.ksPos = 0
}

func (a *aesReader) xor(p []byte) {
	a.mac.Write(p)
	for len(p) > 0 {
		if a.ksPos == len(a.ks) {
			a.refill()
		}
		n := subtle.XORBytes(p, p, a.ks[a.ksPos:])
		a.ksPos += n
		p = p[n:]
	}
}

func (a *aesReader) Read(p []byte) (int, error) {
	if a.remain == 0 {
		return 0, io.EOF
	}
	if a.remain > 0 && int64(len(p)) > a.remain {
		p = p[:a.remain]
	}
	n, err := a.r.Read(p)
	if a.remain > 0 {
		a.remain -= int64(n)
	}
	a.xor(p[:n])
	if err == io.EOF && a.remain > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (a *aesReader) ReadByte() (byte, error) {
	if _, err := io.ReadFull(a, a.one[:]); err != nil {
		return 0, err
	}
	return a.one[0], nil
}

// verify drains the ciphertext the decoder left unread, reads the stored
// authentication code from the source and compares.
func (a *aesReader) verify() error {
	var buf [512]byte
	for a.remain > 0 {
		if _, err := a.Read(buf[:min(int64(len(buf)), a.remain)]); err != nil {
			if err == io.EOF {
				break
			}
			return err
		}
	}
	var stored [aesMACLen]byte
	if _, err := io.ReadFull(a.r, stored[:]); err != nil {
		return ErrTruncated
	}
	var sum [sha1.Size]byte
	if !hmac.Equal(a.mac.Sum(sum[:0])[:aesMACLen], stored[:]) {
		return ErrMAC
	}
	return nil
}
