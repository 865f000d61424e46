package rar

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestFilters5(t *testing.T) {
	tests := []struct {
		name     string
		typ      byte
		offset   uint32
		channels int
		in, want []byte
	}{
		{"e8-positive", filter5E8, 0, 0, []byte{0xe8, 0x10, 0, 0, 0, 0}, []byte{0xe8, 0x0f, 0, 0, 0, 0}},
		{"e8-offset", filter5E8, 0x100, 0, []byte{0, 0xe8, 0x00, 0x02, 0, 0, 0}, []byte{0, 0xe8, 0xfe, 0x00, 0, 0, 0}},
		{"e8-negative", filter5E8, 0, 0, []byte{0xe8, 0xff, 0xff, 0xff, 0xff, 0}, []byte{0xe8, 0xff, 0xff, 0xff, 0x00, 0}},
		{"e8-large", filter5E8, 0, 0, []byte{0xe8, 0, 0, 0, 0x01, 0}, []byte{0xe8, 0, 0, 0, 0x01, 0}},
		{"e8-ignores-e9", filter5E8, 0, 0, []byte{0xe9, 0x10, 0, 0, 0, 0}, []byte{0xe9, 0x10, 0, 0, 0, 0}},
		{"e8e9", filter5E8E9, 0, 0, []byte{0xe9, 0x10, 0, 0, 0, 0}, []byte{0xe9, 0x0f, 0, 0, 0, 0}},
		{"e8-tail", filter5E8, 0, 0, []byte{0, 0xe8, 0x10, 0, 0}, []byte{0, 0xe8, 0x10, 0, 0}},
		{"arm", filter5ARM, 8, 0, []byte{0x10, 0, 0, 0xeb, 0x10, 0, 0, 0xea}, []byte{0x0e, 0, 0, 0xeb, 0x10, 0, 0, 0xea}},
		{"arm-wrap", filter5ARM, 0, 0, []byte{0, 0, 0, 0, 0, 0, 0, 0xeb}, []byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xeb}},
		{"delta", filter5Delta, 0, 2, []byte{1, 2, 3, 4}, []byte{255, 253, 253, 249}},
		{"delta-odd", filter5Delta, 0, 3, []byte{1, 1, 1, 1, 1}, []byte{255, 255, 255, 254, 254}},
	}
	for _, tc := range tests {
		buf := bytes.Clone(tc.in)
		switch tc.typ {
		case filter5E8, filter5E8E9:
			e8Filter5(buf, tc.offset, tc.typ == filter5E8E9)
		case filter5ARM:
			armFilter5(buf, tc.offset)
		case filter5Delta:
			dst := make([]byte, len(buf))
			undelta(dst, buf, tc.channels)
			buf = dst
		}
		if !bytes.Equal(buf, tc.want) {
			t.Errorf("%s: got % x, want % x", tc.name, buf, tc.want)
		}
	}
}

func BenchmarkFilters5(b *testing.B) {
	data := patternData5(1<<20, 1)
	for i := 0; i < len(data); i += 97 {
		data[i] = 0xe8
	}
	dst := make([]byte, len(data))
	b.Run("e8e9", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			e8Filter5(data, 0, true)
		}
	})
	b.Run("delta4", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			undelta(dst, data, 4)
		}
	})
}

// refE85 is a byte-at-a-time reference of e8Filter5 (as unrar writes it).
func refE85(buf []byte, offset uint32, e9 bool) {
	const fileSize = 0x1000000
	cmp2 := byte(0xe8)
	if e9 {
		cmp2 = 0xe9
	}
	for i := 0; i+4 < len(buf); {
		c := buf[i]
		i++
		if c != 0xe8 && c != cmp2 {
			continue
		}
		off := (uint32(i) + offset) % fileSize
		addr := binary.LittleEndian.Uint32(buf[i:])
		if addr&0x80000000 != 0 {
			if (addr+off)&0x80000000 == 0 {
				binary.LittleEndian.PutUint32(buf[i:], addr+fileSize)
			}
		} else if (addr-fileSize)&0x80000000 != 0 {
			binary.LittleEndian.PutUint32(buf[i:], addr-off)
		}
		i += 4
	}
}

// TestFilterE8Reference cross-checks the IndexByte scan of e8Filter5 with
// the byte loop.
func TestFilterE8Reference(t *testing.T) {
	for _, e9 := range []bool{false, true} {
		for _, n := range []int{0, 4, 5, 6, 9, 100, 5000} {
			src := patternData5(n, uint32(n))
			for i := 0; i < n; i += 7 {
				src[i] = 0xe8 + byte(i%2)
			}
			if n > 3 {
				src[n-3] = 0xe8
			}
			a, b := bytes.Clone(src), bytes.Clone(src)
			refE85(a, 12345, e9)
			e8Filter5(b, 12345, e9)
			if !bytes.Equal(a, b) {
				t.Fatalf("e9=%v n=%d: differs from the reference", e9, n)
			}
		}
	}
}
