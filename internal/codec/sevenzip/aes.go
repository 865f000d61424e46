package sevenzip

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256" // not a checksum: 7z AES derives its key by iterated SHA-256
	"encoding/binary"
	"io"
	"sync"
	"unicode/utf16"

	"github.com/unpack-dev/unpack/internal/archive"
)

// maxCyclesPower caps the key derivation's 2^n SHA-256 rounds, as 7-Zip
// does; 0x3F is the special "no hashing" value. A variable so that the
// fuzz target can lower it: 2^24 rounds take a second.
var maxCyclesPower = 24

// keyCache remembers derived keys by (cycles, salt, password): every folder
// of an archive usually shares one, and deriving costs 2^19 hash rounds.
type keyCache struct {
	mu sync.Mutex
	m  map[string]*[32]byte
}

func (c *keyCache) key(power int, salt []byte, password string) *[32]byte {
	id := string(rune(power)) + string(salt) + "\x00" + password
	c.mu.Lock()
	k, ok := c.m[id]
	c.mu.Unlock()
	if ok {
		return k
	}
	k = deriveKey(power, salt, password)
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[string]*[32]byte)
	}
	c.m[id] = k
	c.mu.Unlock()
	return k
}

// deriveKey is 7-Zip's AES-256 key derivation: SHA-256 over 2^power
// repetitions of salt, the UTF-16LE password and a 64-bit little-endian
// counter; with power 0x3F the key is salt and password themselves.
func deriveKey(power int, salt []byte, password string) *[32]byte {
	units := utf16.Encode([]rune(password))
	pw := make([]byte, 2*len(units))
	for i, u := range units {
		binary.LittleEndian.PutUint16(pw[2*i:], u)
	}
	var key [32]byte
	if power == 0x3F {
		n := copy(key[:], salt)
		copy(key[n:], pw)
		return &key
	}
	// Hash many rounds per Write: a round is salt|pw|counter.
	round := len(salt) + len(pw) + 8
	const batch = 256
	buf := make([]byte, 0, round*batch)
	for i := 0; i < batch; i++ {
		buf = append(buf, salt...)
		buf = append(buf, pw...)
		buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	h := sha256.New()
	total := uint64(1) << power
	for done := uint64(0); done < total; {
		n := min(uint64(batch), total-done)
		for i := uint64(0); i < n; i++ {
			binary.LittleEndian.PutUint64(buf[int(i)*round+round-8:], done+i)
		}
		h.Write(buf[:int(n)*round])
		done += n
	}
	h.Sum(key[:0])
	return &key
}

// aesParams parses the 7zAES coder properties.
func aesParams(props []byte) (power int, salt, iv []byte, err error) {
	bad := archive.Corruptf("7z: bad AES properties")
	if len(props) < 1 {
		return 0, nil, nil, bad
	}
	b0 := props[0]
	power = int(b0 & 0x3F)
	iv = make([]byte, aes.BlockSize)
	if b0&0xC0 == 0 {
		if len(props) != 1 {
			return 0, nil, nil, bad
		}
	} else {
		if len(props) < 2 {
			return 0, nil, nil, bad
		}
		b1 := props[1]
		saltSize := int(b0>>7&1) + int(b1>>4)
		ivSize := int(b0>>6&1) + int(b1&0x0F)
		if len(props) != 2+saltSize+ivSize {
			return 0, nil, nil, bad
		}
		salt = props[2 : 2+saltSize]
		copy(iv, props[2+saltSize:])
	}
	if power > maxCyclesPower && power != 0x3F {
		return 0, nil, nil, archive.Unsupportedf("7z: AES key derivation with 2^%d rounds", power)
	}
	return power, salt, iv, nil
}

// aesReader decrypts AES-256-CBC in place in its own buffer.
type aesReader struct {
	r          io.Reader
	mode       cipher.BlockMode
	buf        []byte
	start, end int // decrypted bytes not yet returned
	raw        int // buf[end:raw] read but not yet decrypted
	err        error
}

func newAESReader(props []byte, r io.Reader, password string, keys *keyCache) (io.Reader, error) {
	power, salt, iv, err := aesParams(props)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(keys.key(power, salt, password)[:])
	if err != nil {
		return nil, err
	}
	return &aesReader{r: r, mode: cipher.NewCBCDecrypter(block, iv), buf: make([]byte, 32<<10)}, nil
}

func (a *aesReader) Read(p []byte) (int, error) {
	for a.start == a.end {
		if a.err != nil {
			return 0, a.err
		}
		a.raw = copy(a.buf, a.buf[a.end:a.raw])
		a.start, a.end = 0, 0
		n, err := a.r.Read(a.buf[a.raw:])
		a.raw += n
		full := a.raw &^ (aes.BlockSize - 1)
		a.mode.CryptBlocks(a.buf[:full], a.buf[:full])
		a.end = full
		if err == io.EOF && a.raw != full {
			err = archive.Corruptf("7z: encrypted data is not a whole number of AES blocks")
		}
		a.err = err
	}
	n := copy(p, a.buf[a.start:a.end])
	a.start += n
	return n, nil
}
