package verify

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// This file checks BLAKE2sp and RAR5Keyed against the RAR 5 archives of the
// shared corpus: every stored (method 0) file entry that carries a BLAKE2sp
// hash record or a CRC32 is hashed from the archive's own bytes, decrypted
// first when the entry is encrypted and the manifest gives the password. The parser is
// the minimum for that (RAR 5 technote: general block layout, file header,
// extra records 0x01 encryption and 0x02 hash) and belongs to the tests only.

var errShort = errors.New("truncated")

type rarBuf struct {
	b   []byte
	err error
}

func (r *rarBuf) vint() uint64 {
	var v uint64
	for i := 0; i < 10; i++ {
		if len(r.b) == 0 {
			r.err = errShort
			return 0
		}
		c := r.b[0]
		r.b = r.b[1:]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = errShort
	return 0
}

func (r *rarBuf) bytes(n uint64) []byte {
	if uint64(len(r.b)) < n {
		r.err = errShort
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

// rar5Stored is a stored file entry with a BLAKE2sp hash record or a CRC32.
type rar5Stored struct {
	name      string
	size      uint64
	data      []byte // as in the archive (encrypted when enc != nil)
	kind      Kind   // BLAKE2sp or CRC32
	digest    []byte // the stored value, big-endian (keyed when encFlags has 0x02)
	encFlags  uint64
	kdfCount  uint8
	salt, iv  []byte
	encrypted bool
	redirect  bool
}

func parseRAR5Stored(b []byte) ([]rar5Stored, error) {
	start := bytes.Index(b, []byte("Rar!\x1a\x07\x01\x00"))
	if start < 0 {
		return nil, errors.New("no RAR 5 signature")
	}
	var out []rar5Stored
	r := &rarBuf{b: b[start+8:]}
	for len(r.b) > 4 && r.err == nil {
		r.bytes(4) // header CRC32
		hsize := r.vint()
		hdr := &rarBuf{b: r.bytes(hsize)}
		typ, flags := hdr.vint(), hdr.vint()
		var extSize, dataSize uint64
		if flags&1 != 0 {
			extSize = hdr.vint()
		}
		if flags&2 != 0 {
			dataSize = hdr.vint()
		}
		data := r.bytes(dataSize)
		if r.err != nil || hdr.err != nil || extSize > uint64(len(hdr.b)) {
			return out, errShort
		}
		if typ == 5 { // end of archive
			break
		}
		if typ != 2 { // not a file header
			continue
		}
		ext := &rarBuf{b: hdr.b[uint64(len(hdr.b))-extSize:]}
		fileFlags := hdr.vint()
		size := hdr.vint()
		hdr.vint() // attributes
		if fileFlags&2 != 0 {
			hdr.bytes(4) // mtime
		}
		var crc []byte
		if fileFlags&4 != 0 {
			crc = hdr.bytes(4) // little-endian
		}
		comp := hdr.vint()
		hdr.vint() // host OS
		name := string(hdr.bytes(hdr.vint()))
		if hdr.err != nil {
			return out, hdr.err
		}
		e := rar5Stored{name: name, size: size, data: data}
		if crc != nil {
			e.kind, e.digest = CRC32, []byte{crc[3], crc[2], crc[1], crc[0]}
		}
		for len(ext.b) > 0 && ext.err == nil {
			rec := &rarBuf{b: ext.bytes(ext.vint())}
			switch rec.vint() {
			case 1: // encryption
				rec.vint() // version
				e.encrypted = true
				e.encFlags = rec.vint()
				if c := rec.bytes(1); c != nil {
					e.kdfCount = c[0]
				}
				e.salt, e.iv = rec.bytes(16), rec.bytes(16)
			case 5: // redirection (link or file copy): no data of its own
				e.redirect = true
			case 2: // hash
				if rec.vint() == 0 {
					e.kind, e.digest = BLAKE2sp, rec.bytes(32)
				}
			}
		}
		if comp>>7&7 == 0 && fileFlags&1 == 0 && flags&0x18 == 0 && e.digest != nil && !e.redirect {
			out = append(out, e)
		}
	}
	return out, nil
}

// rar5Keys derives the AES-256 key and the HashKey of RAR 5: PBKDF2-HMAC-
// SHA256 of the password with 2^kdfCount iterations, and the value after 16
// more iterations of the same chain.
func rar5Keys(password string, salt []byte, kdfCount uint8) (key, hashKey []byte) {
	mac := hmac.New(sha256.New, []byte(password))
	mac.Write(salt)
	mac.Write([]byte{0, 0, 0, 1})
	u := mac.Sum(nil)
	t := append([]byte(nil), u...)
	n := 1 << kdfCount
	for i := 1; i < n+16; i++ {
		if i == n {
			key = append([]byte(nil), t...)
		}
		mac.Reset()
		mac.Write(u)
		u = mac.Sum(u[:0])
		for j := range t {
			t[j] ^= u[j]
		}
	}
	return key, t
}

func TestRAR5Corpus(t *testing.T) {
	checked := map[Kind]int{}
	for _, row := range testutil.Manifest(t) {
		if row.Format != "rar5" || !row.HasFeature("stored") || !row.IsFirstOfUnit() ||
			row.HasFeature("encrypted-headers") || !strings.HasPrefix(row.Expect, "ok") {
			continue
		}
		raw, err := os.ReadFile(row.Path)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := parseRAR5Stored(raw)
		if err != nil {
			t.Fatalf("%s: %v", row.Local, err)
		}
		for _, e := range entries {
			data, digest := e.data, []byte(nil)
			var hashKey []byte
			if e.encrypted {
				if row.Password == "" || e.kdfCount > 24 || len(data)%aes.BlockSize != 0 {
					continue
				}
				key, hk := rar5Keys(row.Password, e.salt, e.kdfCount)
				block, err := aes.NewCipher(key)
				if err != nil {
					t.Fatal(err)
				}
				plain := make([]byte, len(data))
				cipher.NewCBCDecrypter(block, e.iv).CryptBlocks(plain, data)
				data = plain
				if e.encFlags&2 != 0 {
					hashKey = hk
				}
			}
			if uint64(len(data)) < e.size {
				t.Fatalf("%s %s: %d data bytes for size %d", row.Local, e.name, len(data), e.size)
			}
			data = data[:e.size]
			forEachImpl(t, func(t *testing.T) {
				h := New(e.kind)
				h.Write(data)
				digest = h.Sum(nil)
				if hashKey != nil {
					digest = RAR5Keyed(e.kind, hashKey, digest)
				}
				if !bytes.Equal(digest, e.digest) {
					t.Errorf("%s %s: %v %x, stored %x (keyed %v)", row.Local, e.name, e.kind, digest, e.digest, hashKey != nil)
				}
			})
			t.Logf("%s %s: %v, %d bytes, encrypted %v, keyed %v", row.Local, e.name, e.kind, e.size, e.encrypted, hashKey != nil)
			checked[e.kind]++
			if hashKey != nil {
				checked[None]++ // counts keyed entries
			}
		}
	}
	t.Logf("checked %d BLAKE2sp and %d CRC32 entries, %d of them keyed", checked[BLAKE2sp], checked[CRC32], checked[None])
	if checked[BLAKE2sp] == 0 && checked[CRC32] == 0 {
		t.Skip("no stored RAR 5 entries with a checksum in the corpus")
	}
}

// TestRAR4CorpusCRC16 checks the CRC16 kind on the main archive header of
// every RAR 4 archive of the corpus: its HEAD_CRC is the low 16 bits of the
// CRC32 of the header from HEAD_TYPE on (RAR 4 technote).
func TestRAR4CorpusCRC16(t *testing.T) {
	checked := 0
	for _, row := range testutil.Manifest(t) {
		if row.Format != "rar4" || !row.IsFirstOfUnit() || row.HasFeature("sfx") || !strings.HasPrefix(row.Expect, "ok") {
			continue
		}
		raw, err := os.ReadFile(row.Path)
		if err != nil {
			t.Fatal(err)
		}
		const marker = "Rar!\x1a\x07\x00"
		if !bytes.HasPrefix(raw, []byte(marker)) {
			continue
		}
		hdr := raw[len(marker):]
		// Only a main archive header without an old-style (RAR 2.x) embedded
		// comment, flag 0x0002, whose CRC does not cover the whole header.
		if len(hdr) < 7 || hdr[2] != 0x73 || hdr[3]&0x02 != 0 {
			continue
		}
		size := int(binary.LittleEndian.Uint16(hdr[5:]))
		if size < 7 || size > len(hdr) {
			t.Fatalf("%s: main header size %d", row.Local, size)
		}
		h := New(CRC16)
		h.Write(hdr[2:size])
		stored := []byte{hdr[1], hdr[0]} // little-endian in the file
		if got := h.Sum(nil); !bytes.Equal(got, stored) {
			t.Errorf("%s: CRC16 %x, stored %x", row.Local, got, stored)
		}
		checked++
	}
	t.Logf("checked %d RAR 4 main headers", checked)
	if checked == 0 {
		t.Skip("no RAR 4 archives in the corpus")
	}
}
