package verify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// RAR5Keyed converts a digest of kind k into the keyed form RAR 5 stores for
// an encrypted entry whose encryption record sets the "tweaked checksums"
// flag (0x02, "HashMAC"): the stored value is then not a checksum of the
// plaintext but a MAC of it under the HashKey derived from the password, so
// that it is no oracle for guessing the content. The rule is unrar's
// ConvertHashToMAC (hash.cpp), which the RAR 5 technote describes only as
// "checksums are converted with the password-dependent key":
//
//   - CRC32: mac = HMAC-SHA256(hashKey, crc as 4 little-endian bytes), and
//     the 32 bytes of mac fold into the new CRC as crc' ^= mac[i] << (8*(i%4)).
//   - BLAKE2sp: digest' = HMAC-SHA256(hashKey, digest).
//
// digest and the result use this package's convention (Sum of New(k): the
// CRC32 big-endian). Other kinds have no keyed form in RAR 5 and are returned
// unchanged (copied). hashKey is the 32-byte HashKey of RAR 5's key
// derivation (PBKDF2-HMAC-SHA256, iteration count + 16).
func RAR5Keyed(k Kind, hashKey []byte, digest []byte) []byte {
	switch {
	case k == CRC32 && len(digest) == 4:
		var raw [4]byte
		binary.LittleEndian.PutUint32(raw[:], binary.BigEndian.Uint32(digest))
		mac := hmacSHA256(hashKey, raw[:])
		var crc uint32
		for i, b := range mac {
			crc ^= uint32(b) << (8 * (i & 3))
		}
		return binary.BigEndian.AppendUint32(nil, crc)
	case k == BLAKE2sp:
		return hmacSHA256(hashKey, digest)
	}
	return append([]byte(nil), digest...)
}

func hmacSHA256(key, data []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return m.Sum(nil)
}
