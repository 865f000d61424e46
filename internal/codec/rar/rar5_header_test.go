package rar

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// rawHeader5 frames body (type, flags and the rest, as stored) with its
// size and CRC.
func rawHeader5(body []byte) []byte {
	sized := vint5(nil, uint64(len(body)))
	sized = append(sized, body...)
	return append(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(sized)), sized...)
}

// fileBody5 is a file header body: common fields, file fields, name, extra.
func fileBody5(flags uint64, dataSize int, ci uint64, name string, extra []byte) []byte {
	var b []byte
	b = vint5(b, head5File)
	if len(extra) > 0 {
		flags |= hfl5Extra
	}
	b = vint5(b, flags|hfl5Data)
	if len(extra) > 0 {
		b = vint5(b, uint64(len(extra)))
	}
	b = vint5(b, uint64(dataSize))
	b = vint5(b, 0)         // file flags
	b = vint5(b, 3)         // size
	b = vint5(b, 0o644)     // attributes
	b = vint5(b, ci)        // compression
	b = vint5(b, host5Unix) // host
	b = vint5(b, uint64(len(name)))
	b = append(b, name...)
	return append(b, extra...)
}

func TestRAR5CraftedHeaders(t *testing.T) {
	sig := append([]byte(nil), sigRAR5...)
	mainHdr := rawHeader5([]byte{head5Main, 0, 0})
	end := rawHeader5([]byte{head5End, 0, 0})
	arc := func(blocks ...[]byte) []byte {
		a := append(append([]byte(nil), sig...), mainHdr...)
		for _, b := range blocks {
			a = append(a, b...)
		}
		return append(a, end...)
	}
	cryptRec := func(version, lg2 byte) []byte {
		rec := []byte{fhex5Crypt, version, 0, lg2}
		rec = append(rec, make([]byte, 32)...)
		return append(vint5(nil, uint64(len(rec))), rec...)
	}
	longVint := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	tests := []struct {
		name string
		arc  []byte
		want error // nil: reads fine
	}{
		{"ok", arc(rawHeader5(fileBody5(0, 3, 0, "a", nil)), []byte("abc")), nil},
		{"unknown-type-skipped", arc(rawHeader5([]byte{9, hfl5Data, 2, 0}), []byte{1, 2}), nil},
		{"header-too-large", arc(append([]byte{0, 0, 0, 0}, vint5(nil, 3<<20)...)), archive.ErrCorrupt},
		{"bad-crc", arc(append(rawHeader5(fileBody5(0, 0, 0, "a", nil)), 0)[1:]), archive.ErrCorrupt},
		{"extra-beyond-header", arc(rawHeader5([]byte{head5File, hfl5Extra, 50, 0})), archive.ErrCorrupt},
		{"name-beyond-header", arc(rawHeader5(fileBody5(0, 0, 0, "a", nil)[:12])), archive.ErrCorrupt},
		{"long-vint", arc(rawHeader5(append([]byte{head5File, hfl5Data}, longVint...))), archive.ErrCorrupt},
		{"data-beyond-file", arc(rawHeader5(fileBody5(0, 1000, 0, "a", nil))), archive.ErrCorrupt},
		{"no-main-header", append(append(append([]byte(nil), sig...), rawHeader5(fileBody5(0, 0, 0, "a", nil))...), end...), archive.ErrCorrupt},
		{"dictionary-too-large", arc(rawHeader5(fileBody5(0, 0, 3<<7|16<<10, "a", nil))), archive.ErrUnsupported},
		{"algorithm-version", arc(rawHeader5(fileBody5(0, 0, 3<<7|2, "a", nil))), archive.ErrUnsupported},
		{"method-6", arc(rawHeader5(fileBody5(0, 0, 6<<7, "a", nil))), archive.ErrUnsupported},
		{"crypt-version", arc(rawHeader5(fileBody5(0, 0, 0, "a", cryptRec(1, 4)))), archive.ErrUnsupported},
		{"kdf-count", arc(rawHeader5(fileBody5(0, 16, 0, "a", cryptRec(0, 30))), make([]byte, 16)), archive.ErrUnsupported},
		{"bad-extra-record", arc(rawHeader5(fileBody5(0, 0, 0, "a", []byte{40, 1}))), archive.ErrCorrupt},
		{"split-continuation-only", arc(rawHeader5(fileBody5(hfl5SplitBefore, 3, 0, "a", nil)), []byte("abc")), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := readArchive5(tc.arc, []string{"p"})
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestOpenDispatch(t *testing.T) {
	good := vols5(t, w5opts{}, w5entry{name: "a", data: []byte("hello")})
	stub := append([]byte("MZ stub with a false Rar!\x1a\x07\x05 signature"), make([]byte, 100000)...)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"rar5", good, nil},
		{"sfx", append(append([]byte(nil), stub...), good...), nil},
		{"rar4", []byte("Rar!\x1a\x07\x00\x00\x00\x00\x00\x00\x00"), archive.ErrCorrupt},
		{"none", make([]byte, 1000), archive.ErrNotArchive},
		{"empty", nil, archive.ErrNotArchive},
		{"prefix-only", []byte("Rar!\x1a\x07"), archive.ErrNotArchive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := openBytes5(tc.data, &archive.Options{}, nil)
			if err == nil {
				var e *archive.Entry
				if e, err = r.Next(); err == nil {
					var b []byte
					b, err = io.ReadAll(r)
					if err == nil && (e.Name != "a" || string(b) != "hello") {
						t.Fatalf("entry %q: %q", e.Name, b)
					}
				}
			}
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
