// Package rarcrypt implements the key derivation, password checks, block
// decryption and keyed checksums of encrypted RAR archives.
//
// RAR 5 (this file and rar5_*.go) follows the RAR 5.0 archive format
// specification: PBKDF2-HMAC-SHA256 over the UTF-8 password and a 16-byte
// salt with 2^n iterations gives the AES-256 key; 16 and 32 further
// iterations give the key of the keyed checksums (HashMAC, applied by
// verify.RAR5Keyed) and the password check value.
//
// # Security concerns
//
// The iteration count comes from the archive. Counts above 2^RAR5MaxKDFLog2
// are refused with ErrKDFCount so that a hostile archive cannot make key
// derivation run for hours; derived keys are cached so an archive of many
// entries sharing one salt derives once.
package rarcrypt

import (
	"crypto/hmac"
	"crypto/sha256" // key derivation (PBKDF2-HMAC-SHA256) and the password check value's own SHA-256 check, part of the same scheme
	"crypto/subtle"
	"errors"
	"hash"
	"sync"
)

// RAR5MaxKDFLog2 is the largest base-2 logarithm of the PBKDF2 iteration
// count accepted (unrar's limit as well).
const RAR5MaxKDFLog2 = 24

// RAR 5 sizes.
const (
	RAR5SaltSize     = 16 // bytes of salt in encryption records
	RAR5IVSize       = 16 // bytes of AES-CBC initialisation vector
	RAR5CheckSize    = 8  // bytes of the password check value
	RAR5CheckSumSize = 4  // bytes of SHA-256 over the check value that follow it
)

// ErrKDFCount is returned for an iteration count above 2^RAR5MaxKDFLog2.
var ErrKDFCount = errors.New("rarcrypt: key derivation iteration count too large")

// RAR5Keys are the values derived from one password, salt and count.
type RAR5Keys struct {
	Key      [32]byte // AES-256 key
	HashKey  [32]byte // HMAC-SHA256 key of the keyed checksums
	PswCheck [RAR5CheckSize]byte
}

// DeriveRAR5 derives the RAR 5 keys of password for salt with 2^lg2Count
// PBKDF2-HMAC-SHA256 iterations.
func DeriveRAR5(password string, salt []byte, lg2Count int) (*RAR5Keys, error) {
	if lg2Count < 0 || lg2Count > RAR5MaxKDFLog2 {
		return nil, ErrKDFCount
	}
	k := new(RAR5Keys)
	mac := hmac.New(sha256.New, []byte(password))
	var u, sum [32]byte
	mac.Write(salt)
	mac.Write([]byte{0, 0, 0, 1})
	mac.Sum(u[:0])
	sum = u
	count := 1 << lg2Count
	iterate := func(h hash.Hash, n int) {
		for i := 0; i < n; i++ {
			h.Reset()
			h.Write(u[:])
			h.Sum(u[:0])
			subtle.XORBytes(sum[:], sum[:], u[:])
		}
	}
	iterate(mac, count-1)
	k.Key = sum
	iterate(mac, 16)
	k.HashKey = sum
	iterate(mac, 16)
	for i, b := range sum {
		k.PswCheck[i%RAR5CheckSize] ^= b
	}
	return k, nil
}

// RAR5CheckValid reports whether a 12-byte check record (the check value
// followed by the first 4 bytes of its SHA-256) is intact. An archive whose
// record is damaged cannot tell a wrong password from a right one.
func RAR5CheckValid(check []byte) bool {
	if len(check) < RAR5CheckSize+RAR5CheckSumSize {
		return false
	}
	sum := sha256.Sum256(check[:RAR5CheckSize])
	return subtle.ConstantTimeCompare(sum[:RAR5CheckSumSize], check[RAR5CheckSize:RAR5CheckSize+RAR5CheckSumSize]) == 1
}

// Matches reports whether k's password check value equals check (the first
// 8 bytes of an archive's check record).
func (k *RAR5Keys) Matches(check []byte) bool {
	return len(check) >= RAR5CheckSize && subtle.ConstantTimeCompare(k.PswCheck[:], check[:RAR5CheckSize]) == 1
}

// KeyCache5 remembers derived RAR 5 keys by password, salt and count. It is
// safe for concurrent use. The zero value is ready to use.
type KeyCache5 struct {
	mu sync.Mutex
	m  map[keyID5]*RAR5Keys
}

type keyID5 struct {
	password string
	salt     [RAR5SaltSize]byte
	lg2      int
}

// keyCacheMax bounds the cache; it is cleared when full.
const keyCacheMax = 64

// Derive returns the keys for password, salt and 2^lg2Count iterations,
// deriving them only the first time.
func (c *KeyCache5) Derive(password string, salt []byte, lg2Count int) (*RAR5Keys, error) {
	var id keyID5
	id.password, id.lg2 = password, lg2Count
	copy(id.salt[:], salt)
	c.mu.Lock()
	k := c.m[id]
	c.mu.Unlock()
	if k != nil {
		return k, nil
	}
	k, err := DeriveRAR5(password, salt, lg2Count)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= keyCacheMax {
		c.m = make(map[keyID5]*RAR5Keys)
	}
	c.m[id] = k
	c.mu.Unlock()
	return k, nil
}
