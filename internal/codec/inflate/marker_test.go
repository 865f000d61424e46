package inflate

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// blockBounds decodes the raw deflate stream src a block at a time with
// positioned decoding and returns the bit position of every block
// boundary (the first 0, the last after the final block), the output
// before each, and the whole output.
func blockBounds(t testing.TB, src []byte) (bits []int64, outs []int, out []byte) {
	t.Helper()
	f := NewInflater(nil, false)
	pos := int64(0)
	for {
		bits, outs = append(bits, pos), append(outs, len(out))
		f.ResetAt(bytes.NewReader(src[pos/8:]), uint(pos%8), out[max(0, len(out)-32768):], pos%8+1, unboundedOut)
		b, err := io.ReadAll(f)
		if err != nil {
			t.Fatalf("block at bit %d: %v", pos, err)
		}
		out = append(out, b...)
		pos = pos/8*8 + f.BitPos()
		if !f.Stopped() {
			bits, outs = append(bits, pos), append(outs, len(out))
			return bits, outs, out
		}
	}
}

const unboundedOut = 1 << 30 // past any output or position of these tests, an int on 32-bit targets too

// deflateStreams compresses shapes of the given size at levels that make
// every block type: Huffman only, stored, fixed and dynamic blocks.
func deflateStreams(t testing.TB, size int) map[string][]byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	m := map[string][]byte{}
	for name, raw := range shapes(rng, size) {
		for _, level := range []int{flate.HuffmanOnly, 0, 1, 5, 9} {
			var b bytes.Buffer
			w, _ := flate.NewWriter(&b, level)
			// Flushes make small blocks, stored empty ones among them.
			for i := 0; i < len(raw); i += 40000 {
				w.Write(raw[i:min(i+40000, len(raw))])
				if i%80000 == 0 {
					w.Flush()
				}
			}
			w.Close()
			m[fmt.Sprintf("%s/%d", name, level)] = b.Bytes()
		}
	}
	return m
}

// TestMarkerDecoder decodes from every block boundary without the window
// and checks the output, resolved with the true window, and where it
// stops, against the sequential decode.
func TestMarkerDecoder(t *testing.T) {
	d := NewMarkerDecoder()
	var buf []uint16
	for name, src := range deflateStreams(t, 150<<10) {
		bits, outs, out := blockBounds(t, src)
		for i := 0; i < len(bits)-1; i++ {
			start := bits[i]
			for _, k := range []int{i + 1, i + 2, len(bits) - 1} {
				k = min(k, len(bits)-1)
				// Stop just past boundary k-1: decoding ends at boundary k.
				stop := bits[k-1] + 1
				var res Result
				res, buf = d.Decode(buf, src, start, stop, unboundedOut, unboundedOut, 1)
				wantEnd, wantN := bits[k], outs[k]-outs[i]
				if res.Outcome == Clean || res.Outcome == Final {
					// Clean may come first; Final ends at the end.
					if res.Outcome == Final {
						wantEnd, wantN = bits[len(bits)-1], len(out)-outs[i]
					} else {
						j := 0
						for bits[j] != res.End {
							j++
							if j == len(bits) {
								t.Fatalf("%s: from %d: Clean at %d, no boundary", name, start, res.End)
							}
						}
						wantEnd, wantN = bits[j], outs[j]-outs[i]
					}
				} else if res.Outcome != Stopped {
					t.Fatalf("%s: from %d: %+v", name, start, res)
				}
				if res.End != wantEnd || len(buf) != wantN {
					t.Fatalf("%s: from %d to %d: ended at %d with %d symbols, want %d with %d (%+v)",
						name, start, stop, res.End, len(buf), wantEnd, wantN, res)
				}
				got := make([]byte, len(buf))
				if !Resolve(got, buf, out[max(0, outs[i]-MarkerWindow):outs[i]]) {
					t.Fatalf("%s: from %d: a marker before the stream", name, start)
				}
				if !bytes.Equal(got, out[outs[i]:outs[i]+wantN]) {
					t.Fatalf("%s: from %d: output differs", name, start)
				}
			}
		}
	}
}

// TestMarkerDecoderLimits checks the cuts: at the end of the input and past
// the output limit the output ends at the last whole block, and an
// interrupt stops at a block boundary.
func TestMarkerDecoderLimits(t *testing.T) {
	// Each byte repeats the one 32 KiB before: from the second block on,
	// the output is all markers, never clean.
	src := deflateStreams(t, 300<<10)["far/5"]
	bits, outs, _ := blockBounds(t, src)
	if len(bits) < 5 {
		t.Fatalf("%d blocks", len(bits)-1)
	}
	d := NewMarkerDecoder()
	s := bits[1]
	n := func(k int) int { return outs[k] - outs[1] }
	// The input cut inside block 3.
	cut := src[:(bits[3]+bits[4])/16]
	res, out := d.Decode(nil, cut, s, unboundedOut, unboundedOut, unboundedOut, 1)
	if res.Outcome != Cut || !errors.Is(res.Err, io.ErrUnexpectedEOF) || res.End != bits[3] || len(out) != n(3) {
		t.Errorf("truncated: %+v with %d symbols, want a cut at %d with %d", res, len(out), bits[3], n(3))
	}
	// The output limit inside block 2.
	res, out = d.Decode(out, src, s, unboundedOut, unboundedOut, n(2)+10, 1)
	if res.Outcome != Cut || res.Err != errOutputLimit || res.End != bits[2] || len(out) != n(2) {
		t.Errorf("limited: %+v with %d symbols, want a cut at %d with %d", res, len(out), bits[2], n(2))
	}
	// The stop output reached after block 2.
	res, out = d.Decode(out, src, s, unboundedOut, n(2), unboundedOut, 1)
	if res.Outcome != Stopped || res.End != bits[2] {
		t.Errorf("stop output: %+v, want a stop at %d", res, bits[2])
	}
	// An interrupt at the second boundary past the start.
	calls := 0
	d.Interrupt = func() bool { calls++; return calls == 2 }
	res, _ = d.Decode(out, src, s, unboundedOut, unboundedOut, unboundedOut, 1)
	d.Interrupt = nil
	if res.Outcome != Interrupted || res.End != bits[3] {
		t.Errorf("interrupted: %+v, want at %d", res, bits[3])
	}
	// A start past the input.
	if res, _ := d.Decode(nil, src, int64(len(src))*8, unboundedOut, 1, 1, 1); res.Outcome != Cut {
		t.Errorf("start past the end: %+v", res)
	}
}

// TestFindBlock checks that the finder reports each dynamic block of the
// streams at its own position, and each stored block at its length's byte.
func TestFindBlock(t *testing.T) {
	d := NewMarkerDecoder()
	found, dynamic := 0, 0
	for name, src := range deflateStreams(t, 150<<10) {
		bits, _, _ := blockBounds(t, src)
		for _, b := range bits[1 : len(bits)-1] {
			switch hdr := load64(src, int(b/8)) >> (b % 8) & 7; hdr {
			case 4: // non-final dynamic
				dynamic++
				got, stored := d.FindBlock(src, b, b+1)
				if got == b && !stored {
					found++
				} else if got != -1 {
					t.Errorf("%s: dynamic block at %d found at %d", name, b, got)
				}
			case 0: // non-final stored: zlib and Go pad with zeros
				want := (b+3+7)/8*8 - 3
				if got, stored := d.FindBlock(src, b, want+1); got != want || !stored {
					t.Errorf("%s: stored block at %d found at %d (stored %v), want %d", name, b, got, stored, want)
				}
			}
		}
	}
	if found == 0 || found < dynamic*9/10 {
		t.Errorf("found %d of %d dynamic blocks", found, dynamic)
	}
}

// TestFindBlockRandom searches random bytes: the search ends, and every
// candidate reported has a header the finder's checks pass.
func TestFindBlockRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	src := make([]byte, 1<<20)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	d := NewMarkerDecoder()
	n := 0
	for from := int64(0); ; n++ {
		got, stored := d.FindBlock(src, from, int64(len(src))*8)
		if got < 0 {
			break
		}
		if !stored && load64(src, int(got/8))>>(got%8)&7 != 4 {
			t.Fatalf("candidate at %d has header %d", got, load64(src, int(got/8))>>(got%8)&7)
		}
		// Decoding from a false candidate ends, cut or not, without panic.
		d.Decode(nil, src, got, got+1<<16, 1<<16, 1<<17, 1)
		from = got + 1
	}
	t.Logf("%d candidates in 1 MiB of random bytes", n)
}

// findBlockRef is FindBlock bit by bit, without its word tricks or its
// bound on deep checks.
func findBlockRef(d *MarkerDecoder, src []byte, from, to int64) (int64, bool) {
	k4 := kraft4()
	for o := max(from, 0); o < min(to, int64(len(src))*8); o++ {
		if o%8 == 5 && d.storedAt(src, int(o/8+1)) {
			return o, true
		}
		v := load64(src, int(o/8)) >> (o % 8)
		if v&7 != 4 || v>>3&31 > 29 || v>>8&31 > 29 {
			continue
		}
		n := uint(v>>13&15) + 4
		pre := load64(src, int((o+17)/8)) >> ((o + 17) % 8) & (1<<(3*n) - 1)
		if k4[pre&4095]+k4[pre>>12&4095]+k4[pre>>24&4095]+k4[pre>>36&4095]+k4[pre>>48&4095] == 128 && d.codesComplete(src, o) {
			return o, false
		}
	}
	return -1, false
}

// TestFindBlockRef checks FindBlock against findBlockRef on deflate
// streams with stored block lengths planted, from each candidate on, to
// ends that cut the last words.
func TestFindBlockRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	d := NewMarkerDecoder()
	found := [2]int{}
	// In a fixed order: the planted lengths, and so the counts checked
	// below, depend on it (98-115 dynamic candidates over map orders).
	streams := deflateStreams(t, 150<<10)
	for _, name := range slices.Sorted(maps.Keys(streams)) {
		src := bytes.Clone(streams[name])
		for range 8 {
			i := 1 + rng.IntN(len(src)-4)
			src[i-1] &= 0x1f
			src[i+2], src[i+3] = ^src[i], ^src[i+1]
		}
		for from := int64(0); from >= 0; {
			to := int64(len(src))*8 - rng.Int64N(100)
			want, wantStored := findBlockRef(d, src, from, to)
			got, stored := d.FindBlock(src, from, to)
			if got != want || stored != wantStored {
				t.Fatalf("%s from %d to %d: got %d (stored %v), want %d (stored %v)", name, from, to, got, stored, want, wantStored)
			}
			if stored {
				found[1]++
			} else if got >= 0 {
				found[0]++
			}
			from = got + 1
			if got < 0 {
				from = -1
			}
		}
	}
	if found[0] < 100 || found[1] < 100 {
		t.Errorf("found %d dynamic and %d stored candidates", found[0], found[1])
	}
}

// TestResolve replaces markers, and refuses those before a short window.
func TestResolve(t *testing.T) {
	win := []byte("0123456789")
	src := []uint16{'a', Marker + MarkerWindow - 1, Marker + MarkerWindow - 10, 'z'}
	dst := make([]byte, len(src))
	if !Resolve(dst, src, win) || string(dst) != "a90z" {
		t.Errorf("resolved %q", dst)
	}
	if Resolve(dst, []uint16{Marker + MarkerWindow - 11}, win) {
		t.Error("a marker before a 10-byte window resolved")
	}
	long := bytes.Repeat([]byte{'x'}, 2*MarkerWindow)
	long[len(long)-MarkerWindow] = 'y'
	if !Resolve(dst[:1], []uint16{Marker}, long) || dst[0] != 'y' {
		t.Errorf("oldest byte of a longer window: %q", dst[:1])
	}
}

// TestPositioned checks the Inflater's positioned decoding: a stop at a
// block boundary, the input not consumed, the window, and the last
// boundary when the input is cut.
func TestPositioned(t *testing.T) {
	src := deflateStreams(t, 150<<10)["text/5"]
	bits, outs, out := blockBounds(t, src)
	if len(bits) < 4 {
		t.Fatalf("%d blocks", len(bits)-1)
	}
	f := NewInflater(nil, false)
	f.ResetAt(bytes.NewReader(src), 0, nil, bits[1], unboundedOut)
	got, err := io.ReadAll(f)
	if err != nil || !f.Stopped() || f.BitPos() != bits[1] || !bytes.Equal(got, out[:outs[1]]) {
		t.Fatalf("stop at %d: %v, stopped %v at %d, %d bytes", bits[1], err, f.Stopped(), f.BitPos(), len(got))
	}
	if w := f.Window(); !bytes.Equal(w, out[max(0, outs[1]-32768):outs[1]]) {
		t.Error("window differs")
	}
	rest, skip := f.Unread()
	consumed := int64(len(src)-len(rest))*8 + int64(skip)
	if consumed != bits[1] {
		t.Errorf("unread from bit %d, want %d", consumed, bits[1])
	}
	// Going on from there with the rest and the window.
	f.ResetAt(bytes.NewReader(bytes.Clone(rest)), skip, out[:outs[1]], -1, 0)
	got, err = io.ReadAll(f)
	if err != nil || f.Stopped() || !bytes.Equal(got, out[outs[1]:]) {
		t.Errorf("rest: %v, stopped %v, %d bytes", err, f.Stopped(), len(got))
	}
	// Cut inside block 2: the last boundary is block 2's start.
	f.ResetAt(bytes.NewReader(src[:(bits[2]+bits[3])/16]), 0, nil, unboundedOut, unboundedOut)
	if _, err := io.ReadAll(f); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut: %v", err)
	}
	if bit, n := f.LastBoundary(); bit != bits[2] || n != int64(outs[2]) {
		t.Errorf("last boundary %d after %d bytes, want %d after %d", bit, n, bits[2], outs[2])
	}
	// Read up to the first block's end: the boundary there, once its output
	// is given out.
	f.ResetAt(bytes.NewReader(src), 0, nil, unboundedOut, unboundedOut)
	buf := make([]byte, 1000)
	for n := 0; n < outs[1]; {
		m, err := f.Read(buf[:min(len(buf), outs[1]-n)])
		if err != nil {
			t.Fatal(err)
		}
		n += m
		if bit, k := f.LastBoundary(); n < outs[1] && (bit != 0 || k != 0) {
			t.Fatalf("last boundary %d after %d bytes, %d bytes into the first block", bit, k, n)
		}
	}
	if bit, n := f.LastBoundary(); bit != bits[1] || n != int64(outs[1]) {
		t.Errorf("last boundary %d after %d bytes, want %d after %d (the first block's end)", bit, n, bits[1], outs[1])
	}
	// A stop by output.
	f.ResetAt(bytes.NewReader(src), 0, nil, unboundedOut, int64(outs[1]))
	if got, _ := io.ReadAll(f); !f.Stopped() || len(got) != outs[1] {
		t.Errorf("stop by output: stopped %v after %d bytes, want %d", f.Stopped(), len(got), outs[1])
	}
}

// FuzzMarkerDecoder decodes arbitrary input without the window from bit 0
// (where nothing precedes) and from a few bits in: no panic, and where the
// Inflater decodes the stream whole, the same output without markers.
func FuzzMarkerDecoder(f *testing.F) {
	for _, src := range deflateStreams(f, 3000) {
		f.Add(src)
	}
	d := NewMarkerDecoder()
	inf := NewInflater(nil, false)
	f.Fuzz(func(t *testing.T, src []byte) {
		res, out := d.Decode(nil, src, 0, unboundedOut, unboundedOut, 1<<20, 1)
		inf.Reset(bytes.NewReader(src))
		want, err := io.ReadAll(io.LimitReader(inf, 1<<20+1))
		if err == nil && len(want) <= 1<<20 {
			if res.Outcome != Final && res.Outcome != Clean {
				t.Fatalf("the Inflater decodes it, the marker decoder: %+v", res)
			}
			if res.Outcome == Final {
				got := make([]byte, len(out))
				if !Resolve(got, out, nil) || !bytes.Equal(got, want) {
					t.Fatal("outputs differ")
				}
			}
		}
		for start := int64(1); start < 12 && start < int64(len(src))*8; start += 5 {
			d.Decode(nil, src, start, unboundedOut, unboundedOut, 1<<16, 1)
		}
		d.FindBlock(src, 0, int64(len(src))*8)
	})
}

// TestDecodersIn checks decoders whose memory the caller gives: filled
// with junk first (a reused buffer), they decode every stream as the ones
// that allocate their own, and short or misaligned memory falls back to
// an allocation. The MarkerDecoder's memory is its output buffer: one
// that can hold its ring is decoded into in place.
func TestDecodersIn(t *testing.T) {
	junk := func(n int) []byte {
		b := make([]byte, n+8)
		for i := range b {
			b[i] = byte(i*131 + 7)
		}
		return b
	}
	imem := junk(InflaterMem)
	mjunk := func(n int) []uint16 {
		b := make([]uint16, n)
		for i := range b {
			b[i] = uint16(i*131 + 7)
		}
		return b
	}
	streams := deflateStreams(t, 100<<10)
	want := map[string][]byte{}
	for name, src := range streams {
		b, err := io.ReadAll(NewInflater(bytes.NewReader(src), false))
		if err != nil {
			t.Fatal(err)
		}
		want[name] = b
	}
	for _, tc := range []struct {
		name string
		imem []byte
		mbuf []uint16
	}{
		{"given", imem[:InflaterMem], mjunk(MarkerRingLen)},
		{"short", imem[:InflaterMem-1], mjunk(MarkerRingLen - 1)},
		{"misaligned", imem[1 : InflaterMem+1], nil},
	} {
		f, d := NewInflaterIn(nil, tc.imem), NewMarkerDecoder()
		for name, src := range streams {
			want := want[name]
			f.Reset(bytes.NewReader(src))
			got, err := io.ReadAll(f)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: %s: Inflater: %v, output equal %v", tc.name, name, err, bytes.Equal(got, want))
			}
			res, buf := d.Decode(tc.mbuf, src, 0, unboundedOut, unboundedOut, unboundedOut, 1)
			if inPlace := len(buf) > 0 && len(tc.mbuf) > MarkerWindow && &buf[0] == &tc.mbuf[MarkerWindow]; inPlace != (tc.name == "given") {
				t.Fatalf("%s: %s: output in the buffer given: %v", tc.name, name, inPlace)
			}
			res8 := make([]byte, len(buf))
			// From the start of a stream no marker is used: it comes out
			// clean after its first 32 KiB, if not at its end.
			if res.Outcome != Final && res.Outcome != Clean || !Resolve(res8, buf, nil) || !bytes.HasPrefix(want, res8) || len(res8) < min(len(want), MarkerWindow) {
				t.Fatalf("%s: %s: MarkerDecoder: %+v, output equal %v", tc.name, name, res, bytes.Equal(res8, want))
			}
		}
	}
}

// TestMarkerDecoderOutgrowsRing decodes, into a buffer that can hold the
// ring, an output longer than the ring whose markers never end (the
// unknown window copied over and over): the output moves out of the
// buffer and decoding goes on, and it matches the sequential decode.
func TestMarkerDecoderOutgrowsRing(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	w := make([]byte, MarkerWindow)
	for i := range w {
		w[i] = byte(rng.Uint32())
	}
	// Each piece a copy from the last 32 KiB, so that every byte after
	// the window comes from it.
	raw := bytes.Clone(w)
	for len(raw) < MarkerRingLen+MarkerRingLen/4 {
		o := len(raw) - MarkerWindow + rng.IntN(MarkerWindow-4096)
		raw = append(raw, raw[o:o+64+rng.IntN(4000)]...)
	}
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, 6)
	fw.Write(raw)
	fw.Close()
	src := z.Bytes()
	bits, outs, out := blockBounds(t, src)
	if !bytes.Equal(out, raw) {
		t.Fatal("sequential decode differs")
	}
	// From the first boundary past the window's bytes.
	i := 1
	for outs[i] < MarkerWindow {
		i++
	}
	d := NewMarkerDecoder()
	buf := make([]uint16, MarkerRingLen)
	res, got := d.Decode(buf, src, bits[i], unboundedOut, unboundedOut, unboundedOut, 1)
	if res.Outcome != Final || len(got) != len(out)-outs[i] || len(got) <= MarkerRingLen {
		t.Fatalf("%+v, %d symbols, want Final and %d (more than %d)", res, len(got), len(out)-outs[i], MarkerRingLen)
	}
	if &got[0] == &buf[MarkerWindow] || cap(got) < MarkerRingLen {
		t.Fatalf("output not moved out of the buffer (cap %d)", cap(got))
	}
	marks := 0
	for _, v := range got[len(got)-MarkerWindow:] {
		if v >= Marker {
			marks++
		}
	}
	got8 := make([]byte, len(got))
	if marks == 0 || !Resolve(got8, got, out[:outs[i]]) || !bytes.Equal(got8, out[outs[i]:]) {
		t.Fatalf("output differs (%d markers in the last 32 KiB)", marks)
	}
}
