package verify

import (
	"bytes"
	"hash/crc64"
	"testing"
)

// FuzzBLAKE2sp compares the AVX2 and generic BLAKE2sp on the same input,
// key and write split (when AVX2 exists; else split against one-shot).
func FuzzBLAKE2sp(f *testing.F) {
	for _, n := range []int{0, 1, 64, 511, 512, 960, 961, 1500, 4097} {
		f.Add(pattern(n), uint16(n/3), uint8(0))
	}
	f.Add(seqBytes(255), uint16(100), uint8(32))
	defer func(s bool) { useAVX2 = s }(useAVX2)
	f.Fuzz(func(t *testing.T, data []byte, split uint16, keyLen uint8) {
		key := seqBytes(int(keyLen % 33))
		sum := func(avx2 bool, cut int) []byte {
			useAVX2 = avx2
			h, err := NewBLAKE2sp(key)
			if err != nil {
				t.Fatal(err)
			}
			cut = min(cut, len(data))
			h.Write(data[:cut])
			h.Write(data[cut:])
			return h.Sum(nil)
		}
		want := sum(false, len(data))
		if got := sum(hasAVX2, int(split)); !bytes.Equal(got, want) {
			t.Fatalf("len %d key %d split %d: %x, want %x", len(data), len(key), split, got, want)
		}
	})
}

// FuzzCRC64 compares every CRC64 path with hash/crc64.
func FuzzCRC64(f *testing.F) {
	for _, n := range []int{0, 7, 63, 64, 65, 128, 1000} {
		f.Add(pattern(n), uint64(0))
	}
	tab := crc64.MakeTable(crc64.ECMA)
	defer func(s bool) { useCLMUL = s }(useCLMUL)
	f.Fuzz(func(t *testing.T, data []byte, init uint64) {
		want := crc64.Update(init, tab, data)
		for _, clmul := range []bool{false, hasCLMUL} {
			useCLMUL = clmul
			if got := crc64Update(init, data); got != want {
				t.Fatalf("clmul %v len %d init %x: %016x, want %016x", clmul, len(data), init, got, want)
			}
		}
	})
}
