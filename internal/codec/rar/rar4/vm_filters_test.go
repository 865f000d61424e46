package rar4

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

func TestVMFilters(t *testing.T) {
	tests := []struct {
		name string
		f    filter29
		off  uint32
		in   []byte
		want []byte
	}{
		{"e8-positive", filter29{kind: vmE8}, 0,
			[]byte{0xe8, 0x10, 0, 0, 0, 0x90, 0x90, 0x90, 0x90},
			[]byte{0xe8, 0x0f, 0, 0, 0, 0x90, 0x90, 0x90, 0x90}},
		{"e8-negative", filter29{kind: vmE8}, 0,
			[]byte{0xe8, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0},
			[]byte{0xe8, 0xff, 0xff, 0xff, 0x00, 0, 0, 0, 0}},
		{"e8-ignores-e9", filter29{kind: vmE8}, 0,
			[]byte{0xe9, 0x10, 0, 0, 0, 0, 0, 0, 0},
			[]byte{0xe9, 0x10, 0, 0, 0, 0, 0, 0, 0}},
		{"e8e9", filter29{kind: vmE8E9}, 0x100,
			[]byte{0xe9, 0x10, 0x02, 0, 0, 0, 0, 0, 0},
			[]byte{0xe9, 0x0f, 0x01, 0, 0, 0, 0, 0, 0}},
		{"delta-2ch", filter29{kind: vmDelta, r: [7]uint32{2}}, 0,
			[]byte{1, 1, 1, 1},
			[]byte{255, 255, 254, 254}},
		{"delta-no-channels", filter29{kind: vmDelta}, 0,
			[]byte{1, 2, 3}, []byte{1, 2, 3}},
		{"rgb-width-too-big", filter29{kind: vmRGB, r: [7]uint32{1000, 0}}, 0,
			[]byte{1, 2, 3, 4, 5, 6}, []byte{1, 2, 3, 4, 5, 6}},
		{"rgb-posr-too-big", filter29{kind: vmRGB, r: [7]uint32{6, 3}}, 0,
			[]byte{1, 2, 3, 4, 5, 6}, []byte{1, 2, 3, 4, 5, 6}},
		{"audio-too-many-channels", filter29{kind: vmAudio, r: [7]uint32{129}}, 0,
			[]byte{1, 2, 3}, []byte{1, 2, 3}},
		{"itanium-short", filter29{kind: vmItanium}, 0,
			[]byte{1, 2, 3}, []byte{1, 2, 3}},
		{"upcase", filter29{kind: vmUpcase}, 0,
			[]byte{'a', 2, 'b', 2, 2, 'c'},
			[]byte{'a', 'B', 2, 'c'}},
		{"e8-short", filter29{kind: vmE8}, 0,
			[]byte{0xe8, 1, 2}, []byte{0xe8, 1, 2}},
	}
	mem := make([]byte, 2*vmMemSize+4)
	for _, tt := range tests {
		f := tt.f
		f.length = len(tt.in)
		copy(mem, tt.in)
		got := runVMFilter(&f, mem, tt.off)
		if !bytes.Equal(got, tt.want) {
			t.Errorf("%s: got %x, want %x", tt.name, got, tt.want)
		}
	}
}

// TestVMFiltersLargest runs every filter on a full-size block with extreme
// parameters: results stay inside the filter memory.
func TestVMFiltersLargest(t *testing.T) {
	mem := make([]byte, 2*vmMemSize+4)
	for i := range mem {
		mem[i] = byte(i * 7)
	}
	for k := vmE8; k <= vmUpcase; k++ {
		for _, n := range []int{vmMemSize / 2, vmMemSize} {
			for _, r0 := range []uint32{0, 1, 3, 4, 128, 1024, 0xffffffff} {
				f := filter29{kind: k, length: n, r: [7]uint32{r0, 2}}
				out := runVMFilter(&f, mem, 0xfffffff0)
				if len(out) != n {
					t.Fatalf("kind %d: %d bytes out of %d", k, len(out), n)
				}
			}
		}
	}
}

// bitWriter writes the MSB-first fields of a filter definition.
type bitWriter struct {
	b []byte
	n uint
}

func (w *bitWriter) put(v uint32, bits uint) {
	for i := int(bits) - 1; i >= 0; i-- {
		if w.n%8 == 0 {
			w.b = append(w.b, 0)
		}
		if v>>uint(i)&1 != 0 {
			w.b[len(w.b)-1] |= 0x80 >> (w.n % 8)
		}
		w.n++
	}
}

// data writes a number in RarVM::ReadData's 32-bit form.
func (w *bitWriter) data(v uint32) {
	w.put(3, 2)
	w.put(v>>16, 16)
	w.put(v&0xffff, 16)
}

func TestFilterDefinitions(t *testing.T) {
	var u unpacker
	if err := u.init(bytes.NewReader(nil), 29, false, -1, maxWin); err != nil {
		t.Fatal(err)
	}
	d := u.dec.(*unpack29)

	// A block longer than VM memory is refused.
	var w bitWriter
	w.data(0)       // start offset
	w.data(0x40001) // length
	if err := d.filt.add(&u, 0x20, w.b); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("oversize block: %v", err)
	}

	// An unknown VM program is refused as unsupported, by name.
	d.filt.reset()
	w = bitWriter{}
	w.data(0)  // start offset
	w.data(16) // length
	prog := []byte{0, 1, 2, 3, 4}
	prog[0] = 1 ^ 2 ^ 3 ^ 4
	w.data(uint32(len(prog)))
	for _, c := range prog {
		w.put(uint32(c), 8)
	}
	if err := d.filt.add(&u, 0x20, w.b); !errors.Is(err, archive.ErrUnsupported) {
		t.Errorf("unknown program: %v", err)
	}

	// A program whose XOR check fails is corrupt.
	d.filt.reset()
	w = bitWriter{}
	w.data(0)
	w.data(16)
	w.data(3)
	w.put(0xff, 8)
	w.put(1, 8)
	w.put(2, 8)
	if err := d.filt.add(&u, 0x20, w.b); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("bad XOR: %v", err)
	}

	// Referring to a filter number never defined is corrupt.
	d.filt.reset()
	w = bitWriter{}
	w.data(5)
	w.data(0)
	if err := d.filt.add(&u, 0x80, w.b); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("undefined filter number: %v", err)
	}

	// A definition cut short is corrupt.
	if err := d.filt.add(&u, 0x20, []byte{0xc0}); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("truncated definition: %v", err)
	}

	// Numbers that turn negative in a 32-bit int (filter number, program
	// size) are refused, not used as indexes (GOARCH=arm/386 runs check
	// this; on 64 bits they are merely out of range).
	for _, n := range []uint32{0x80000000, 0xffffffff} {
		d.filt.reset()
		w = bitWriter{}
		w.data(n)
		w.data(0)
		if err := d.filt.add(&u, 0x80, w.b); !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("filter number %#x: %v", n, err)
		}
		d.filt.reset()
		w = bitWriter{}
		w.data(0)  // start offset
		w.data(16) // length
		w.data(n)  // program size
		if err := d.filt.add(&u, 0x20, w.b); !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("program size %#x: %v", n, err)
		}
	}
}

// TestVMFilterHugeRegisters runs the parametrised filters with register
// values that are negative as a 32-bit int: each leaves the data as it is
// (as unrar does for out-of-range parameters) instead of indexing with them.
func TestVMFilterHugeRegisters(t *testing.T) {
	mem := make([]byte, vmMemSize+4)
	for i := range 64 {
		mem[i] = byte(i)
	}
	for _, kind := range []vmFilterKind{vmDelta, vmRGB, vmAudio} {
		for _, r := range [][2]uint32{{0x80000000, 0}, {0xffffffff, 0}, {0xfffffffd, 1}, {6, 0x80000000}, {6, 0xffffffff}} {
			if r[0] == 6 && kind != vmRGB {
				continue // a valid channel count; only RGB reads r[1]
			}
			f := filter29{kind: kind, length: 64, r: [7]uint32{r[0], r[1]}}
			out := runVMFilter(&f, mem, 0)
			if len(out) != 64 || &out[0] != &mem[0] || out[63] != 63 {
				t.Errorf("kind %d registers %#x: data changed or moved", kind, r)
			}
		}
	}
}

// endless is a decoder that writes zeros forever.
type endless struct{}

func (endless) reset(bool) {}
func (endless) decode(u *unpacker) error {
	for u.room() {
		u.putByte(0)
	}
	return nil
}

// TestFilterBounds queues crafted filter blocks: one starting before the
// output position and one that can never fit the window must fail
// cleanly.
func TestFilterBounds(t *testing.T) {
	var u unpacker
	if err := u.init(bytes.NewReader(nil), 29, false, -1, maxWin); err != nil {
		t.Fatal(err)
	}
	u.dec = endless{}
	buf := make([]byte, 1000)
	if _, err := u.read(buf); err != nil {
		t.Fatal(err)
	}
	u.filters = append(u.filters, filter29{start: u.wr - 10, length: 100, kind: vmE8})
	if _, err := io.ReadFull(unpSrc{&u}, buf); !errors.Is(err, errFilterOrder) {
		t.Errorf("filter in the past: %v", err)
	}
	u.filters = append(u.filters[:0], filter29{start: u.wr, length: maxWin, kind: vmE8})
	if _, err := io.ReadFull(unpSrc{&u}, buf); !errors.Is(err, errFilterOrder) {
		t.Errorf("filter larger than the window: %v", err)
	}
}

func BenchmarkVMFilters(b *testing.B) {
	mem := make([]byte, 2*vmMemSize+4)
	for i := range mem {
		mem[i] = byte(i*31 + i>>8)
	}
	for _, c := range []struct {
		name string
		f    filter29
	}{
		{"e8", filter29{kind: vmE8}},
		{"delta4", filter29{kind: vmDelta, r: [7]uint32{4}}},
		{"rgb", filter29{kind: vmRGB, r: [7]uint32{3 * 640, 0}}},
		{"audio2", filter29{kind: vmAudio, r: [7]uint32{2}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			f := c.f
			f.length = vmMemSize / 2
			b.SetBytes(int64(f.length))
			b.ReportAllocs()
			for b.Loop() {
				runVMFilter(&f, mem, 0)
			}
		})
	}
}

// TestWindowGrow checks that a solid stream's window keeps its bytes at
// their absolute positions when a later file declares a larger dictionary.
func TestWindowGrow(t *testing.T) {
	var u unpacker
	if err := u.init(bytes.NewReader(nil), 29, false, -1, minWin); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < minWin+minWin/2; i++ { // wraps around once
		u.putByte(byte(i * 13))
	}
	u.wr = u.unp
	if err := u.init(bytes.NewReader(nil), 29, true, -1, maxWin); err != nil {
		t.Fatal(err)
	}
	if len(u.win) != maxWin {
		t.Fatalf("window %d", len(u.win))
	}
	for p := u.unp - minWin; p < u.unp; p++ {
		if u.win[p&u.mask] != byte(p*13) {
			t.Fatalf("byte at %d lost", p)
		}
	}
}

// TestCopyBeforeStart: a match reaching before the start of the stream
// reads zeros, whatever a reused window held.
func TestCopyBeforeStart(t *testing.T) {
	var u unpacker
	if err := u.init(bytes.NewReader(nil), 29, false, -1, minWin); err != nil {
		t.Fatal(err)
	}
	for i := range u.win {
		u.win[i] = 0xee // stale bytes of an earlier archive
	}
	u.putByte(1)
	u.putByte(2)
	u.putByte(3)
	u.copyMatch(5, 4)
	want := []byte{1, 2, 3, 0, 1, 2, 3, 0}
	if got := u.win[:8]; !bytes.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
