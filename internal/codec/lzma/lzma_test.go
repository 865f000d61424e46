package lzma

import (
	"bufio"
	"bytes"
	"errors"
	"github.com/unpack-dev/unpack/internal/testutil"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

// sum is the SHA-256 and size of a fixture's decompressed content.
type sum struct {
	sha  string
	size int64
}

// readSums reads testdata/sums.txt ("name sha256 size" lines) written by
// scripts/testdata/lzma.sh.
func readSums(t testing.TB) map[string]sum {
	t.Helper()
	data, err := os.ReadFile("testdata/sums.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]sum{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		n, _ := strconv.ParseInt(f[2], 10, 64)
		m[f[0]] = sum{f[1], n}
	}
	return m
}

// fixture describes one committed stream and how to open it.
type fixture struct {
	file string
	want string // name in sums.txt
	open func(r io.Reader) (io.Reader, error)
}

func alone(r io.Reader) (io.Reader, error) { return NewAloneReader(r, 64<<20) }

func raw2(dict int64) func(io.Reader) (io.Reader, error) {
	return func(r io.Reader) (io.Reader, error) { return NewReader2(r, dict) }
}

func raw1(p Props, size int64) func(io.Reader) (io.Reader, error) {
	return func(r io.Reader) (io.Reader, error) { return NewReader1(r, p, size) }
}

var fixtures = []fixture{
	{"text-xz.lzma", "text", alone},
	{"small-xz.lzma", "small", alone},
	{"small-xz.lzma2", "small", raw2(4 << 10)},
	{"bin-lc0lp2pb0-xz.lzma", "bin", alone},
	{"text-lc8lp4-7zip.lzma", "text", alone},
	{"bin-xz.lzma1", "bin", raw1(Props{LC: 3, LP: 0, PB: 2, DictSize: 64 << 10}, -1)},
	{"text-xz.lzma2", "text", raw2(1 << 20)},
	{"text-dict4k-xz.lzma2", "text", raw2(4 << 10)},
	{"mixed-xz.lzma2", "mixed", raw2(64 << 10)},
}

// readers are the ways the tests feed input to a decoder.
var readers = []struct {
	name string
	wrap func(b []byte) io.Reader
}{
	{"bytes", func(b []byte) io.Reader { return bytes.NewReader(b) }},
	{"onebyte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
	{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
	{"dataerr", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
	{"bufio", func(b []byte) io.Reader { return bufio.NewReaderSize(bytes.NewReader(b), 4096) }},
	{"bufio-onebyte", func(b []byte) io.Reader {
		return bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(b)), 1024)
	}},
}

func TestFixtures(t *testing.T) {
	sums := readSums(t)
	for _, f := range fixtures {
		data := testutil.Fixture(t, f.file)
		want := sums[f.want]
		for _, rd := range readers {
			t.Run(f.file+"/"+rd.name, func(t *testing.T) {
				r, err := f.open(rd.wrap(data))
				if err != nil {
					t.Fatal(err)
				}
				got, n, err := testutil.HashAll(iotest.OneByteReader(r))
				if err != nil || got != want.sha || n != want.size {
					t.Fatalf("got %s %d %v, want %s %d", got, n, err, want.sha, want.size)
				}
			})
		}
	}
}

// TestExactEnd checks that the decoders leave the bytes after the stream
// unread: Reader2 always, Reader1 when given a bufio.Reader.
func TestExactEnd(t *testing.T) {
	trailer := []byte("TRAILER")
	for _, f := range fixtures {
		if strings.HasSuffix(f.file, ".lzma") {
			continue
		}
		for _, rd := range readers {
			if strings.HasSuffix(f.file, ".lzma1") && !strings.HasPrefix(rd.name, "bufio") {
				continue
			}
			t.Run(f.file+"/"+rd.name, func(t *testing.T) {
				data := append(testutil.Fixture(t, f.file), trailer...)
				src := rd.wrap(data)
				r, err := f.open(src)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := testutil.HashAll(r); err != nil {
					t.Fatal(err)
				}
				rest, err := io.ReadAll(src)
				if err != nil || !bytes.Equal(rest, trailer) {
					t.Fatalf("after the stream: %q, %v", rest, err)
				}
				if r1, ok := r.(*Reader1); ok {
					if got, want := r1.InputSize(), int64(len(data)-len(trailer)); got != want {
						t.Fatalf("InputSize = %d, want %d", got, want)
					}
				}
			})
		}
	}
}

// TestReset decodes every fixture with one reused reader of each kind and
// checks that steady-state decoding does not allocate.
func TestReset(t *testing.T) {
	sums := readSums(t)
	var z1 AloneReader
	var z2 Reader2
	buf := make([]byte, 32<<10)
	for i := 0; i < 2; i++ {
		for _, f := range fixtures {
			data := testutil.Fixture(t, f.file)
			var r io.Reader
			br := bytes.NewReader(data)
			switch {
			case strings.HasSuffix(f.file, ".lzma"):
				if err := z1.Reset(br, 0); err != nil {
					t.Fatal(err)
				}
				r = &z1
			case strings.HasSuffix(f.file, ".lzma2"):
				if err := z2.Reset(br, 1<<20); err != nil {
					t.Fatal(err)
				}
				r = &z2
			default:
				continue
			}
			got, n, err := testutil.HashAll(r)
			if want := sums[f.want]; err != nil || got != want.sha || n != want.size {
				t.Fatalf("%s: got %s %d %v", f.file, got, n, err)
			}
		}
	}
	data := testutil.Fixture(t, "text-xz.lzma2")
	br := bytes.NewReader(data)
	allocs := testing.AllocsPerRun(5, func() {
		br.Reset(data)
		if err := z2.Reset(br, 1<<20); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := z2.Read(buf); err != nil {
				break
			}
		}
	})
	if allocs > 0 {
		t.Errorf("Reader2 reuse: %v allocations per stream", allocs)
	}
	data = testutil.Fixture(t, "text-xz.lzma")
	allocs = testing.AllocsPerRun(5, func() {
		br.Reset(data)
		if err := z1.Reset(br, 0); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := z1.Read(buf); err != nil {
				break
			}
		}
	})
	if allocs > 0 {
		t.Errorf("AloneReader reuse: %v allocations per stream", allocs)
	}
}

// decodeErr opens and reads data with open and returns the first error
// (nil when it decoded to the end), reading at most limit bytes.
func decodeErr(data []byte, open func(io.Reader) (io.Reader, error), limit int64) error {
	r, err := open(bytes.NewReader(data))
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, io.LimitReader(r, limit))
	return err
}

// TestTruncated cuts every fixture at many points: each must fail with an
// error of the corrupt category.
func TestTruncated(t *testing.T) {
	for _, f := range fixtures {
		data := testutil.Fixture(t, f.file)
		step := len(data)/97 + 1
		for n := 0; n < len(data); n += step {
			err := decodeErr(data[:n], f.open, 1<<30)
			if !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("%s cut at %d: %v", f.file, n, err)
			}
		}
		// The last few bytes matter most: the end marker and the flush.
		for n := max(0, len(data)-8); n < len(data); n++ {
			if err := decodeErr(data[:n], f.open, 1<<30); !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("%s cut at %d: %v", f.file, n, err)
			}
		}
	}
}

// TestBitFlips flips single bits: decoding must end (error or not) without
// panicking, and any error must be of the corrupt category.
func TestBitFlips(t *testing.T) {
	for _, f := range fixtures {
		data := testutil.Fixture(t, f.file)
		bad := make([]byte, len(data))
		step := len(data)/61 + 1
		for i := 0; i < len(data); i += step {
			copy(bad, data)
			bad[i] ^= 1 << (i % 8)
			err := decodeErr(bad, f.open, 1<<24)
			if err != nil && !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrLimit) {
				t.Fatalf("%s bit flip at %d: %v", f.file, i, err)
			}
		}
	}
}

func TestDictSize2(t *testing.T) {
	for _, tc := range []struct {
		b    byte
		want int64
	}{{0, 4 << 10}, {1, 6 << 10}, {18, 2 << 20}, {19, 3 << 20}, {22, 8 << 20}, {39, 3 << 30}, {40, 1<<32 - 1}} {
		if got, err := DictSize2(tc.b); err != nil || got != tc.want {
			t.Errorf("DictSize2(%d) = %d, %v; want %d", tc.b, got, err, tc.want)
		}
	}
	if _, err := DictSize2(41); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("DictSize2(41): %v", err)
	}
}

func TestParseProps(t *testing.T) {
	p, err := ParseProps([]byte{0x5D, 0, 0, 0x80, 0})
	if err != nil || p != (Props{LC: 3, LP: 0, PB: 2, DictSize: 8 << 20}) {
		t.Fatalf("got %+v, %v", p, err)
	}
	for _, b := range [][]byte{{225, 0, 0, 0, 0}, {0x5D, 0, 0}} {
		if _, err := ParseProps(b); !errors.Is(err, ErrProps) {
			t.Errorf("ParseProps(%x): %v", b, err)
		}
	}
	if _, err := NewReader1(bytes.NewReader(nil), Props{LC: 9}, -1); !errors.Is(err, ErrProps) {
		t.Errorf("NewReader1 with lc=9: %v", err)
	}
}

// TestMemLimit checks that a dictionary over the limit is refused, with
// the size named, before the window is allocated.
func TestMemLimit(t *testing.T) {
	hdr := []byte{0x5D, 0, 0, 0, 0x40, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := NewAloneReader(bytes.NewReader(hdr), 64<<20)
	runtime.ReadMemStats(&after)
	var le *LimitError
	if !errors.Is(err, archive.ErrLimit) || !errors.As(err, &le) || le.Need != 1<<30 || le.Limit != 64<<20 {
		t.Fatalf("got %v, want a limit error naming 1024 MiB", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("%d bytes allocated before refusing", n)
	}
	// A known small size caps the window below the limit.
	small := bytes.Clone(hdr)
	copy(small[5:], []byte{1, 0, 0, 0, 0, 0, 0, 0})
	if _, err := NewAloneReader(bytes.NewReader(small), 64<<20); err != nil {
		t.Fatalf("1-byte stream with a 1 GiB dictionary: %v", err)
	}
	if err := DictLimit(1<<20, 0); err != nil {
		t.Errorf("no limit: %v", err)
	}
}

// TestLZMA2Chunks runs hand-made LZMA2 streams through Reader2.
func TestLZMA2Chunks(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want string
		err  error
	}{
		{"empty stream", []byte{0}, "", nil},
		{"no input", nil, "", ErrTruncated},
		{"uncompressed", []byte{1, 0, 2, 'a', 'b', 'c', 2, 0, 0, 'd', 0}, "abcd", nil},
		{"uncompressed truncated", []byte{1, 0, 2, 'a', 'b'}, "", ErrTruncated},
		{"no end marker", []byte{1, 0, 2, 'a', 'b', 'c'}, "", ErrTruncated},
		{"first chunk keeps dictionary", []byte{2, 0, 0, 'a', 0}, "", ErrChunk},
		{"reserved control", []byte{3}, "", ErrChunk},
		{"LZMA without properties", []byte{1, 0, 0, 'a', 0x80, 0, 0, 0, 4, 0, 0, 0, 0, 0}, "", ErrChunk},
		{"bad properties", []byte{0xE0, 0, 0, 0, 4, 225, 0, 0, 0, 0, 0}, "", ErrProps},
		{"lc+lp over 4", []byte{0xE0, 0, 0, 0, 4, 4*9 + 1, 0, 0, 0, 0, 0}, "", ErrProps},
		{"packed below 5", []byte{0xE0, 0, 0, 0, 3, 0x5D, 0, 0, 0, 0}, "", ErrChunk},
		{"range coder start", []byte{0xE0, 0, 0, 0, 4, 0x5D, 1, 0, 0, 0, 0}, "", ErrRangeInit},
		{"header truncated", []byte{0xE0, 0, 0}, "", ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader2(bytes.NewReader(tc.in), 4096)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if !errors.Is(err, tc.err) || (tc.err == nil && string(got) != tc.want) {
				t.Fatalf("got %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
			if err != nil && !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("%v is not ErrCorrupt", err)
			}
		})
	}
}

func TestAloneHeader(t *testing.T) {
	data := testutil.Fixture(t, "text-lc8lp4-7zip.lzma")
	r, err := NewAloneReader(bytes.NewReader(data), 0)
	if err != nil || r.Size() != readSums(t)["text"].size {
		t.Fatalf("Size = %d, %v", r.Size(), err)
	}
	for name, hdr := range map[string][]byte{
		"short":      data[:12],
		"properties": append([]byte{225}, data[1:]...),
		"huge size":  append(append(bytes.Clone(data[:5]), 0, 0, 0, 0, 0, 0, 0, 0x80), data[13:]...),
	} {
		if _, err := NewAloneReader(bytes.NewReader(hdr), 0); !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestReadError checks that an error of the underlying reader is passed
// through as it is, not turned into a corrupt-data error.
func TestReadError(t *testing.T) {
	for _, f := range fixtures {
		data := testutil.Fixture(t, f.file)
		r, err := f.open(io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(iotest.ErrTimeout)))
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if !errors.Is(err, iotest.ErrTimeout) {
			t.Errorf("%s: got %v, want the reader's error", f.file, err)
		}
	}
}

// TestEmpty decodes the empty stream as xz 5.4 writes it in .lzma form
// (xz --format=lzma < /dev/null).
func TestEmpty(t *testing.T) {
	empty := []byte{0x5d, 0x00, 0x00, 0x80, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x00, 0x83, 0xff, 0xfb, 0xff, 0xff, 0xc0, 0x00, 0x00, 0x00}
	r, err := NewAloneReader(bytes.NewReader(empty), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(r); err != nil || len(got) != 0 {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestWindowReuse checks that a window a little larger than the last one
// (7z folders of nearly equal sizes) reuses its allocation, and windowCap's
// rounding.
func TestWindowReuse(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{100, 100},
		{2<<20 - 1, 2<<20 - 1},
		{2 << 20, 2 << 20},
		{2<<20 + 1, 2<<20 + 4<<10},
		{8<<20 + 32, 8<<20 + 16<<10},
		{32<<20 + 32, 32<<20 + 64<<10},
		{48 << 20, 48 << 20},
	} {
		if got := windowCap(c.n); got != c.want || got < c.n || got-c.n > c.n/512 {
			t.Errorf("windowCap(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	var z Reader2
	if err := z.Reset(bytes.NewReader(nil), 32<<20); err != nil {
		t.Fatal(err)
	}
	first := &z.d.win[0]
	br := bytes.NewReader(nil)
	if n := testing.AllocsPerRun(1, func() {
		if err := z.Reset(br, 32<<20+23); err != nil {
			t.Fatal(err)
		}
	}); n != 0 || &z.d.win[0] != first || len(z.d.win) < 32<<20+23 {
		t.Errorf("Reset to a slightly larger window: %v allocations, new window %v, %d bytes", n, &z.d.win[0] != first, len(z.d.win))
	}
}
