// Package verify holds every checksum the formats carry (CRC32, CRC32C,
// CRC16, bzip2's MSB-first CRC32, CRC64-ECMA, SHA-256, BLAKE2sp, XXH32/XXH64
// and RAR 5's keyed forms)
// behind one small API: a Kind, a constructor per kind (New, NewBLAKE2sp),
// and Reader and Writer stages that hash what passes and compare against the
// expected value at EOF or Close, failing with a *MismatchError.
//
// CRC32 and CRC32C come from hash/crc32 and SHA-256 from crypto/sha256. The
// rest are implemented here: BLAKE2sp after the BLAKE2 paper (§2.10) and
// RFC 7693, CRC-64/XZ as the .xz file format specification defines it
// (ECMA-182 polynomial), XXH32/XXH64 after the xxHash specification
// (doc/xxhash_spec.md), and RAR5Keyed after unrar's ConvertHashToMAC. On
// amd64, BLAKE2sp runs its eight leaves in one pass with AVX2 (or AVX-512)
// and CRC64 folds with PCLMULQDQ; on arm64, BLAKE2sp runs them in two NEON
// passes of four and CRC64 folds with PMULL; all chosen at run time from the
// CPU's features. The pure-Go twins are always compiled, tested against the
// fast paths, and the only code under -tags purego.
package verify

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"hash"
	"hash/adler32"
	"hash/crc32"
	"io"
)

// Kind is a checksum algorithm.
type Kind uint8

// The checksum kinds.
const (
	None     Kind = iota
	CRC32         // IEEE, as zip, gzip, RAR, 7z, xz use
	CRC32C        // Castagnoli
	CRC64         // ECMA-182, as xz uses
	SHA256        // as xz uses
	BLAKE2sp      // as RAR 5 uses
	XXH32         // as lz4 uses
	XXH64         // as zstd uses
	CRC16         // the low 16 bits of CRC32, as RAR headers use
	Adler32       // as zlib streams (zisofs, squashfs) and lzop use
	Sum32         // the 32-bit sum of the data's bytes, as cpio's "crc" format (070702) uses
	MD5           // as a .deb's md5sums, RPM's legacy signature and XAR use
	SHA1          // as RPM headers, XAR and WIM use
	CRC16ARC      // CRC-16/ARC (polynomial 0xA001 reflected), as LHA uses
	SHA512        // as XAR uses
)

var names = [...]string{"none", "CRC32", "CRC32C", "CRC64", "SHA-256", "BLAKE2sp", "XXH32", "XXH64", "CRC16", "Adler-32", "SUM32", "MD5", "SHA-1", "CRC-16/ARC", "SHA-512"}

// String returns the kind's usual name ("CRC32", "SHA-256", …).
func (k Kind) String() string {
	if int(k) < len(names) {
		return names[k]
	}
	return "unknown"
}

// Size is the digest length in bytes.
func (k Kind) Size() int {
	switch k {
	case CRC32, CRC32C, XXH32, Adler32, Sum32:
		return 4
	case CRC64, XXH64:
		return 8
	case SHA256, BLAKE2sp:
		return 32
	case CRC16, CRC16ARC:
		return 2
	case MD5:
		return 16
	case SHA1:
		return 20
	case SHA512:
		return 64
	}
	return 0
}

// New returns a fresh hash of kind k, or nil for None and unknown kinds.
// Sum appends the digest big-endian, as the format-neutral form that
// Entry.ChecksumValue uses.
func New(k Kind) hash.Hash {
	switch k {
	case CRC32:
		return NewCRC32()
	case CRC32C:
		return crc32.New(crc32.MakeTable(crc32.Castagnoli))
	case CRC64:
		return newCRC64()
	case SHA256:
		return sha256.New()
	case BLAKE2sp:
		return newBLAKE2sp()
	case XXH32:
		return newXXH32()
	case XXH64:
		return newXXH64()
	case CRC16:
		return newCRC16()
	case Adler32:
		return adler32.New()
	case Sum32:
		return new(sum32)
	case MD5:
		return md5.New()
	case SHA1:
		return sha1.New()
	case CRC16ARC:
		return new(crc16ARC)
	case SHA512:
		return sha512.New()
	}
	return nil
}

// ErrChecksum is what every checksum mismatch errors.Is.
var ErrChecksum = errors.New("checksum mismatch")

// MismatchError reports a checksum that did not match, with both values.
type MismatchError struct {
	Kind Kind
	Want []byte // stored in the archive
	Got  []byte // computed from the data
}

// Error names the kind and both values in hex.
func (e *MismatchError) Error() string {
	return e.Kind.String() + " mismatch: stored " + hex.EncodeToString(e.Want) +
		", computed " + hex.EncodeToString(e.Got)
}

// Is makes errors.Is(err, ErrChecksum) true.
func (e *MismatchError) Is(target error) bool { return target == ErrChecksum }

// Check compares h's digest with want and returns a *MismatchError when
// they differ. A nil want checks nothing.
func Check(k Kind, h hash.Hash, want []byte) error {
	if want == nil || h == nil {
		return nil
	}
	var scratch [64]byte
	return compare(k, h.Sum(scratch[:0]), want)
}

// compare returns a *MismatchError, with copies of got and want, when they
// differ.
func compare(k Kind, got, want []byte) error {
	if bytes.Equal(got, want) {
		return nil
	}
	return &MismatchError{Kind: k, Want: append([]byte(nil), want...), Got: append([]byte(nil), got...)}
}

// Reader hashes everything read through it and, when the underlying reader
// returns io.EOF, compares the digest with the expected value: a mismatch is
// returned in place of io.EOF.
type Reader struct {
	r       io.Reader
	kind    Kind
	h       hash.Hash
	want    []byte
	hashKey []byte
	err     error
	sum     [64]byte // scratch for the digest
}

// NewReader returns a Reader checking r's bytes against want with kind k.
// A nil want, or kind None, passes the bytes through unchecked.
func NewReader(r io.Reader, k Kind, want []byte) *Reader {
	v := &Reader{}
	v.Reset(r, k, want)
	return v
}

// Reset makes v check a new stream, reusing its hash when the kind is the
// same. It clears any key set with SetRAR5Key.
func (v *Reader) Reset(r io.Reader, k Kind, want []byte) {
	v.h = reuse(v.h, v.kind, k)
	v.r, v.kind, v.want, v.hashKey, v.err = r, k, want, nil, nil
}

// SetRAR5Key makes v compare want with RAR5Keyed(kind, hashKey, digest)
// instead of the digest itself, as for RAR 5 entries with tweaked checksums.
// A nil hashKey compares the plain digest again.
func (v *Reader) SetRAR5Key(hashKey []byte) { v.hashKey = hashKey }

func (v *Reader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.r.Read(p)
	if n > 0 && v.h != nil {
		v.h.Write(p[:n])
	}
	if err == io.EOF {
		if cerr := check(v.kind, v.h, v.hashKey, v.want, v.sum[:0]); cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		v.err = err
	}
	return n, err
}

// Sum returns the digest of what has passed so far (nil for None), plain,
// not keyed.
func (v *Reader) Sum() []byte {
	if v.h == nil {
		return nil
	}
	return v.h.Sum(nil)
}

// reuse returns h reset when it is of the wanted kind, else a new hash.
func reuse(h hash.Hash, have, want Kind) hash.Hash {
	if h != nil && have == want {
		h.Reset()
		return h
	}
	return New(want)
}

// check is Check with the digest converted by RAR5Keyed when hashKey is set;
// the digest is appended to scratch.
func check(k Kind, h hash.Hash, hashKey, want, scratch []byte) error {
	if want == nil || h == nil {
		return nil
	}
	got := h.Sum(scratch)
	if hashKey != nil {
		got = RAR5Keyed(k, hashKey, got)
	}
	return compare(k, got, want)
}

// FastPaths names the assembly paths of this package that this CPU uses;
// none with the purego tag or where no assembly exists.
func FastPaths() []string {
	var p []string
	switch {
	case useAVX512:
		p = append(p, "BLAKE2sp AVX-512")
	case useAVX2:
		p = append(p, "BLAKE2sp AVX2")
	case useNEON:
		p = append(p, "BLAKE2sp NEON")
	}
	if useCLMUL {
		p = append(p, clmulName)
	}
	if useSum32 == sumSSE2 {
		p = append(p, "byte sum SSE2")
	}
	if adlerAsm() {
		p = append(p, "Adler-32 AVX2")
	}
	return p
}
