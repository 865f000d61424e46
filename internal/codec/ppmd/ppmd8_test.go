package ppmd

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

// fixtureI is a variant I stream cut from a one-file zip written by 7zz
// (scripts/testdata/ppmd.sh): the parameter word, then the range coder's
// data, ending with the end marker.
type fixtureI struct {
	name                string
	order, mem, restore int
	packed              []byte // after the parameter word
	size                int
	sha                 string
}

func loadFixturesI(t testing.TB) []fixtureI {
	t.Helper()
	paths, err := filepath.Glob("testdata/zipI-*.zip")
	if err != nil || len(paths) == 0 {
		t.Fatal("no fixtures", err)
	}
	var fs []fixtureI
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// The edge-case fixtures have inputs of their own; the rest share
		// text.txt's.
		meta, err := os.ReadFile(strings.TrimSuffix(p, ".zip") + ".sha256")
		if errors.Is(err, os.ErrNotExist) {
			meta, err = os.ReadFile("testdata/zipI.sha256")
		}
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(meta))
		size, _ := strconv.Atoi(f[1])
		if binary.LittleEndian.Uint16(data[8:]) != 98 {
			t.Fatalf("%s: method %d", p, binary.LittleEndian.Uint16(data[8:]))
		}
		csize := int(binary.LittleEndian.Uint32(data[18:]))
		start := 30 + int(binary.LittleEndian.Uint16(data[26:])) + int(binary.LittleEndian.Uint16(data[28:]))
		stream := data[start : start+csize]
		order, mem, restore := ParamsI(binary.LittleEndian.Uint16(stream))
		fs = append(fs, fixtureI{strings.TrimSuffix(filepath.Base(p), ".zip"), order, mem, restore, stream[2:], size, f[0]})
	}
	return fs
}

func decodeAllI(m *ModelI, br io.ByteReader, size int) ([]byte, error) {
	var rc RangeDecoder
	if err := rc.InitI(br); err != nil {
		return nil, err
	}
	out := make([]byte, size)
	n, err := m.Decode(&rc, out)
	return out[:n], err
}

func TestFixturesI(t *testing.T) {
	for _, f := range loadFixturesI(t) {
		for _, mode := range []string{"bytes", "onebyte", "half"} {
			t.Run(f.name+"/"+mode, func(t *testing.T) {
				m, err := NewI(f.order, f.mem, f.restore)
				if err != nil {
					t.Fatal(err)
				}
				var br io.ByteReader = bytes.NewReader(f.packed)
				switch mode {
				case "onebyte":
					br = bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(f.packed)), 16)
				case "half":
					br = bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(f.packed)), 16)
				}
				var rc RangeDecoder
				if err := rc.InitI(br); err != nil {
					t.Fatal(err)
				}
				var out []byte
				for len(out) < f.size {
					c, err := m.DecodeSymbol(&rc)
					if err != nil {
						t.Fatalf("after %d bytes: %v", len(out), err)
					}
					out = append(out, byte(c))
				}
				if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) != f.sha {
					t.Fatalf("sha256 %x, want %s", sum, f.sha)
				}
				// 7-Zip ends the stream with the end marker.
				if _, err := m.DecodeSymbol(&rc); !errors.Is(err, ErrEndMark) {
					t.Fatalf("after the data: %v, want the end marker", err)
				}
			})
		}
	}
}

// TestResetI checks that a model reused through Reset decodes as a new
// one, across parameter changes.
func TestResetI(t *testing.T) {
	fs := loadFixturesI(t)
	m, err := NewI(fs[0].order, fs[0].mem, fs[0].restore)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(fs, fs...) {
		if err := m.Reset(f.order, f.mem, f.restore); err != nil {
			t.Fatal(err)
		}
		out, err := decodeAllI(m, bytes.NewReader(f.packed), f.size)
		if err != nil {
			t.Fatal(f.name, err)
		}
		if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) != f.sha {
			t.Fatalf("%s: wrong output after Reset", f.name)
		}
	}
}

// TestDamagedI checks that cut and damaged streams end in errors or wrong
// output, never panics or hangs.
func TestDamagedI(t *testing.T) {
	for _, f := range loadFixturesI(t) {
		m, _ := NewI(f.order, f.mem, f.restore)
		for _, cut := range []int{0, 1, 3, 4, 100, len(f.packed) / 2, len(f.packed) - 1} {
			m.Reset(f.order, f.mem, f.restore)
			// The last bytes flush the coder: a stream cut there fails at
			// the end marker at the latest.
			var rc RangeDecoder
			err := rc.InitI(bytes.NewReader(f.packed[:cut]))
			if err == nil {
				_, err = m.Decode(&rc, make([]byte, f.size))
			}
			if err == nil {
				_, err = m.DecodeSymbol(&rc)
			}
			if err == nil || errors.Is(err, ErrEndMark) {
				t.Errorf("%s: cut at %d: %v", f.name, cut, err)
			}
		}
		for _, step := range []int{97, 1009, 7919} {
			bad := append([]byte(nil), f.packed...)
			for i := 10; i < len(bad); i += step {
				bad[i] ^= 0x5a
			}
			m.Reset(f.order, f.mem, f.restore)
			out, _ := decodeAllI(m, bytes.NewReader(bad), f.size)
			if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) == f.sha {
				t.Errorf("%s: damaged stream decoded to the original", f.name)
			}
		}
	}
}

func TestParamsI(t *testing.T) {
	for _, tc := range []struct {
		word                uint16
		order, mem, restore int
	}{
		{0x107b, 12, 8 << 20, 1},
		{0x000f, 16, 1 << 20, 0},
		{0x0ff5, 6, 256 << 20, 0},
	} {
		o, m, r := ParamsI(tc.word)
		if o != tc.order || m != tc.mem || r != tc.restore {
			t.Errorf("%#x: %d %d %d, want %d %d %d", tc.word, o, m, r, tc.order, tc.mem, tc.restore)
		}
	}
	for _, p := range [][3]int{{1, 1 << 20, 0}, {17, 1 << 20, 0}, {6, 1 << 20, 2}, {6, 100, 0}} {
		_, err := NewI(p[0], p[1], p[2])
		if err == nil {
			t.Errorf("NewI%v: no error", p)
		}
	}
	if _, err := NewI(6, 1<<20, 2); !errors.Is(err, archive.ErrUnsupported) {
		t.Errorf("restore method 2: %v, want unsupported", err)
	}
	var rc RangeDecoder
	if err := rc.InitI(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff})); !errors.Is(err, ErrCorrupt) {
		t.Errorf("InitI with all ones: %v", err)
	}
}

func FuzzPPMdI(f *testing.F) {
	// Inputs are cut to fuzzMaxInput bytes and the heap is cleared before
	// each run, so that a run is cheap and depends on its input only: the
	// fuzzer minimises every input that finds new coverage, running it
	// again for each byte it tries to drop (quadratic in the input's
	// length), which with 4 KiB seeds took the minute it is allowed each
	// time and left about one run in a thousand counted.
	for _, fx := range loadFixturesI(f) {
		n := min(len(fx.packed), fuzzMaxInput)
		f.Add(byte(fx.order), byte(fx.restore), fx.packed[:n])
	}
	f.Add(byte(6), byte(1), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8})
	m, _ := NewI(6, 1<<16, 0)
	f.Fuzz(func(t *testing.T, order, restore byte, data []byte) {
		data = data[:min(len(data), fuzzMaxInput)]
		clear(m.heap)
		o := int(order)%(MaxOrderI-1) + 2
		// 2 to 256 KiB: short inputs fill the heap, restarting or cutting
		// the model down.
		if err := m.Reset(o, MinMemSize<<(restore>>1&7), int(restore&1)); err != nil {
			t.Fatal(err)
		}
		var rc RangeDecoder
		if rc.InitI(bytes.NewReader(data)) != nil {
			return
		}
		for i := 0; i < 4*len(data)+64; i++ {
			if _, err := m.DecodeSymbol(&rc); err != nil {
				return
			}
		}
	})
}

func BenchmarkDecodeI(b *testing.B) {
	for _, f := range loadFixturesI(b) {
		b.Run(f.name, func(b *testing.B) {
			m, _ := NewI(f.order, f.mem, f.restore)
			out := make([]byte, f.size)
			b.SetBytes(int64(f.size))
			b.ReportAllocs()
			for b.Loop() {
				m.Reset(f.order, f.mem, f.restore)
				var rc RangeDecoder
				rc.InitI(bytes.NewReader(f.packed))
				if n, err := m.Decode(&rc, out); err != nil || n != f.size {
					b.Fatal(n, err)
				}
			}
		})
	}
}
