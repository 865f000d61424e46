package rar5

import (
	"bytes"
	"testing"

	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
)

func TestFilters(t *testing.T) {
	tests := []struct {
		name     string
		typ      byte
		offset   uint32
		channels int
		in, want []byte
	}{
		{"e8-positive", filterE8, 0, 0, []byte{0xe8, 0x10, 0, 0, 0, 0}, []byte{0xe8, 0x0f, 0, 0, 0, 0}},
		{"e8-offset", filterE8, 0x100, 0, []byte{0, 0xe8, 0x00, 0x02, 0, 0, 0}, []byte{0, 0xe8, 0xfe, 0x00, 0, 0, 0}},
		{"e8-negative", filterE8, 0, 0, []byte{0xe8, 0xff, 0xff, 0xff, 0xff, 0}, []byte{0xe8, 0xff, 0xff, 0xff, 0x00, 0}},
		{"e8-large", filterE8, 0, 0, []byte{0xe8, 0, 0, 0, 0x01, 0}, []byte{0xe8, 0, 0, 0, 0x01, 0}},
		{"e8-ignores-e9", filterE8, 0, 0, []byte{0xe9, 0x10, 0, 0, 0, 0}, []byte{0xe9, 0x10, 0, 0, 0, 0}},
		{"e8e9", filterE8E9, 0, 0, []byte{0xe9, 0x10, 0, 0, 0, 0}, []byte{0xe9, 0x0f, 0, 0, 0, 0}},
		{"e8-tail", filterE8, 0, 0, []byte{0, 0xe8, 0x10, 0, 0}, []byte{0, 0xe8, 0x10, 0, 0}},
		{"arm", filterARM, 8, 0, []byte{0x10, 0, 0, 0xeb, 0x10, 0, 0, 0xea}, []byte{0x0e, 0, 0, 0xeb, 0x10, 0, 0, 0xea}},
		{"arm-wrap", filterARM, 0, 0, []byte{0, 0, 0, 0, 0, 0, 0, 0xeb}, []byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xeb}},
		{"delta", filterDelta, 0, 2, []byte{1, 2, 3, 4}, []byte{255, 253, 253, 249}},
		{"delta-odd", filterDelta, 0, 3, []byte{1, 1, 1, 1, 1}, []byte{255, 255, 255, 254, 254}},
	}
	for _, tc := range tests {
		buf := bytes.Clone(tc.in)
		switch tc.typ {
		case filterE8, filterE8E9:
			rarshared.E8(buf, tc.offset, tc.typ == filterE8E9, true)
		case filterARM:
			armFilter(buf, tc.offset)
		case filterDelta:
			dst := make([]byte, len(buf))
			rarshared.Undelta(dst, buf, tc.channels)
			buf = dst
		}
		if !bytes.Equal(buf, tc.want) {
			t.Errorf("%s: got % x, want % x", tc.name, buf, tc.want)
		}
	}
}
