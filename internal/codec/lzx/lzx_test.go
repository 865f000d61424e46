package lzx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// testData returns n bytes of text, x86-like calls, noise and repeats.
func testData(n int, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	words := []string{"lzx ", "window ", "frame ", "cabinet ", "E8 ", "\n"}
	var b []byte
	for len(b) < n {
		switch r.Intn(4) {
		case 0:
			for i := r.Intn(100); i >= 0; i-- {
				b = append(b, words[r.Intn(len(words))]...)
			}
		case 1:
			for i := r.Intn(100); i >= 0; i-- {
				b = append(b, 0x55, 0xE8)
				b = binary.LittleEndian.AppendUint32(b, uint32(r.Intn(140000)-70000))
			}
		case 2:
			for i := r.Intn(300); i >= 0; i-- {
				b = append(b, byte(r.Intn(256)))
			}
		default:
			if len(b) > 0 {
				s := r.Intn(len(b))
				b = append(b, b[s:min(len(b), s+r.Intn(3000))]...)
			}
		}
	}
	return b[:n]
}

func decodeFrames(t testing.TB, d *Decoder, frames [][]byte, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	for i, f := range frames {
		lo := i * FrameSize
		hi := min(lo+FrameSize, n)
		used, err := d.Decode(out[lo:hi], f)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if used != len(f) {
			t.Fatalf("frame %d: used %d of %d bytes", i, used, len(f))
		}
	}
	return out
}

func TestRoundTripCAB(t *testing.T) {
	for _, tc := range []struct {
		bits int
		n    int
		e8   int32
	}{
		{15, 200000, 0},
		{15, 150001, 12000000},
		{16, 100000, 1 << 20},
		{17, 300000, 0},
		{18, 70000, 30000},
		{19, 40000, 0},
		{20, 90000, 5000000},
		{21, 200000, 0},
	} {
		for seed := int64(1); seed <= 3; seed++ {
			data := testData(tc.n, seed)
			frames := encodeCAB(data, tc.bits, tc.e8, seed)
			if want := (tc.n + FrameSize - 1) / FrameSize; len(frames) != want {
				t.Fatalf("encoder made %d frames, want %d", len(frames), want)
			}
			d, err := NewDecoder(tc.bits, CAB)
			if err != nil {
				t.Fatal(err)
			}
			for pass := 0; pass < 2; pass++ { // Reset makes the decoder reusable
				got := decodeFrames(t, d, frames, tc.n)
				if !bytes.Equal(got, data) {
					t.Fatalf("bits %d seed %d: output differs", tc.bits, seed)
				}
				d.Reset()
			}
		}
	}
}

// TestResetStream checks the CHM way: two streams back to back in one
// decoder, Reset between them. The second's E8 translation counts from
// its own start (7-Zip, chmlib), and its matches may not reach into the
// first.
func TestResetStream(t *testing.T) {
	a := testData(2*FrameSize, 7)
	b := append([]byte(nil), a[:FrameSize]...)
	fa := encodeCAB(a, 16, 0, 7)
	fb := encodeCAB(b, 16, 1<<20, 8)
	d, _ := NewDecoder(16, CAB)
	got := decodeFrames(t, d, fa, len(a))
	if !bytes.Equal(got, a) {
		t.Fatal("first stream differs")
	}
	d.Reset()
	out := make([]byte, FrameSize)
	if _, err := d.Decode(out, fb[0]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, b) {
		t.Fatal("stream after Reset differs")
	}
	// A stream whose first symbol is a match one byte back (slot 0, R0 =
	// 1): after Reset there is nothing before it.
	nmain := numChars + 8*numSlots(16)
	main := flatCode(nmain, func(s int) bool { return s == 'a' || s == numChars })
	r := rand.New(rand.NewSource(1))
	w := &bitWriter{}
	w.bits(0, 1)
	w.bits(blockVerbatim, 3)
	w.bits(FrameSize, 24)
	w.writeLens(make([]byte, numChars), main.lens[:numChars], r)
	w.writeLens(make([]byte, nmain-numChars), main.lens[numChars:], r)
	w.writeLens(make([]byte, numLenSyms), make([]byte, numLenSyms), r)
	w.sym(main, numChars)
	w.align(false)
	w.out = append(w.out, make([]byte, 16)...)
	d.Reset()
	if _, err := d.Decode(out, w.out); !errors.Is(err, ErrMatch) {
		t.Fatalf("match before the stream's start: %v", err)
	}
}

func TestNewDecoderBounds(t *testing.T) {
	for _, bits := range []int{0, 14, 22, 32} {
		if _, err := NewDecoder(bits, CAB); !errors.Is(err, archive.ErrUnsupported) {
			t.Errorf("bits %d: %v", bits, err)
		}
	}
	if _, err := NewDecoder(15, Variant(9)); err == nil {
		t.Error("unknown variant accepted")
	}
}

func TestFrameSize(t *testing.T) {
	d, _ := NewDecoder(15, CAB)
	if _, err := d.Decode(make([]byte, FrameSize+1), nil); !errors.Is(err, ErrFrame) {
		t.Errorf("oversized CAB frame: %v", err)
	}
	frames := encodeCAB(testData(100, 1), 15, 0, 1)
	if _, err := d.Decode(make([]byte, 100), frames[0]); err != nil {
		t.Fatal(err)
	}
	// A frame after a short one would not start on a frame boundary.
	if _, err := d.Decode(make([]byte, 10), frames[0]); !errors.Is(err, ErrFrame) {
		t.Errorf("frame after a short one: %v", err)
	}
	w, _ := NewDecoder(15, WIM)
	if _, err := w.Decode(make([]byte, 1<<15+1), nil); !errors.Is(err, ErrFrame) {
		t.Errorf("oversized WIM chunk: %v", err)
	}
	if n, err := w.Decode(nil, nil); n != 0 || err != nil {
		t.Errorf("empty chunk: %d, %v", n, err)
	}
}

// TestTruncated cuts every frame of a stream short: each must fail with a
// corrupt-data error, not read past its input or panic.
func TestTruncated(t *testing.T) {
	data := testData(3*FrameSize+500, 3)
	frames := encodeCAB(data, 16, 1<<20, 3)
	for i := range frames {
		for _, cut := range []int{0, 1, 2, len(frames[i]) / 2, len(frames[i]) - 2} {
			if cut < 0 || cut >= len(frames[i]) {
				continue
			}
			d, _ := NewDecoder(16, CAB)
			out := make([]byte, len(data))
			var err error
			for j, f := range frames[:i+1] {
				if j == i {
					f = f[:cut]
				}
				if _, err = d.Decode(out[j*FrameSize:min((j+1)*FrameSize, len(data))], f); err != nil {
					break
				}
			}
			if !errors.Is(err, archive.ErrCorrupt) {
				t.Errorf("frame %d cut to %d: %v", i, cut, err)
			}
		}
	}
}

// TestBitFlips flips bits of a stream: the decoder must return (an error
// or wrong data), never panic or hang.
func TestBitFlips(t *testing.T) {
	data := testData(2*FrameSize, 5)
	frames := encodeCAB(data, 15, 12000000, 5)
	r := rand.New(rand.NewSource(1))
	d, _ := NewDecoder(15, CAB)
	out := make([]byte, len(data))
	for i := 0; i < 300; i++ {
		fi := r.Intn(len(frames))
		f := append([]byte(nil), frames[fi]...)
		f[r.Intn(len(f))] ^= 1 << r.Intn(8)
		d.Reset()
		for j := range frames {
			src := frames[j]
			if j == fi {
				src = f
			}
			if _, err := d.Decode(out[j*FrameSize:min((j+1)*FrameSize, len(data))], src); err != nil {
				if !errors.Is(err, archive.ErrCorrupt) {
					t.Fatalf("error of the wrong kind: %v", err)
				}
				break
			}
		}
	}
}

func TestUndoE8(t *testing.T) {
	// Positions and values at the edges of the translated ranges.
	for _, tc := range []struct {
		pos       int64
		abs, want int32
	}{
		{0, 5, 4},                // abs in [0,size): rel = abs - cur
		{100, 5, 5 - 101},        // cur is the E8 byte's position
		{100, -101, -101 + 1000}, // abs in [-cur,0): rel = abs + size
		{100, -102, -102},        // before -cur: unchanged
		{100, 1000, 1000},        // at size: unchanged
		{100, 999, 999 - 101},    // just below size
	} {
		b := make([]byte, 16)
		b[1] = 0xE8
		binary.LittleEndian.PutUint32(b[2:], uint32(tc.abs))
		undoE8(b, tc.pos, 1000)
		if got := int32(binary.LittleEndian.Uint32(b[2:])); got != tc.want {
			t.Errorf("pos %d abs %d: got %d, want %d", tc.pos, tc.abs, got, tc.want)
		}
	}
}
