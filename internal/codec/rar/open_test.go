package rar

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// tiny5 is a RAR 5 archive of one stored entry "a" holding "hello".
const tiny5 = "Rar!\x1a\a\x01\x00\xc5\x1a32\x03\x01\x00\x00\x1f\xc4\rc\x0f\x02\x02\x05\x04\x05\xa4\x03\x86\xa6\x106\x00\x01\x01ahello\x19\xb2:5\x03\x05\x00\x00"

func TestOpenDispatch(t *testing.T) {
	good := []byte(tiny5)
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
			r, err := Open(&archive.Input{R: bytes.NewReader(tc.data), Size: -1, Name: "-"}, &archive.Options{})
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
