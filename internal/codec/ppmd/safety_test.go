package ppmd

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestHeapLen checks the heap's length: a power of two that holds the
// model, and heapPad-1 bytes of room.
func TestHeapLen(t *testing.T) {
	for _, need := range []uint64{1, 2, 3, MinMemSize + 16, 1<<20 + 16, 1 << 24, 1<<24 + 1} {
		n, ok := heapLen(need)
		if !ok {
			t.Fatalf("heapLen(%d) failed", need)
		}
		p := uint64(n) - heapPad + 1
		if p&(p-1) != 0 || p < need || p/2 >= need && need > 1 {
			t.Errorf("heapLen(%d) = %d: %d is not the power of two for it", need, n, p)
		}
	}
	if _, ok := heapLen(math.MaxUint64 / 2); ok {
		t.Error("heapLen accepted a heap beyond an int")
	}
}

// TestHeapViewsMasked reads records at offsets far outside a small heap:
// they wrap to the masked offset instead of panicking.
func TestHeapViewsMasked(t *testing.T) {
	n, _ := heapLen(MinMemSize)
	heap := make([]byte, n)
	mask := uint32(n - heapPad)
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 1000; i++ {
		p := r.Uint32()
		if i == 0 {
			p = math.MaxUint32
		}
		*at(heap, p) = byte(i)
		if got := unit(heap, p&mask)[0]; got != byte(i) {
			t.Fatalf("offset %#x: the byte landed elsewhere than %#x", p, p&mask)
		}
		_ = state(heap, p)[5]
		_ = stateArr(heap, p)[maxStatesBytes-1]
	}
}

// TestNarrowRangeRAR gives the RAR coder a range narrower than the
// total: the count cannot be computed, which is corrupt data, not a
// division by zero.
func TestNarrowRangeRAR(t *testing.T) {
	var rc RangeDecoder
	if err := rc.InitRAR(bytes.NewReader([]byte{1, 2, 3, 4, 5, 6, 7, 8})); err != nil {
		t.Fatal(err)
	}
	rc.rng = rcBot
	rc.threshold(rcBot + 1)
	if rc.err != ErrCorrupt {
		t.Fatalf("err %v, want ErrCorrupt", rc.err)
	}
}

// TestFailedModel decodes data no encoder wrote until the model meets an
// impossible count; it then decodes nothing until Reset.
func TestFailedModel(t *testing.T) {
	m, err := NewH(6, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	found := false
	for trial := 0; trial < 200 && !found; trial++ {
		if err := m.Reset(6, 1<<16); err != nil {
			t.Fatal(err)
		}
		data := make([]byte, 1<<12)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		data[0] = 0
		var rc RangeDecoder
		if rc.Init7z(bytes.NewReader(data)) != nil {
			continue
		}
		for i := 0; i < 1<<15; i++ {
			if _, err = m.DecodeSymbol(&rc); err != nil {
				break
			}
		}
		if err != ErrCorrupt {
			continue
		}
		found = true
		if _, err := m.DecodeSymbol(&rc); err != ErrCorrupt {
			t.Fatalf("DecodeSymbol after failing: %v", err)
		}
		if n, err := m.Decode(&rc, make([]byte, 10)); n != 0 || err != ErrCorrupt {
			t.Fatalf("Decode after failing: %d, %v", n, err)
		}
	}
	if !found {
		t.Fatal("no random stream met an impossible count")
	}
	// Reset clears the failure.
	f := loadFixtures(t)[0]
	if err := m.Reset(f.order, f.mem); err != nil {
		t.Fatal(err)
	}
	out, err := decodeAll(m, bytes.NewReader(f.packed), f.size, nil)
	if err != nil || len(out) != f.size {
		t.Fatalf("after Reset: %d bytes, %v", len(out), err)
	}
}

// TestStaleStampI puts a free block of no units above the text area: a
// cut-off cannot give it back, and the model fails instead of looping.
func TestStaleStampI(t *testing.T) {
	m, err := NewI(6, 1<<16, RestoreCutOff)
	if err != nil {
		t.Fatal(err)
	}
	m.set32(m.unitsStart, emptyNode)
	m.set32(m.unitsStart+8, 0)
	if m.expandTextArea() {
		t.Fatal("expandTextArea took a block of no units")
	}
	m.failed = true
	var rc RangeDecoder
	if err := rc.InitI(bytes.NewReader([]byte{1, 2, 3, 4, 5})); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DecodeSymbol(&rc); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("failed model decoded: %v", err)
	}
}

// TestFootprint: what a memory limit counts is what Reset allocates.
func TestFootprint(t *testing.T) {
	for _, mem := range []int{MinMemSize, 1 << 20, 3 << 20, 16<<20 - 1, 16 << 20} {
		var m ModelH
		if err := m.Reset(6, mem); err != nil {
			t.Fatal(err)
		}
		if got, want := int64(len(m.heap)), Footprint(int64(mem)); got != want {
			t.Errorf("model of %d bytes: heap of %d, Footprint says %d", mem, got, want)
		}
	}
	if Footprint(-1) != math.MaxInt64 || Footprint(math.MaxInt64) != math.MaxInt64 {
		t.Error("Footprint of impossible sizes")
	}
}

// TestSumAboveRangeI checks variant I's cut of a total above the range
// (7-Zip's PPMD8_CORRECT_SUM_RANGE, since 20.01): a root context whose
// SummFreq (0xA000) exceeds the coder's range (0x9000) is decoded with
// the range as its total, one unit a count, where the coder used to
// fail. The coder's state is set directly: 7-Zip's encoder applies the
// same cut, so no stream of ours could be told apart from one 7-Zip wrote.
func TestSumAboveRangeI(t *testing.T) {
	for _, tc := range []struct {
		code uint32
		sym  int
		err  error
	}{
		{5, 5, nil},             // count 5: the sixth of 256 states of frequency 1
		{255, 255, nil},         // the last state
		{0x1000, 0, ErrEndMark}, // the escape, from the root: the end marker
	} {
		m, err := NewI(6, 1<<16, RestoreRestart)
		if err != nil {
			t.Fatal(err)
		}
		var rc RangeDecoder
		if err := rc.InitI(bytes.NewReader(make([]byte, 64))); err != nil {
			t.Fatal(err)
		}
		put16(unit(m.heap, m.minCtx)[2:], 0xA000)
		rc.rng, rc.code = 0x9000, tc.code
		sym, err := m.DecodeSymbol(&rc)
		if err != tc.err || (err == nil && sym != tc.sym) {
			t.Errorf("code %#x: symbol %d, %v; want %d, %v", tc.code, sym, err, tc.sym, tc.err)
		}
	}
}
