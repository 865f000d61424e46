package rarshared

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzE8 runs E8 over arbitrary bytes at an arbitrary file offset and
// checks it against refE8, unrar's byte loop: the same bytes, the length
// unchanged.
func FuzzE8(f *testing.F) {
	// TestE8Reference's shape: calls with small positive addresses.
	src := patternData(300, 7)
	for i := 0; i+4 < len(src); i += 7 {
		src[i] = 0xe8 + byte(i%2)
		binary.LittleEndian.PutUint32(src[i+1:], 0x00123456)
	}
	f.Add(src, uint32(12345), true, false)
	f.Add(src, uint32(0x1000000-3), false, true)
	f.Add([]byte{0xe8, 0x00, 0x00, 0x20, 0x00, 0}, uint32(0x1000000), false, false) // TestE8Wrap
	f.Add([]byte{0xe9, 0xff, 0xff, 0xff, 0xff, 0xe8}, uint32(0), true, true)
	f.Fuzz(func(t *testing.T, data []byte, offset uint32, e9, wrap bool) {
		want, got := bytes.Clone(data), bytes.Clone(data)
		refE8(want, offset, e9, wrap)
		E8(got, offset, e9, wrap)
		if !bytes.Equal(want, got) {
			t.Fatalf("offset %#x e9=%v wrap=%v: differs from the reference", offset, e9, wrap)
		}
	})
}

// FuzzUndelta undoes delta coding of arbitrary bytes in 1 to 1024
// channels and checks it against refUndelta: the same bytes, and nothing
// written past the input's length in a longer dst.
func FuzzUndelta(f *testing.F) {
	src := patternData(3001, 9)
	for _, ch := range []uint16{0, 1, 2, 3, 31, 1023} {
		f.Add(src[:1000+int(ch)], ch)
	}
	f.Add([]byte{}, uint16(4))
	f.Fuzz(func(t *testing.T, data []byte, c uint16) {
		ch := int(c)%1024 + 1
		n := len(data)
		want := make([]byte, n)
		refUndelta(want, data, ch)
		got := bytes.Repeat([]byte{0xa5}, n+8)
		Undelta(got, data, ch)
		if !bytes.Equal(want, got[:n]) {
			t.Fatalf("channels %d, length %d: differs from the reference", ch, n)
		}
		if !bytes.Equal(got[n:], bytes.Repeat([]byte{0xa5}, 8)) {
			t.Fatalf("channels %d, length %d: wrote past the input's length", ch, n)
		}
	})
}
