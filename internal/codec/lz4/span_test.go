package lz4

import (
	"bytes"
	"io"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// smallReader returns a Reader whose output buffer has only span bytes of
// room after the history, decoding pieces of half that: every block moves
// the history through the buffer, and most sequences are longer than the
// room left, so they are copied in pieces.
func smallReader(span int) *Reader {
	return &Reader{span: span, piece: max(1, span/2)}
}

// spanFrames are frames of every kind over the test inputs: linked and
// independent blocks, stored blocks, long runs (matches far longer than
// the room) and long literal runs, small blocks and large.
func spanFrames(t *testing.T) map[string][]byte {
	in := testInputs()
	frames := map[string][]byte{}
	for _, fx := range fixtures(t) {
		frames[fx.name] = testutil.Fixture(t, fx.name)
	}
	var random []byte
	for i := range 200_000 {
		random = append(random, byte(uint32(i)*2654435761>>13))
	}
	blocks := [][]byte{in["zeros"], in["text"][:150_000], random, in["mixed"], in["periodc"], {'z'}, nil, in["text"][:70_000]}
	for _, flg := range []byte{0x64, 0x44, 0x74, 0x5C} { // independent, linked, block checksums, content size
		for _, bd := range []byte{0x40, 0x50, 0x60} { // 64 KiB, 256 KiB, 1 MiB blocks
			max := 1 << (8 + 2*(bd>>4&7))
			var split [][]byte
			for _, b := range blocks {
				for len(b) > max {
					split = append(split, b[:max])
					b = b[max:]
				}
				split = append(split, b)
			}
			frames["made-"+strconv.FormatUint(uint64(flg), 16)+"-"+strconv.FormatUint(uint64(bd), 16)] = makeFrame(flg, bd, split...)
		}
	}
	return frames
}

// TestSmallSpans decodes every fixture and made frame with output buffers
// of a few bytes to a little more than the history: Read and WriteTo give
// what the default Reader gives.
func TestSmallSpans(t *testing.T) {
	for name, data := range spanFrames(t) {
		want, err := decodeAll(new(Reader), bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, span := range []int{7, 100, 4096, window + 33} {
			got, err := decodeAll(smallReader(span), iotest.HalfReader(bytes.NewReader(data)))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s span %d: Read: %v, %d bytes, want %d", name, span, err, len(got), len(want))
			}
			z := smallReader(span)
			if err := z.Reset(bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := z.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("%s span %d: WriteTo: %v, %d bytes, want %d", name, span, err, out.Len(), len(want))
			}
		}
	}
}

// TestSmallSpansCorrupt checks that corrupt blocks fail alike with any
// room: offsets before the start of the block, blocks decoding past their
// maximum size and blocks ending in a match, found in the long-sequence
// path as in the decoder's.
func TestSmallSpansCorrupt(t *testing.T) {
	// Independent 64 KiB blocks, content checksum off.
	frame := func(block []byte) []byte {
		f := []byte{byte(len(block)), byte(len(block) >> 8), byte(len(block) >> 16), 0}
		f = append(f, block...)
		return withDescriptor([]byte{0x60, 0x40}, append(f, 0, 0, 0, 0)...)
	}
	long := func(n int) []byte { // a length of 15 + n more
		var b []byte
		for ; n >= 255; n -= 255 {
			b = append(b, 255)
		}
		return append(b, byte(n))
	}
	for _, tc := range []struct {
		name  string
		block []byte
		err   error
	}{
		// 4 literals, then a match reaching 10 bytes back.
		{"offset", append([]byte{0x4F, 'a', 'b', 'c', 'd', 10, 0}, append(long(100), 0x10, 'x')...), ErrOffset},
		// A match 70 000 bytes long: past the 64 KiB block maximum.
		{"overflow", append([]byte{0x1F, 'a', 1, 0}, append(long(70_000), 0x10, 'x')...), ErrOverflow},
		// 300 literals and more announced than the block holds.
		{"short-literals", append([]byte{0xF0}, append(long(300), make([]byte, 100)...)...), ErrShortBlock},
		// A long match that ends the block.
		{"ends-in-match", append([]byte{0x1F, 'a', 1, 0}, long(300)...), ErrShortBlock},
	} {
		for _, span := range []int{0, 2, 100, 100_000} {
			z := new(Reader)
			if span > 0 {
				z = smallReader(span)
			}
			_, err := decodeAll(z, bytes.NewReader(frame(tc.block)))
			if !errorIs(err, tc.err) {
				t.Errorf("%s span %d: %v, want %v", tc.name, span, err, tc.err)
			}
		}
	}
}

func errorIs(err, target error) bool {
	fe, ok := err.(*FrameError)
	return ok && fe.Err == target
}

// TestWriteToAllocs: WriteTo allocates nothing once the buffers are
// sized, across frames and Resets.
func TestWriteToAllocs(t *testing.T) {
	data := testutil.Fixture(t, "multi.lz4")
	z := new(Reader)
	br := bytes.NewReader(data)
	decode := func() {
		br.Reset(data)
		if err := z.Reset(br); err != nil {
			t.Fatal(err)
		}
		if _, err := z.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	decode()
	if n := testing.AllocsPerRun(20, decode); n != 0 {
		t.Fatalf("%v allocations per decode, want 0", n)
	}
}
