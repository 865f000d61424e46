package rar5

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/unpack-dev/unpack/internal/rarcrypt"
	"github.com/unpack-dev/unpack/internal/verify"
)

// A minimal RAR 5 writer for tests: stored entries, optionally encrypted
// (data and/or headers), split across volumes, with an archive comment.
// It writes what the format specification describes, so the reader can be
// tested on inputs no corpus file has (large encrypted entries, per-entry
// passwords, crafted damage).

type testEntry struct {
	name     string
	data     []byte
	dir      bool
	password string // encrypt the data
	noCheck  bool   // omit the password check value
	mac      bool   // key the checksum
	symlink  string // a Unix symlink to this target

	ci          uint64 // compression info (0: stored); data is written as is
	unpCRC      uint32 // with ci: the CRC32 of the unpacked data
	unknownSize bool   // flag the size as unknown
	claimSize   int64  // declare this size instead of len(data)
}

type writerOpts struct {
	headerPassword string
	volumeSize     int // split data into parts of at most this many bytes
	comment        string
}

const testKDFLog2 = 4 // a small KDF count keeps tests fast

func vint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

type arcWriter struct {
	t       testing.TB
	opts    writerOpts
	hdrKeys *rarcrypt.RAR5Keys
	seq     byte
}

// iv returns a deterministic, distinct IV.
func (w *arcWriter) iv() []byte {
	w.seq++
	iv := make([]byte, 16)
	for i := range iv {
		iv[i] = w.seq*7 + byte(i)
	}
	return iv
}

func cbcEncrypt(t testing.TB, key, iv, data []byte) []byte {
	b, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, (len(data)+15)&^15)
	copy(out, data)
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(out, out)
	return out
}

// header encodes one header (with CRC), encrypting it when headers are.
func (w *arcWriter) header(typ, flags uint64, body, extra []byte, dataSize int64) []byte {
	var h []byte
	h = vint(h, typ)
	if len(extra) > 0 {
		flags |= hflExtra
	}
	if dataSize >= 0 {
		flags |= hflData
	}
	h = vint(h, flags)
	if len(extra) > 0 {
		h = vint(h, uint64(len(extra)))
	}
	if dataSize >= 0 {
		h = vint(h, uint64(dataSize))
	}
	h = append(h, body...)
	h = append(h, extra...)
	sized := vint(nil, uint64(len(h)))
	sized = append(sized, h...)
	out := binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(sized))
	out = append(out, sized...)
	if w.hdrKeys != nil && typ != headCrypt {
		iv := w.iv()
		return append(iv, cbcEncrypt(w.t, w.hdrKeys.Key[:], iv, out)...)
	}
	return out
}

func checkRecord(k *rarcrypt.RAR5Keys) []byte {
	sum := sha256.Sum256(k.PswCheck[:])
	return append(k.PswCheck[:], sum[:4]...)
}

func testSalt(n byte) []byte {
	s := make([]byte, 16)
	for i := range s {
		s[i] = n + byte(i)*3
	}
	return s
}

// volumeStart writes the signature, encryption and main headers of volume i.
func (w *arcWriter) volumeStart(i int, multi bool) []byte {
	out := []byte(signature)
	w.hdrKeys = nil
	if w.opts.headerPassword != "" {
		salt := testSalt(0x40)
		k, err := rarcrypt.DeriveRAR5(w.opts.headerPassword, salt, testKDFLog2)
		if err != nil {
			w.t.Fatal(err)
		}
		var body []byte
		body = vint(body, 0)
		body = vint(body, cryptPswCheck)
		body = append(body, testKDFLog2)
		body = append(body, salt...)
		body = append(body, checkRecord(k)...)
		out = append(out, w.header(headCrypt, 0, body, nil, -1)...)
		w.hdrKeys = k
	}
	var flags uint64
	var body []byte
	if multi {
		flags |= mhflVolume
		if i > 0 {
			flags |= mhflVolNumber
		}
	}
	body = vint(body, flags)
	if i > 0 {
		body = vint(body, uint64(i))
	}
	return append(out, w.header(headMain, 0, body, nil, -1)...)
}

// fileHeader encodes a file (or service) header for one part of e.
func (w *arcWriter) fileHeader(typ uint64, e *testEntry, part []byte, splitBefore, splitAfter bool, crc uint32, k *rarcrypt.RAR5Keys, salt, iv []byte) []byte {
	var fflags uint64 = fhflCRC32
	if e.dir {
		fflags = fhflDir
	}
	if e.unknownSize {
		fflags |= fhflUnpUnknown
	}
	size := uint64(len(e.data))
	if e.claimSize > 0 {
		size = uint64(e.claimSize)
	}
	var body []byte
	body = vint(body, fflags)
	body = vint(body, size)
	attr := uint64(0o644)
	if e.dir {
		attr = 0o755
	}
	body = vint(body, attr)
	if !e.dir {
		if k != nil && e.mac {
			crc = binary.BigEndian.Uint32(verify.RAR5Keyed(verify.CRC32, k.HashKey[:], binary.BigEndian.AppendUint32(nil, crc)))
		}
		body = binary.LittleEndian.AppendUint32(body, crc)
	}
	body = vint(body, e.ci)
	body = vint(body, hostUnix)
	body = vint(body, uint64(len(e.name)))
	body = append(body, e.name...)
	var extra []byte
	if k != nil {
		var rec []byte
		rec = vint(rec, fhexCrypt)
		rec = vint(rec, 0)
		var cf uint64
		if !e.noCheck {
			cf |= cryptPswCheck
		}
		if e.mac {
			cf |= cryptUseMAC
		}
		rec = vint(rec, cf)
		rec = append(rec, testKDFLog2)
		rec = append(rec, salt...)
		rec = append(rec, iv...)
		if !e.noCheck {
			rec = append(rec, checkRecord(k)...)
		}
		extra = vint(extra, uint64(len(rec)))
		extra = append(extra, rec...)
	}
	if e.symlink != "" {
		var rec []byte
		rec = vint(rec, fhexRedir)
		rec = vint(rec, redirUnixSymlink)
		rec = vint(rec, 0)
		rec = vint(rec, uint64(len(e.symlink)))
		rec = append(rec, e.symlink...)
		extra = vint(extra, uint64(len(rec)))
		extra = append(extra, rec...)
	}
	var flags uint64
	if splitBefore {
		flags |= hflSplitBefore
	}
	if splitAfter {
		flags |= hflSplitAfter
	}
	return w.header(typ, flags, body, extra, int64(len(part)))
}

func (w *arcWriter) end(more bool) []byte {
	var f uint64
	if more {
		f = 1
	}
	return w.header(headEnd, 0, vint(nil, f), nil, -1)
}

// buildArchive writes an archive of entries and returns its volumes.
func buildArchive(t testing.TB, opts writerOpts, entries []testEntry) [][]byte {
	w := &arcWriter{t: t, opts: opts}
	multi := opts.volumeSize > 0
	var vols [][]byte
	cur := w.volumeStart(0, multi)
	if opts.comment != "" {
		c := testEntry{name: "CMT", data: []byte(opts.comment)}
		cur = append(cur, w.fileHeader(headService, &c, c.data, false, false, crc32.ChecksumIEEE(c.data), nil, nil, nil)...)
		cur = append(cur, c.data...)
	}
	for i := range entries {
		e := &entries[i]
		crc := crc32.ChecksumIEEE(e.data)
		if e.ci != 0 {
			crc = e.unpCRC
		}
		var k *rarcrypt.RAR5Keys
		var salt []byte
		if e.password != "" {
			salt = testSalt(byte(i))
			var err error
			if k, err = rarcrypt.DeriveRAR5(e.password, salt, testKDFLog2); err != nil {
				t.Fatal(err)
			}
		}
		data := e.data
		chunk := len(data)
		if multi && chunk > opts.volumeSize {
			chunk = opts.volumeSize
		}
		for first := true; first || len(data) > 0; first = false {
			n := chunk
			if n > len(data) {
				n = len(data)
			}
			part := data[:n]
			data = data[n:]
			after := len(data) > 0
			var iv []byte
			if k != nil {
				iv = w.iv()
				part = cbcEncrypt(t, k.Key[:], iv, part)
			}
			partCRC := crc
			if after {
				partCRC = crc32.ChecksumIEEE(part)
			}
			cur = append(cur, w.fileHeader(headFile, e, part, !first, after, partCRC, k, salt, iv)...)
			cur = append(cur, part...)
			if after {
				cur = append(cur, w.end(true)...)
				vols = append(vols, cur)
				cur = w.volumeStart(len(vols), multi)
			}
		}
	}
	cur = append(cur, w.end(false)...)
	return append(vols, cur)
}

// patternData returns n bytes of deterministic, mildly compressible data.
func patternData(n int, seed uint32) []byte {
	b := make([]byte, n)
	x := seed | 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x%23) + 'a'
	}
	return b
}

var _ = bytes.Equal
