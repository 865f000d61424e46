package rar5

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// rawHeader frames body (type, flags and the rest, as stored) with its
// size and CRC.
func rawHeader(body []byte) []byte {
	sized := vint(nil, uint64(len(body)))
	sized = append(sized, body...)
	return append(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(sized)), sized...)
}

// fileBody is a file header body: common fields, file fields, name, extra.
func fileBody(flags uint64, dataSize int, ci uint64, name string, extra []byte) []byte {
	var b []byte
	b = vint(b, headFile)
	if len(extra) > 0 {
		flags |= hflExtra
	}
	b = vint(b, flags|hflData)
	if len(extra) > 0 {
		b = vint(b, uint64(len(extra)))
	}
	b = vint(b, uint64(dataSize))
	b = vint(b, 0)        // file flags
	b = vint(b, 3)        // size
	b = vint(b, 0o644)    // attributes
	b = vint(b, ci)       // compression
	b = vint(b, hostUnix) // host
	b = vint(b, uint64(len(name)))
	b = append(b, name...)
	return append(b, extra...)
}

func TestCraftedHeaders(t *testing.T) {
	sig := []byte(signature)
	mainHdr := rawHeader([]byte{headMain, 0, 0})
	end := rawHeader([]byte{headEnd, 0, 0})
	arc := func(blocks ...[]byte) []byte {
		a := append(append([]byte(nil), sig...), mainHdr...)
		for _, b := range blocks {
			a = append(a, b...)
		}
		return append(a, end...)
	}
	cryptRec := func(version, lg2 byte) []byte {
		rec := []byte{fhexCrypt, version, 0, lg2}
		rec = append(rec, make([]byte, 32)...)
		return append(vint(nil, uint64(len(rec))), rec...)
	}
	longVint := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	tests := []struct {
		name string
		arc  []byte
		want error // nil: reads fine
	}{
		{"ok", arc(rawHeader(fileBody(0, 3, 0, "a", nil)), []byte("abc")), nil},
		{"unknown-type-skipped", arc(rawHeader([]byte{9, hflData, 2, 0}), []byte{1, 2}), nil},
		{"header-too-large", arc(append([]byte{0, 0, 0, 0}, vint(nil, 3<<20)...)), archive.ErrCorrupt},
		{"bad-crc", arc(append(rawHeader(fileBody(0, 0, 0, "a", nil)), 0)[1:]), archive.ErrCorrupt},
		{"extra-beyond-header", arc(rawHeader([]byte{headFile, hflExtra, 50, 0})), archive.ErrCorrupt},
		{"name-beyond-header", arc(rawHeader(fileBody(0, 0, 0, "a", nil)[:12])), archive.ErrCorrupt},
		{"long-vint", arc(rawHeader(append([]byte{headFile, hflData}, longVint...))), archive.ErrCorrupt},
		{"data-beyond-file", arc(rawHeader(fileBody(0, 1000, 0, "a", nil))), archive.ErrCorrupt},
		{"no-main-header", append(append(append([]byte(nil), sig...), rawHeader(fileBody(0, 0, 0, "a", nil))...), end...), archive.ErrCorrupt},
		{"dictionary-too-large", arc(rawHeader(fileBody(0, 0, 3<<7|16<<10, "a", nil))), archive.ErrUnsupported},
		{"algorithm-version", arc(rawHeader(fileBody(0, 0, 3<<7|2, "a", nil))), archive.ErrUnsupported},
		{"method-6", arc(rawHeader(fileBody(0, 0, 6<<7, "a", nil))), archive.ErrUnsupported},
		{"crypt-version", arc(rawHeader(fileBody(0, 0, 0, "a", cryptRec(1, 4)))), archive.ErrUnsupported},
		{"kdf-count", arc(rawHeader(fileBody(0, 16, 0, "a", cryptRec(0, 30))), make([]byte, 16)), archive.ErrUnsupported},
		{"bad-extra-record", arc(rawHeader(fileBody(0, 0, 0, "a", []byte{40, 1}))), archive.ErrCorrupt},
		{"split-continuation-only", arc(rawHeader(fileBody(hflSplitBefore, 3, 0, "a", nil)), []byte("abc")), nil},
		// A volume number that would not fit a 32-bit int.
		{"volume-number", append(append(append([]byte(nil), sig...),
			rawHeader(vint(vint([]byte{headMain, 0}, mhflVolume|mhflVolNumber), 1<<40))...), end...), archive.ErrCorrupt},
		{"volume-number-ok", append(append(append([]byte(nil), sig...),
			rawHeader(vint(vint([]byte{headMain, 0}, mhflVolume|mhflVolNumber), 0))...), end...), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := readArchive(tc.arc, []string{"p"})
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
