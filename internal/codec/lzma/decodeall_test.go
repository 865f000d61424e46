package lzma

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/hugemem"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// lzma2Fixtures returns the raw LZMA2 fixtures with their dictionary sizes.
func lzma2Fixtures() []struct {
	fixture
	dict int64
} {
	dicts := map[string]int64{"small-xz.lzma2": 4 << 10, "text-xz.lzma2": 1 << 20, "text-dict4k-xz.lzma2": 4 << 10, "mixed-xz.lzma2": 64 << 10}
	var out []struct {
		fixture
		dict int64
	}
	for _, f := range fixtures {
		if strings.HasSuffix(f.file, ".lzma2") {
			out = append(out, struct {
				fixture
				dict int64
			}{f, dicts[f.file]})
		}
	}
	return out
}

// TestDecodeAll decodes every LZMA2 fixture into a flat buffer: exact,
// larger and one byte short, through every kind of reader, with one
// Reader2 reused for DecodeAll and for Reset and Read in turn.
func TestDecodeAll(t *testing.T) {
	sums := readSums(t)
	var z Reader2
	for _, f := range lzma2Fixtures() {
		data := testutil.Fixture(t, f.file)
		want := sums[f.want]
		for _, rd := range readers {
			for _, extra := range []int{0, 1, 100} {
				dst := hugemem.Bytes(int(want.size) + extra)
				n, err := z.DecodeAll(dst, rd.wrap(data), f.dict)
				sum := sha256.Sum256(dst[:n])
				if err != nil || int64(n) != want.size || hex.EncodeToString(sum[:]) != want.sha {
					t.Fatalf("%s/%s/+%d: %d bytes, %v", f.file, rd.name, extra, n, err)
				}
			}
			if _, err := z.DecodeAll(make([]byte, want.size-1), rd.wrap(data), f.dict); !errors.Is(err, ErrOutputFull) || !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("%s/%s: one byte short: %v", f.file, rd.name, err)
			}
			// Streaming with the same Reader2 still works after Reset, and
			// Read before Reset is refused rather than giving stale data.
			if n, err := z.Read(make([]byte, 10)); n != 0 || err == nil {
				t.Fatalf("Read after DecodeAll: %d, %v", n, err)
			}
			if err := z.Reset(rd.wrap(data), f.dict); err != nil {
				t.Fatal(err)
			}
			got, n, err := testutil.HashAll(&z)
			if err != nil || got != want.sha || n != want.size {
				t.Fatalf("%s/%s: Read after DecodeAll and Reset: %d bytes, %v", f.file, rd.name, n, err)
			}
		}
	}
}

// TestDecodeAllChunks runs hand-made LZMA2 streams through DecodeAll.
func TestDecodeAllChunks(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		size int
		want string
		err  error
	}{
		{"empty stream", []byte{0}, 0, "", nil},
		{"uncompressed", []byte{1, 0, 2, 'a', 'b', 'c', 2, 0, 0, 'd', 0}, 4, "abcd", nil},
		{"uncompressed into more room", []byte{1, 0, 2, 'a', 'b', 'c', 2, 0, 0, 'd', 0}, 10, "abcd", nil},
		{"uncompressed over the buffer", []byte{1, 0, 2, 'a', 'b', 'c', 2, 0, 0, 'd', 0}, 3, "", ErrOutputFull},
		{"dictionary reset inside", []byte{1, 0, 2, 'a', 'b', 'c', 1, 0, 0, 'd', 0}, 4, "", ErrNotFlat},
		{"no end marker", []byte{1, 0, 2, 'a', 'b', 'c'}, 4, "", ErrTruncated},
		{"first chunk keeps dictionary", []byte{2, 0, 0, 'a', 0}, 4, "", ErrChunk},
		{"range coder start", []byte{0xE0, 0, 0, 0, 4, 0x5D, 1, 0, 0, 0, 0}, 4, "", ErrRangeInit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var z Reader2
			dst := make([]byte, tc.size)
			n, err := z.DecodeAll(dst, iotest.HalfReader(bytes.NewReader(tc.in)), 4096)
			if !errors.Is(err, tc.err) || (tc.err == nil && string(dst[:n]) != tc.want) {
				t.Fatalf("got %q, %v; want %q, %v", dst[:n], err, tc.want, tc.err)
			}
		})
	}
}

// TestDecodeAllDamaged cuts and bit-flips the LZMA2 fixtures: DecodeAll
// must fail with an error of the corrupt category (or ErrNotFlat, when a
// flipped control byte becomes a dictionary reset), never panic.
func TestDecodeAllDamaged(t *testing.T) {
	sums := readSums(t)
	var z Reader2
	for _, f := range lzma2Fixtures() {
		data := testutil.Fixture(t, f.file)
		dst := make([]byte, sums[f.want].size)
		step := len(data)/97 + 1
		for n := 0; n < len(data); n += step {
			if _, err := z.DecodeAll(dst, bytes.NewReader(data[:n]), f.dict); !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("%s cut at %d: %v", f.file, n, err)
			}
		}
		bad := make([]byte, len(data))
		for i := 0; i < len(data); i += len(data)/61 + 1 {
			copy(bad, data)
			bad[i] ^= 1 << (i % 8)
			_, err := z.DecodeAll(dst, bytes.NewReader(bad), f.dict)
			if err != nil && !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, ErrNotFlat) {
				t.Fatalf("%s bit flip at %d: %v", f.file, i, err)
			}
		}
	}
}

// TestDecodeAllAllocs: DecodeAll with a reused Reader2 allocates nothing,
// and a fresh one allocates no window.
func TestDecodeAllAllocs(t *testing.T) {
	sums := readSums(t)
	data := testutil.Fixture(t, "text-xz.lzma2")
	dst := make([]byte, sums["text"].size)
	var z Reader2
	var br bytes.Reader
	allocs := testing.AllocsPerRun(5, func() {
		br.Reset(data)
		if _, err := z.DecodeAll(dst, &br, 1<<20); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("%v allocations per DecodeAll", allocs)
	}
	if cap(z.d.win) != 0 {
		t.Errorf("DecodeAll allocated a %d-byte window", cap(z.d.win))
	}
}

// readAllFlat decodes data with DecodeAll into a buffer of size bytes.
func readAllFlat(data []byte, size int, dict int64) ([]byte, error) {
	var z Reader2
	dst := make([]byte, size)
	n, err := z.DecodeAll(dst, bytes.NewReader(data), dict)
	return dst[:n], err
}

// TestNext reads the LZMA2 fixtures through Next, alone and mixed with
// Read.
func TestNext(t *testing.T) {
	sums := readSums(t)
	for _, f := range lzma2Fixtures() {
		data := testutil.Fixture(t, f.file)
		want := sums[f.want]
		for _, mixed := range []bool{false, true} {
			z, err := NewReader2(iotest.HalfReader(bytes.NewReader(data)), f.dict)
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			var n int64
			for i := 0; ; i++ {
				if mixed && i%2 == 1 {
					var small [100]byte
					k, err := z.Read(small[:])
					h.Write(small[:k])
					n += int64(k)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s: Read: %v", f.file, err)
					}
					continue
				}
				b, err := z.Next()
				h.Write(b)
				n += int64(len(b))
				if err == io.EOF {
					break
				}
				if err != nil || len(b) == 0 {
					t.Fatalf("%s: Next: %d bytes, %v", f.file, len(b), err)
				}
			}
			if n != want.size || hex.EncodeToString(h.Sum(nil)) != want.sha {
				t.Fatalf("%s mixed %v: %d bytes", f.file, mixed, n)
			}
		}
	}
}

// TestQueuedCopies runs the fixture tests with every short match queued
// (queueDist 0): the fixtures are too small for distances of 64 KiB.
func TestQueuedCopies(t *testing.T) {
	defer func(d uint32) { queueDist = d }(queueDist)
	queueDist = 0
	t.Run("Fixtures", TestFixtures)
	t.Run("DecodeAll", TestDecodeAll)
	t.Run("DecodeAllChunks", TestDecodeAllChunks)
	t.Run("Next", TestNext)
	t.Run("Reset", TestReset)
	t.Run("TestTruncated", TestTruncated)
}
