package ppmd

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// fixture is a PPMd stream cut from a 7z archive written by 7zz (see
// scripts/testdata/rar4.sh): one file, one coder, headers uncompressed, so
// the packed stream lies between the 32-byte start header and the header.
type fixture struct {
	name       string
	order, mem int
	packed     []byte
	size       int
	sha        string
}

func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	paths, err := filepath.Glob("testdata/*.7z")
	if err != nil || len(paths) == 0 {
		t.Fatal("no fixtures", err)
	}
	var fs []fixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		next := binary.LittleEndian.Uint64(data[12:])
		meta, err := os.ReadFile(strings.TrimSuffix(p, ".7z") + ".sha256")
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(meta))
		size, _ := strconv.Atoi(f[1])
		name := strings.TrimSuffix(filepath.Base(p), ".7z") // o6-m16m
		var order, mem int
		parts := strings.Split(name, "-")
		order, _ = strconv.Atoi(parts[0][1:])
		m := parts[1][1:]
		mult := 1
		switch {
		case strings.HasSuffix(m, "k"):
			mult = 1 << 10
		case strings.HasSuffix(m, "m"):
			mult = 1 << 20
		}
		n, _ := strconv.Atoi(m[:len(m)-1])
		mem = n * mult
		fs = append(fs, fixture{name, order, mem, data[32 : 32+next], size, f[0]})
	}
	return fs
}

func decodeAll(m *ModelH, br interface{ ReadByte() (byte, error) }, size int, out []byte) ([]byte, error) {
	var rc RangeDecoder
	if err := rc.Init7z(br); err != nil {
		return out, err
	}
	for i := 0; i < size; i++ {
		c, err := m.DecodeSymbol(&rc)
		if err != nil {
			return out, err
		}
		out = append(out, byte(c))
	}
	return out, nil
}

func TestFixtures7z(t *testing.T) {
	for _, f := range loadFixtures(t) {
		for _, mode := range []string{"bytes", "onebyte", "half"} {
			t.Run(f.name+"/"+mode, func(t *testing.T) {
				m, err := NewH(f.order, f.mem)
				if err != nil {
					t.Fatal(err)
				}
				var br interface{ ReadByte() (byte, error) } = bytes.NewReader(f.packed)
				switch mode {
				case "onebyte":
					br = bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(f.packed)), 16)
				case "half":
					br = bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(f.packed)), 16)
				}
				out, err := decodeAll(m, br, f.size, nil)
				if err != nil {
					t.Fatalf("after %d bytes: %v", len(out), err)
				}
				sum := sha256.Sum256(out)
				if got := hex.EncodeToString(sum[:]); got != f.sha {
					t.Fatalf("sha256 %s, want %s", got, f.sha)
				}
			})
		}
	}
}

// TestReset checks that a model reused through Reset decodes as a new one.
func TestReset(t *testing.T) {
	fs := loadFixtures(t)
	m, err := NewH(fs[0].order, fs[0].mem)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(fs, fs...) {
		if err := m.Reset(f.order, f.mem); err != nil {
			t.Fatal(err)
		}
		out, err := decodeAll(m, bytes.NewReader(f.packed), f.size, nil)
		if err != nil {
			t.Fatal(f.name, err)
		}
		if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) != f.sha {
			t.Fatalf("%s: wrong output after Reset", f.name)
		}
	}
}

// TestTruncated checks that cut and damaged streams end in errors, never
// panics or hangs.
func TestTruncated(t *testing.T) {
	f := loadFixtures(t)[0]
	m, _ := NewH(f.order, f.mem)
	for _, cut := range []int{0, 1, 4, 5, 100, len(f.packed) / 2, len(f.packed) - 1} {
		m.Reset(f.order, f.mem)
		_, err := decodeAll(m, bytes.NewReader(f.packed[:cut]), f.size, nil)
		if err == nil {
			t.Errorf("cut at %d: no error", cut)
		}
	}
	bad := append([]byte(nil), f.packed...)
	for i := 10; i < len(bad); i += 97 {
		bad[i] ^= 0x5a
	}
	m.Reset(f.order, f.mem)
	out, _ := decodeAll(m, bytes.NewReader(bad), f.size, nil)
	if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) == f.sha {
		t.Error("damaged stream decoded to the original")
	}
}

// TestBufferedInput decodes through a small bufio.Reader, which the coder
// reads through its buffer (refilled many times here, with short reads
// below it), and a cut one, which must end in io.ErrUnexpectedEOF.
func TestBufferedInput(t *testing.T) {
	for _, f := range loadFixtures(t) {
		m, _ := NewH(f.order, f.mem)
		var rc RangeDecoder
		if err := rc.Init7z(bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(f.packed)), 16)); err != nil {
			t.Fatal(err)
		}
		out := make([]byte, f.size)
		if n, err := m.Decode(&rc, out); err != nil || n != f.size {
			t.Fatalf("%s: %d, %v", f.name, n, err)
		}
		if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) != f.sha {
			t.Fatalf("%s: wrong output", f.name)
		}
		m.Reset(f.order, f.mem)
		if err := rc.Init7z(bufio.NewReaderSize(bytes.NewReader(f.packed[:len(f.packed)/2]), 16)); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Decode(&rc, out); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("%s cut in half: %v, want io.ErrUnexpectedEOF", f.name, err)
		}
	}
	// A refill discards of the reader exactly what the coder consumed of
	// its buffer: the reader then starts at the refilled buffer.
	br := bufio.NewReaderSize(bytes.NewReader([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), 16)
	var rc RangeDecoder
	if err := rc.Init7z(br); err != nil {
		t.Fatal(err)
	}
	rc.pos = len(rc.buf) - 2 // as if the coder had read up to 8
	if c := rc.refill(); c != 8 || rc.pos != 1 {
		t.Fatalf("refill read %d (pos %d), want 8 (pos 1)", c, rc.pos)
	}
	if b, _ := br.ReadByte(); b != 8 {
		t.Fatalf("reader at %d, want 8", b)
	}
}

// TestDecodeAfterError checks that a coder which already failed decodes
// nothing more: the symbol loop checks the coder's error only where it
// may fail, so Decode checks it before the first symbol.
func TestDecodeAfterError(t *testing.T) {
	for _, f := range loadFixtures(t) {
		m, _ := NewH(f.order, f.mem)
		var rc RangeDecoder
		if err := rc.Init7z(bufio.NewReader(bytes.NewReader(f.packed))); err != nil {
			t.Fatal(err)
		}
		out := make([]byte, f.size)
		// Stops at several symbols, some of which leave the range wide
		// enough that the next symbol does not normalise.
		for k := 0; k < 32 && k < f.size; k++ {
			if _, err := m.Decode(&rc, out[k:k+1]); err != nil {
				t.Fatal(err)
			}
			saved := rc
			rc.err = io.ErrUnexpectedEOF // as a read error leaves it
			if n, err := m.Decode(&rc, out[k+1:]); n != 0 || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%s: Decode after a read error: %d, %v; want 0, io.ErrUnexpectedEOF", f.name, n, err)
			}
			rc = saved
		}
	}
}

func TestBadParams(t *testing.T) {
	for _, p := range [][2]int{{1, 1 << 20}, {65, 1 << 20}, {6, 100}} {
		if _, err := NewH(p[0], p[1]); err == nil {
			t.Errorf("NewH(%d, %d): no error", p[0], p[1])
		}
	}
	var rc RangeDecoder
	if err := rc.Init7z(bytes.NewReader([]byte{1, 0, 0, 0, 0})); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Init7z with a non-zero first byte: %v", err)
	}
}

// fuzzMaxInput bounds the fuzzers' inputs.
const fuzzMaxInput = 192

func FuzzPPMdH(f *testing.F) {
	// As FuzzPPMdI: short inputs, a cleared heap.
	for _, fx := range loadFixtures(f) {
		n := min(len(fx.packed), fuzzMaxInput)
		f.Add(byte(fx.order), fx.packed[:n], true)
	}
	f.Add(byte(6), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8}, false)
	m, _ := NewH(6, 1<<16)
	f.Fuzz(func(t *testing.T, order byte, data []byte, z bool) {
		data = data[:min(len(data), fuzzMaxInput)]
		clear(m.heap)
		o := int(order)%(MaxOrder-1) + 2
		// 2 to 16 KiB: short inputs fill the heap, restarting the model.
		if err := m.Reset(o, MinMemSize<<(order>>6)); err != nil {
			t.Fatal(err)
		}
		var rc RangeDecoder
		var err error
		if z {
			err = rc.Init7z(bytes.NewReader(data))
		} else {
			err = rc.InitRAR(bytes.NewReader(data))
		}
		if err != nil {
			return
		}
		for i := 0; i < 4*len(data)+64; i++ {
			if _, err := m.DecodeSymbol(&rc); err != nil {
				return
			}
		}
	})
}

// TestDecodeBatch checks Decode against DecodeSymbol.
func TestDecodeBatch(t *testing.T) {
	for _, f := range loadFixtures(t) {
		m, _ := NewH(f.order, f.mem)
		var rc RangeDecoder
		if err := rc.Init7z(bytes.NewReader(f.packed)); err != nil {
			t.Fatal(err)
		}
		out := make([]byte, f.size)
		n, err := m.Decode(&rc, out[:f.size/3])
		if err != nil || n != f.size/3 {
			t.Fatalf("%s: %d, %v", f.name, n, err)
		}
		if n, err := m.Decode(&rc, out[f.size/3:]); err != nil || n != f.size-f.size/3 {
			t.Fatalf("%s: %d, %v", f.name, n, err)
		}
		if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) != f.sha {
			t.Fatalf("%s: wrong output", f.name)
		}
	}
}

// startH returns a model of order (64 KiB) and a coder, RAR's or
// 7-Zip's, at the start of data.
func startH(data []byte, rar bool, order int) (*ModelH, *RangeDecoder) {
	m, _ := NewH(order, 1<<16)
	rc := new(RangeDecoder)
	if rar {
		rc.InitRAR(bytes.NewReader(data))
	} else {
		rc.Init7z(bytes.NewReader(data))
	}
	return m, rc
}

// symbolsOf decodes data with DecodeSymbol calls until an error or max
// bytes: the reference the batch decoders are checked against.
func symbolsOf(data []byte, rar bool, order, max int) ([]byte, error) {
	m, rc := startH(data, rar, order)
	var out []byte
	for len(out) < max {
		c, err := m.DecodeSymbol(rc)
		if err != nil {
			return out, err
		}
		out = append(out, byte(c))
	}
	return out, nil
}

// TestDecodeBatchCoders checks Decode against DecodeSymbol for both
// coders over arbitrary input (hundreds to thousands of symbols before the
// end marker or invalid data): Decode picks its loop by coder and
// normalises 7-Zip's on the range alone.
func TestDecodeBatchCoders(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 23))
	for i := 0; i < 40; i++ {
		data := make([]byte, 64+r.IntN(4096))
		for j := range data {
			data[j] = byte(r.IntN(256))
		}
		rar := i%2 == 1
		if !rar {
			data[0] = 0
		}
		want, wantErr := symbolsOf(data, rar, 2+i%15, 3*len(data))
		m, rc := startH(data, rar, 2+i%15)
		got := make([]byte, 3*len(data))
		n, err := m.Decode(rc, got)
		if n != len(want) || !bytes.Equal(got[:n], want) || !errors.Is(err, wantErr) && err != wantErr {
			t.Fatalf("input %d (rar %v): Decode %d bytes, %v; DecodeSymbol %d bytes, %v", i, rar, n, err, len(want), wantErr)
		}
	}
}

// decodeUntilAll decodes like DecodeSymbol calls until an error or max
// bytes, but through DecodeUntil with stop, in runs of random length (the
// rand source's), checking that each run ends at stop or its end.
func decodeUntilAll(t testing.TB, m *ModelH, rc *RangeDecoder, stop byte, max int, r *rand.Rand) ([]byte, error) {
	out := make([]byte, max)
	n := 0
	for n < max {
		run := out[n:min(max, n+1+r.IntN(300))]
		k, err := m.DecodeUntil(rc, run, stop)
		if k > len(run) || err == nil && k < len(run) && (k == 0 || run[k-1] != stop) {
			t.Fatalf("DecodeUntil(%d bytes) = %d, %v: stopped short of stop %#x", len(run), k, err, stop)
		}
		if err == nil && bytes.IndexByte(run[:k], stop) < k-1 && bytes.IndexByte(run[:k], stop) >= 0 {
			t.Fatalf("DecodeUntil ran past stop %#x", stop)
		}
		n += k
		if err != nil {
			return out[:n], err
		}
	}
	return out[:n], nil
}

// TestDecodeUntil checks DecodeUntil against DecodeSymbol: on the fixtures
// (7-Zip's coder) with a frequent, a rare and an absent stop byte, and on
// arbitrary input with both coders (the coder must read what
// DecodeSymbol's would, or the symbols after a stop would differ).
func TestDecodeUntil(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, f := range loadFixtures(t) {
		for _, stop := range []byte{' ', 'q', 0} {
			m, _ := NewH(f.order, f.mem)
			var rc RangeDecoder
			if err := rc.Init7z(bytes.NewReader(f.packed)); err != nil {
				t.Fatal(err)
			}
			out, err := decodeUntilAll(t, m, &rc, stop, f.size, r)
			if err != nil || len(out) != f.size {
				t.Fatalf("%s: %d bytes, %v", f.name, len(out), err)
			}
			if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) != f.sha {
				t.Fatalf("%s, stop %#x: wrong output", f.name, stop)
			}
		}
	}
	for i := 0; i < 40; i++ {
		data := make([]byte, 64+r.IntN(4096))
		for j := range data {
			data[j] = byte(r.IntN(256))
		}
		untilMatchesSymbols(t, data, i%2 == 1, byte(i*37), 2+i%15, r)
	}
}

// untilMatchesSymbols decodes data with DecodeSymbol and with DecodeUntil
// and fails t unless both give the same bytes and the same error.
func untilMatchesSymbols(t testing.TB, data []byte, rar bool, stop byte, order int, r *rand.Rand) {
	max := 3*len(data) + 64
	want, wantErr := symbolsOf(data, rar, order, max)
	m, rc := startH(data, rar, order)
	got, err := decodeUntilAll(t, m, rc, stop, max, r)
	if !bytes.Equal(got, want) || !errors.Is(err, wantErr) && err != wantErr {
		t.Fatalf("rar %v, stop %#x: DecodeUntil %d bytes, %v; DecodeSymbol %d bytes, %v", rar, stop, len(got), err, len(want), wantErr)
	}
}

// FuzzDecodeUntil: DecodeUntil gives what DecodeSymbol calls give, for
// either coder and any stop byte.
func FuzzDecodeUntil(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		n := min(len(fx.packed), fuzzMaxInput)
		f.Add(byte(fx.order), byte(' '), fx.packed[:n], false)
	}
	f.Add(byte(6), byte(0), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8}, true)
	f.Fuzz(func(t *testing.T, order, stop byte, data []byte, rar bool) {
		data = data[:min(len(data), fuzzMaxInput)]
		r := rand.New(rand.NewPCG(uint64(order), uint64(len(data))))
		untilMatchesSymbols(t, data, rar, stop, int(order)%(MaxOrder-1)+2, r)
	})
}

func BenchmarkDecode7z(b *testing.B) {
	fs := loadFixtures(b)
	for _, f := range fs {
		b.Run(f.name, func(b *testing.B) {
			m, _ := NewH(f.order, f.mem)
			out := make([]byte, 0, f.size)
			b.SetBytes(int64(f.size))
			b.ReportAllocs()
			for b.Loop() {
				m.Reset(f.order, f.mem)
				var rc RangeDecoder
				rc.Init7z(bytes.NewReader(f.packed))
				out = out[:f.size]
				if n, err := m.Decode(&rc, out); err != nil || n != f.size {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestMaskHelpers checks the escape helpers (sumUnmasked, findUnmasked,
// maskAll) against plain loops, for state counts around their four- and
// two-state steps.
func TestMaskHelpers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 255, 256} {
		for trial := 0; trial < 20; trial++ {
			var st [maxStatesBytes]byte
			for i := range st {
				st[i] = byte(r.IntN(256)) // what lies past the states must not count
			}
			last := byte(n - 1)
			for i := 0; i < n; i++ {
				st[i*6] = byte(r.IntN(256))
				st[i*6+1] = byte(1 + r.IntN(255))
			}
			mask := allUnmasked
			for i := range mask {
				if r.IntN(3) == 0 {
					mask[i] = 0
				}
			}
			want := uint32(0)
			for i := 0; i < n; i++ {
				if mask[st[i*6]] != 0 {
					want += uint32(st[i*6+1])
				}
			}
			if got := sumUnmasked(&st, last, &mask); got != want {
				t.Fatalf("%d states: sumUnmasked %d, want %d", n, got, want)
			}
			if want > 0 {
				count := uint32(r.IntN(int(want)))
				off, acc := findUnmasked(&st, last, &mask, count)
				cum, wantOff := uint32(0), -1
				for i := 0; i < n && wantOff < 0; i++ {
					if mask[st[i*6]] != 0 {
						cum += uint32(st[i*6+1])
					}
					if cum > count {
						wantOff = i * 6
					}
				}
				if int(off) != wantOff || acc != cum {
					t.Fatalf("%d states, count %d: findUnmasked %d, %d; want %d, %d", n, count, off, acc, wantOff, cum)
				}
			}
			maskAll(&st, last, &mask)
			if got := sumUnmasked(&st, last, &mask); got != 0 {
				t.Fatalf("%d states: %d unmasked after maskAll", n, got)
			}
		}
	}
}

// TestMaskClearBetweenSymbols checks variant H's charMask invariant: every
// symbol unmasks what its escapes masked, so that the mask is clear
// between symbols (on the fixtures, and on arbitrary input up to its
// error or end marker).
func TestMaskClearBetweenSymbols(t *testing.T) {
	check := func(name string, m *ModelH, rc *RangeDecoder, n int) {
		for i := 0; i < n; i++ {
			_, err := m.DecodeSymbol(rc)
			if err != nil && !errors.Is(err, ErrEndMark) {
				return // a failed model is Reset before it decodes again
			}
			if m.charMask != allUnmasked {
				t.Fatalf("%s: mask not clear after symbol %d", name, i)
			}
			if err != nil {
				return
			}
		}
	}
	for _, f := range loadFixtures(t) {
		m, _ := NewH(f.order, f.mem)
		var rc RangeDecoder
		if err := rc.Init7z(bytes.NewReader(f.packed)); err != nil {
			t.Fatal(err)
		}
		check(f.name, m, &rc, f.size)
	}
	r := rand.New(rand.NewPCG(1, 2))
	m, _ := NewH(6, 1<<12)
	for k := 0; k < 200; k++ {
		data := make([]byte, 64+r.IntN(512))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		data[0] = 0
		m.Reset(2+r.IntN(30), MinMemSize<<r.IntN(3))
		var rc RangeDecoder
		if k&1 == 0 {
			if rc.Init7z(bytes.NewReader(data)) != nil {
				continue
			}
		} else if rc.InitRAR(bytes.NewReader(data)) != nil {
			continue
		}
		check("random", m, &rc, 8*len(data))
	}
}

// TestFindSym checks findSym against a plain search: the first state of
// the symbol, else the last state, whatever lies past the states.
func TestFindSym(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 256; n++ {
		for trial := 0; trial < 20; trial++ {
			var st [maxStatesBytes]byte
			for i := range st {
				st[i] = byte(r.IntN(8)) // few symbols: repeats, and matches past the states
			}
			for i := 0; i < n; i++ {
				st[i*6] = byte(r.IntN(16))
			}
			sym := byte(r.IntN(16))
			want := (n - 1) * 6
			for i := 0; i < n; i++ {
				if st[i*6] == sym {
					want = i * 6
					break
				}
			}
			if got := findSym(&st, byte(n-1), sym); int(got) != want {
				t.Fatalf("%d states, symbol %d: findSym %d, want %d", n, sym, got, want)
			}
		}
	}
}
