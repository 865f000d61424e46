package verify

import (
	"bytes"
	"hash/crc64"
	"testing"
)

// FuzzBLAKE2sp compares every BLAKE2sp implementation, written in two pieces
// cut at split, with the generic one written at once, for the same input and
// key.
func FuzzBLAKE2sp(f *testing.F) {
	for _, n := range []int{0, 1, 64, 511, 512, 960, 961, 1500, 4097} {
		f.Add(pattern(n), uint16(n/3), uint8(0))
	}
	f.Add(seqBytes(255), uint16(100), uint8(32))
	f.Fuzz(func(t *testing.T, data []byte, split uint16, keyLen uint8) {
		key := seqBytes(int(keyLen % 33))
		sum := func(i impl, cut int) []byte {
			defer i.set()()
			h, err := NewBLAKE2sp(key)
			if err != nil {
				t.Fatal(err)
			}
			cut = min(cut, len(data))
			h.Write(data[:cut])
			h.Write(data[cut:])
			return h.Sum(nil)
		}
		want := sum(generic, len(data))
		for _, i := range impls() {
			if got := sum(i, int(split)); !bytes.Equal(got, want) {
				t.Fatalf("%s: len %d key %d split %d: %x, want %x", i.name, len(data), len(key), split, got, want)
			}
		}
	})
}

// FuzzCRC64 compares every CRC64 path with hash/crc64.
func FuzzCRC64(f *testing.F) {
	for _, n := range []int{0, 7, 63, 64, 65, 128, 1000} {
		f.Add(pattern(n), uint64(0))
	}
	tab := crc64.MakeTable(crc64.ECMA)
	f.Fuzz(func(t *testing.T, data []byte, init uint64) {
		want := crc64.Update(init, tab, data)
		for _, i := range impls() {
			restore := i.set()
			got := crc64Update(init, data)
			restore()
			if got != want {
				t.Fatalf("%s: len %d init %x: %016x, want %016x", i.name, len(data), init, got, want)
			}
		}
	})
}
