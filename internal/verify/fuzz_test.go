package verify

import (
	"bytes"
	"hash/adler32"
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

// FuzzAdler32 compares every Adler-32 path, written in two pieces cut at
// split, with hash/adler32.
func FuzzAdler32(f *testing.F) {
	for _, n := range []int{0, 31, 32, 100, adlerNMax + 40} {
		f.Add(pattern(n), uint16(n/3))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		want := adler32.Checksum(data)
		cut := min(int(split), len(data))
		for _, i := range impls() {
			restore := i.set()
			got := UpdateAdler32(SumAdler32(data[:cut]), data[cut:])
			restore()
			if got != want {
				t.Fatalf("%s: len %d split %d: %08x, want %08x", i.name, len(data), cut, got, want)
			}
		}
	})
}

// FuzzXXH checks that XXH32 and XXH64 give the same digest however the input
// is split across writes.
func FuzzXXH(f *testing.F) {
	for _, n := range []int{0, 3, 15, 16, 17, 31, 32, 33, 100} {
		f.Add(pattern(n), uint8(n/2), uint8(n/3))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut1, cut2 uint8) {
		a := min(int(cut1), len(data))
		b := min(a+int(cut2), len(data))
		for _, k := range []Kind{XXH32, XXH64} {
			whole := New(k)
			whole.Write(data)
			split := New(k)
			split.Write(data[:a])
			split.Write(data[a:b])
			split.Write(data[b:])
			if got, want := split.Sum(nil), whole.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%v: len %d cuts %d,%d: %x, want %x", k, len(data), a, b, got, want)
			}
		}
	})
}
