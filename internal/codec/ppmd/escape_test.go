package ppmd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"
)

// checkEscapeTwins compares sumUnmasked and findUnmasked (assembly on
// amd64 unless purego) with their Go twins on one state array and mask,
// for count at every boundary of the cumulative frequencies and beyond
// the sum (which no model asks, but the twins answer alike).
func checkEscapeTwins(t *testing.T, st *[maxStatesBytes]byte, last byte, mask *[256]byte, extra uint32) {
	t.Helper()
	sum, want := sumUnmasked(st, last, mask), sumUnmaskedGeneric(st, last, mask)
	if sum != want {
		t.Fatalf("%d states: sumUnmasked %d, generic %d", int(last)+1, sum, want)
	}
	counts := []uint32{0, sum, sum + 1, extra, extra % (sum + 1), ^uint32(0)}
	acc := uint32(0)
	for i := 0; i <= int(last); i++ {
		acc += uint32(st[i*6+1]) & uint32(mask[st[i*6]])
		counts = append(counts, acc-1, acc)
	}
	for _, count := range counts {
		off, acc := findUnmasked(st, last, mask, count)
		wantOff, wantAcc := findUnmaskedGeneric(st, last, mask, count)
		if off != wantOff || acc != wantAcc {
			t.Fatalf("%d states, count %d: findUnmasked %d, %d; generic %d, %d",
				int(last)+1, count, off, acc, wantOff, wantAcc)
		}
	}
}

// TestEscapeTwins checks the escape helpers against their Go twins for
// every state count, on random states (and random bytes past them, which
// must not count), masks of 0/0xFF and of any byte.
func TestEscapeTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var st [maxStatesBytes]byte
	var mask [256]byte
	for n := 1; n <= 256; n++ {
		for trial := 0; trial < 8; trial++ {
			for i := range st {
				st[i] = byte(r.Uint32())
			}
			for i := range mask {
				switch {
				case trial == 7:
					mask[i] = byte(r.Uint32()) // not a model's, but alike
				case trial == 6 || r.IntN(4) == 0:
					mask[i] = 0
				default:
					mask[i] = 0xFF
				}
			}
			if trial == 5 {
				for i := range st[:n*6] {
					st[i] = 0xFF // frequencies of 255: the largest sums
				}
			}
			checkEscapeTwins(t, &st, byte(n-1), &mask, r.Uint32())
		}
	}
}

// FuzzEscapeTwins compares the escape helpers with their Go twins on
// arbitrary states and masks: the first byte is the state count less
// one, the next 32 the mask's bits, the next 4 a count, the rest the
// states' bytes.
func FuzzEscapeTwins(f *testing.F) {
	f.Add([]byte{0})
	f.Add(make([]byte, 37+6*256))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 37 {
			return
		}
		var st [maxStatesBytes]byte
		var mask [256]byte
		for i := range mask {
			if data[1+i/8]>>(i%8)&1 != 0 {
				mask[i] = 0xFF
			}
		}
		copy(st[:], data[37:])
		checkEscapeTwins(t, &st, data[0], &mask, binary.LittleEndian.Uint32(data[33:]))
	})
}

// TestEscapeTables checks what escapeH takes for granted: ns2Indx picks a
// row of the SEE table.
func TestEscapeTables(t *testing.T) {
	var m ModelH
	for i, v := range ns2Indx {
		if int(v) >= len(m.see) {
			t.Fatalf("ns2Indx[%d] = %d: no such SEE row", i, v)
		}
	}
}

// escapeTwin decodes the same stream with decodeEscaped in assembly and in
// Go (on amd64; elsewhere both are Go), a chunk at a time, and compares
// what they decode, their errors, their models (heap included) and their
// coders after every chunk. newModel returns a model, a ModelH or a
// ModelI, and the coder's Init for it. With perturb, both coders' ranges
// are set to the same small value between chunks, as invalid data may
// leave them: totals above the range, normalisations of several bytes.
func escapeTwin(t *testing.T, name string, newModel func() (twinModel, func(*RangeDecoder, io.ByteReader) error), packed []byte, bufSize, size, chunk int, perturb *rand.Rand) {
	t.Helper()
	defer func(old bool) { useEscapeAsm = old }(useEscapeAsm)
	type twin struct {
		m   twinModel
		rc  RangeDecoder
		out []byte
		err error
	}
	var tw [2]twin
	for i := range tw {
		m, init := newModel()
		tw[i].m = m
		var br io.ByteReader = bytes.NewReader(packed)
		if bufSize > 0 {
			br = bufio.NewReaderSize(bytes.NewReader(packed), bufSize)
		}
		if init(&tw[i].rc, br) != nil {
			return
		}
	}
	for done := 0; done < size; done += chunk {
		for i := range tw {
			useEscapeAsm = i == 0
			buf := make([]byte, min(chunk, size-done))
			n, err := tw[i].m.Decode(&tw[i].rc, buf)
			tw[i].out, tw[i].err = buf[:n], err
		}
		a, g := &tw[0], &tw[1]
		if !bytes.Equal(a.out, g.out) || a.err != g.err {
			t.Fatalf("%s at %d: assembly %d bytes, %v; Go %d bytes, %v", name, done, len(a.out), a.err, len(g.out), g.err)
		}
		ra, rg := a.rc, g.rc
		if ra.code != rg.code || ra.rng != rg.rng || ra.low != rg.low || ra.pos != rg.pos || ra.err != rg.err {
			t.Fatalf("%s at %d: coders differ: %+v / %+v", name, done, ra, rg)
		}
		if !reflect.DeepEqual(a.m, g.m) {
			t.Fatalf("%s at %d: models differ", name, done)
		}
		if a.err != nil {
			return
		}
		if perturb != nil {
			a.rc.rng = 1 + uint32(perturb.IntN(1<<20))
			g.rc.rng = a.rc.rng
		}
	}
}

// twinModel is a ModelH or a ModelI.
type twinModel interface {
	Decode(rc *RangeDecoder, dst []byte) (int, error)
}

func modelH(order, mem int) func() (twinModel, func(*RangeDecoder, io.ByteReader) error) {
	return func() (twinModel, func(*RangeDecoder, io.ByteReader) error) {
		m, err := NewH(order, mem)
		if err != nil {
			panic(err)
		}
		return m, (*RangeDecoder).Init7z
	}
}

// modelHRAR is modelH with RAR's coder.
func modelHRAR(order, mem int) func() (twinModel, func(*RangeDecoder, io.ByteReader) error) {
	return func() (twinModel, func(*RangeDecoder, io.ByteReader) error) {
		m, _ := modelH(order, mem)()
		return m, (*RangeDecoder).InitRAR
	}
}

func modelI(order, mem, restore int) func() (twinModel, func(*RangeDecoder, io.ByteReader) error) {
	return func() (twinModel, func(*RangeDecoder, io.ByteReader) error) {
		m, err := NewI(order, mem, restore)
		if err != nil {
			panic(err)
		}
		return m, (*RangeDecoder).InitI
	}
}

// TestEscapeHTwins compares variant H's escapes in assembly and in Go on
// the fixtures and on arbitrary streams, through readers with buffers of
// 16 bytes (refills at every point of the loop), 4 KiB, and none (where
// the assembly hands every normalisation back).
func TestEscapeHTwins(t *testing.T) {
	for _, f := range loadFixtures(t) {
		for _, bs := range []int{16, 4096, 0} {
			escapeTwin(t, f.name, modelH(f.order, f.mem), f.packed, bs, f.size, 1<<16, nil)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 300; k++ {
		data := make([]byte, 16+r.IntN(2048))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		data[0] = 0
		bs := []int{16, 64, 4096, 0}[k%4]
		newModel := modelH(2+r.IntN(63), MinMemSize<<r.IntN(4))
		if k%3 == 2 {
			newModel = modelHRAR(2+r.IntN(63), MinMemSize<<r.IntN(4))
		}
		escapeTwin(t, "random", newModel, data, bs, 8*len(data), 1+r.IntN(64), []*rand.Rand{nil, r}[k/2%2])
	}
}

// FuzzEscapeHTwins is TestEscapeHTwins' comparison on arbitrary streams.
func FuzzEscapeHTwins(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		f.Add(byte(fx.order), fx.packed[:min(len(fx.packed), fuzzMaxInput)])
	}
	f.Fuzz(func(t *testing.T, order byte, data []byte) {
		data = data[:min(len(data), fuzzMaxInput)]
		escapeTwin(t, "fuzz", modelH(int(order)%(MaxOrder-1)+2, MinMemSize<<(order>>6)), data, 16, 4*len(data)+64, 1+int(order)%32, nil)
		// RAR's coder, its ranges perturbed too (ranges below the totals).
		escapeTwin(t, "fuzz RAR", modelHRAR(int(order)%(MaxOrder-1)+2, MinMemSize<<(order>>6)), data, 16, 4*len(data)+64, 1+int(order)%32, rand.New(rand.NewPCG(uint64(order), 1)))
	})
}

// TestEscapeITwins is TestEscapeHTwins for variant I.
func TestEscapeITwins(t *testing.T) {
	for _, f := range loadFixturesI(t) {
		for _, bs := range []int{16, 4096, 0} {
			escapeTwin(t, f.name, modelI(f.order, f.mem, f.restore), f.packed, bs, f.size, 1<<16, nil)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for k := 0; k < 300; k++ {
		data := make([]byte, 16+r.IntN(2048))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		bs := []int{16, 64, 4096, 0}[k%4]
		escapeTwin(t, "random", modelI(2+r.IntN(MaxOrderI-1), MinMemSize<<r.IntN(8), r.IntN(2)), data, bs, 8*len(data), 1+r.IntN(64), []*rand.Rand{nil, r}[k/2%2])
	}
}

// FuzzEscapeITwins is TestEscapeITwins' comparison on fuzzed streams.
func FuzzEscapeITwins(f *testing.F) {
	for _, fx := range loadFixturesI(f) {
		f.Add(byte(fx.order), byte(fx.restore), fx.packed[:min(len(fx.packed), fuzzMaxInput)])
	}
	f.Fuzz(func(t *testing.T, order, restore byte, data []byte) {
		data = data[:min(len(data), fuzzMaxInput)]
		escapeTwin(t, "fuzz", modelI(int(order)%(MaxOrderI-1)+2, MinMemSize<<(restore>>1&7), int(restore&1)),
			data, 16, 4*len(data)+64, 1+int(order)%32, nil)
	})
}

// BenchmarkEscapeHelpers times sumUnmasked and findUnmasked against their
// Go twins on contexts of 24 states (about what the escapes of the bench
// text meet) with a third of the symbols masked.
func BenchmarkEscapeHelpers(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	const n = 24
	var st [maxStatesBytes]byte
	for i := range st {
		st[i] = byte(r.Uint32())
	}
	mask := allUnmasked
	for i := range mask {
		if r.IntN(3) == 0 {
			mask[i] = 0
		}
	}
	sum := sumUnmaskedGeneric(&st, n-1, &mask)
	var sink uint32
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"sum", func() { sink += sumUnmasked(&st, n-1, &mask) }},
		{"sum-generic", func() { sink += sumUnmaskedGeneric(&st, n-1, &mask) }},
		{"find", func() { _, acc := findUnmasked(&st, n-1, &mask, sink%sum); sink += acc }},
		{"find-generic", func() { _, acc := findUnmaskedGeneric(&st, n-1, &mask, sink%sum); sink += acc }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				tc.f()
			}
		})
	}
}

// TestEscapeHRARRange: escapes with RAR's coder whose range (at least
// 2^15 once normalised) is below the escape's total, which only invalid
// data leaves: escapeH fails the coder where the Go loop's threshold
// does, and both go on alike. The escapes start from models that decoded
// arbitrary input at order 2, their first context's states masked as
// decode masks them, in every other trial the suffixes' frequencies
// raised.
func TestEscapeHRARRange(t *testing.T) {
	defer func(old bool) { useEscapeAsm = old }(useEscapeAsm)
	r := rand.New(rand.NewPCG(9, 10))
	data := make([]byte, 8192)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	failed := 0
	for trial := 0; trial < 300; trial++ {
		m, _ := NewH(2, 1<<16)
		var rc RangeDecoder
		rc.InitRAR(bytes.NewReader(data[r.IntN(4096):]))
		if _, err := m.Decode(&rc, make([]byte, 100+r.IntN(4000))); err != nil {
			continue
		}
		ctx := unit(m.heap, m.minCtx)
		ns := le16(ctx[0:])
		if ns == 1 {
			continue
		}
		maskAll(stateArr(m.heap, le32(ctx[4:])), byte(ns-1), &m.charMask)
		// Frequencies no model reaches in the suffixes (but models'
		// bytes): totals above 2^15, above such a range.
		for c := le32(ctx[8:]); c != 0 && trial%2 == 0; c = le32(unit(m.heap, c)[8:]) {
			if n := le16(unit(m.heap, c)[0:]); n > 1 {
				st := stateArr(m.heap, le32(unit(m.heap, c)[4:]))
				for i := range n {
					st[i*6+1] = byte(128 + r.IntN(128))
				}
			}
		}
		// A range that needs no normalising: its ends differ in their top
		// byte.
		rng := 1<<15 + uint32(r.IntN(1<<15))
		rc.rng, rc.low, rc.code = rng, 1<<24-rng/2, uint32(r.IntN(int(rng)))
		type run struct {
			m   ModelH
			rc  RangeDecoder
			sym int
		}
		var out [2]run
		for i := range out {
			o := &out[i]
			o.m, o.rc = *m, rc
			o.m.heap = bytes.Clone(m.heap)
			in := *rc.br.(*bytes.Reader) // each its own input, where rc's is
			o.rc.br = &in
			useEscapeAsm = i == 0
			o.sym = o.m.decodeEscaped(&o.rc)
		}
		a, g := &out[0], &out[1]
		if a.sym != g.sym || a.rc.code != g.rc.code || a.rc.rng != g.rc.rng || a.rc.low != g.rc.low || a.rc.pos != g.rc.pos || a.rc.err != g.rc.err {
			t.Fatalf("trial %d: assembly %d, %+v; Go %d, %+v", trial, a.sym, a.rc, g.sym, g.rc)
		}
		if !reflect.DeepEqual(a.m, g.m) {
			t.Fatalf("trial %d: models differ", trial)
		}
		if g.rc.err == ErrCorrupt {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("no escape met a range below its total")
	}
	t.Logf("%d escapes failed the coder", failed)
}
