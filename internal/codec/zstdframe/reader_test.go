package zstdframe

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// fixture is one frame file of testdata (scripts/testdata/zstdframe.sh)
// with the size and SHA-256 of its content.
type fixture struct {
	name   string
	data   []byte
	size   int
	sha256 string
}

func fixtures(t testing.TB) []fixture {
	t.Helper()
	tsv, err := os.ReadFile("testdata/expected.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var fs []fixture
	for _, line := range strings.Split(strings.TrimSpace(string(tsv)), "\n")[1:] {
		f := strings.Split(line, "\t")
		data, err := os.ReadFile(filepath.Join("testdata", f[0]+".zst"))
		if err != nil {
			t.Fatal(err)
		}
		size, _ := strconv.Atoi(f[1])
		fs = append(fs, fixture{name: f[0], data: data, size: size, sha256: f[2]})
	}
	return fs
}

func fixtureData(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".zst"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// decode reads all of src through a Reader of cfg, failing the test when
// it takes longer than a minute (a hang).
func decode(t testing.TB, src io.Reader, cfg Config, wrapOut func(io.Reader) io.Reader) ([]byte, error) {
	t.Helper()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		z, err := NewReader(src, cfg)
		if err != nil {
			done <- result{nil, err}
			return
		}
		defer z.Close()
		var r io.Reader = z
		if wrapOut != nil {
			r = wrapOut(z)
		}
		out, err := io.ReadAll(r)
		done <- result{out, err}
	}()
	select {
	case res := <-done:
		return res.out, res.err
	case <-time.After(time.Minute):
		t.Fatal("decoding hangs")
		return nil, nil
	}
}

func sum(p []byte) string { s := sha256.Sum256(p); return hex.EncodeToString(s[:]) }

// TestFixtures decodes every fixture with one and several decoder
// goroutines, with the input and the output read whole, one byte and half a
// buffer at a time.
func TestFixtures(t *testing.T) {
	inputs := []struct {
		name string
		in   func(io.Reader) io.Reader
		out  func(io.Reader) io.Reader
	}{
		{"whole", nil, nil},
		{"onebyte-in", iotest.OneByteReader, nil},
		{"half-in", iotest.HalfReader, nil},
		{"onebyte-out", nil, iotest.OneByteReader},
		{"half-both", iotest.HalfReader, iotest.HalfReader},
	}
	for _, f := range fixtures(t) {
		for _, threads := range []int{1, 4} {
			for _, in := range inputs {
				t.Run(f.name+"/threads="+strconv.Itoa(threads)+"/"+in.name, func(t *testing.T) {
					var src io.Reader = bytes.NewReader(f.data)
					if in.in != nil {
						src = in.in(src)
					}
					out, err := decode(t, src, Config{Threads: threads}, in.out)
					if err != nil {
						t.Fatal(err)
					}
					if len(out) != f.size || sum(out) != f.sha256 {
						t.Fatalf("got %d bytes sha256 %s, want %d bytes %s", len(out), sum(out), f.size, f.sha256)
					}
				})
			}
		}
	}
}

// TestChecksumMismatch changes stored checksums and raw-block content: the
// frame must fail with a *verify.MismatchError of kind XXH64, after the
// output of the frames before it.
func TestChecksumMismatch(t *testing.T) {
	multi := fixtureData(t, "multi")
	random := fixtureData(t, "random-check")
	tests := []struct {
		name     string
		data     []byte
		flip     int // byte offset to change; negative: from the end
		goodUpTo int // bytes of output that precede the failing frame
	}{
		{"single/stored", fixtureData(t, "text-check"), -1, 0},
		{"big/stored", fixtureData(t, "big-check"), -3, 0},
		{"no-content-size/stored", fixtureData(t, "stdin-check"), -1, 0},
		{"single/stored-first-byte", fixtureData(t, "text-check"), -4, 0},
		{"multi/last-frame", multi, -2, 3000},
		// random-check's content sits in raw blocks: only the checksum can
		// notice a change there.
		{"raw-block/content", random, 5000, 0},
		{"raw-block/content-late", random, len(random) - 100, 0},
	}
	for _, tt := range tests {
		for _, threads := range []int{1, 4} {
			t.Run(tt.name+"/threads="+strconv.Itoa(threads), func(t *testing.T) {
				data := bytes.Clone(tt.data)
				i := tt.flip
				if i < 0 {
					i += len(data)
				}
				data[i] ^= 0x10
				out, err := decode(t, bytes.NewReader(data), Config{Threads: threads}, nil)
				var me *verify.MismatchError
				if !errors.As(err, &me) || me.Kind != verify.XXH64 || !errors.Is(err, archive.ErrChecksum) {
					t.Fatalf("error %v, want an XXH64 *verify.MismatchError", err)
				}
				if len(me.Want) != 4 || len(me.Got) != 4 || bytes.Equal(me.Want, me.Got) {
					t.Fatalf("mismatch error %q (want %x, got %x)", err, me.Want, me.Got)
				}
				if len(out) < tt.goodUpTo {
					t.Fatalf("only %d bytes before the error, want at least %d", len(out), tt.goodUpTo)
				}
			})
		}
	}
}

// TestNoChecksum: a frame without Content_Checksum is decoded and not
// checked (there is nothing to compare).
func TestNoChecksum(t *testing.T) {
	data := fixtureData(t, "text-nocheck")
	z, err := NewReader(bytes.NewReader(data), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if z.w.hasSum {
		t.Fatal("walker reports a checksum in a --no-check frame")
	}
	if n, err := z.Read(nil); n != 0 || err != nil {
		t.Fatalf("Read(nil) = %d, %v", n, err)
	}
	if _, err := io.Copy(io.Discard, z); err != nil {
		t.Fatal(err)
	}
}

// TestChecksumAfterNoChecksum: a frame without Content_Checksum (whose
// output is not hashed) followed by one with a checksum: the second is
// decoded and checked, through Read and WriteTo, and a changed byte of it
// fails with the XXH64 mismatch after the first frame's whole output.
func TestChecksumAfterNoChecksum(t *testing.T) {
	first, second := fixtureData(t, "text-nocheck"), fixtureData(t, "random-check")
	want, err := decode(t, bytes.NewReader(first), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want2, err := decode(t, bytes.NewReader(second), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, want2...)
	for _, via := range []struct {
		name string
		out  func(io.Reader) io.Reader
	}{{"read", nil}, {"writeto", viaWriteTo}} {
		for _, threads := range []int{1, 4} {
			name := via.name + "/threads=" + strconv.Itoa(threads)
			data := append(bytes.Clone(first), second...)
			out, err := decode(t, bytes.NewReader(data), Config{Threads: threads}, via.out)
			if err != nil || !bytes.Equal(out, want) {
				t.Errorf("%s: %d bytes, %v; want %d bytes, no error", name, len(out), err, len(want))
			}
			data[len(first)+5000] ^= 0x10 // in random-check's raw blocks
			out, err = decode(t, bytes.NewReader(data), Config{Threads: threads}, via.out)
			var me *verify.MismatchError
			if !errors.As(err, &me) || me.Kind != verify.XXH64 {
				t.Errorf("%s: changed second frame: error %v, want an XXH64 *verify.MismatchError", name, err)
			}
			if len(out) < len(want)-len(want2) {
				t.Errorf("%s: %d bytes before the error, want the first frame's %d", name, len(out), len(want)-len(want2))
			}
		}
	}
}

// TestTruncated decodes every prefix of the multi-frame and skippable
// fixtures and a sample of the long one: each fails with ErrTruncated,
// except a prefix that ends between frames, which decodes the whole frames
// before it.
func TestTruncated(t *testing.T) {
	tests := []struct {
		name       string
		step       int
		boundaries int // prefixes (including the whole) that are valid streams
	}{
		{"multi", 1, 3},
		// After the first skippable frame, frame a, the next two skippable
		// frames, frame b, and the last skippable frame.
		{"skippable", 1, 6},
		{"text-check", 97, 0},
		{"big-check", 997, 0},  // the concurrent decoder's frames
		{"stdin-check", 97, 0}, // likewise
		{"zeros-check", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := fixtureData(t, tt.name)
			valid := 0
			for cut := 0; cut < len(data); cut += tt.step {
				out, err := decode(t, bytes.NewReader(data[:cut]), Config{Threads: 2}, nil)
				if err == nil {
					valid++
					continue
				}
				if !errors.Is(err, ErrTruncated) || !errors.Is(err, archive.ErrCorrupt) {
					t.Fatalf("cut %d: error %v, want ErrTruncated", cut, err)
				}
				_ = out
			}
			if _, err := decode(t, bytes.NewReader(data), Config{}, nil); err != nil {
				t.Fatal(err)
			}
			valid++
			if tt.boundaries > 0 && valid != tt.boundaries {
				t.Fatalf("%d prefixes decode, want %d", valid, tt.boundaries)
			}
		})
	}
}

// TestHostile feeds malformed frames: each fails with its error, not a
// panic or a hang.
func TestHostile(t *testing.T) {
	good := fixtureData(t, "multi")
	frame := func(fhd byte, rest ...byte) []byte {
		return append([]byte{0x28, 0xB5, 0x2F, 0xFD, fhd}, rest...)
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"not-zstd", []byte("hello, world"), ErrMagic},
		{"trailing-partial-magic", append(bytes.Clone(good), 0x28, 0xB5), ErrTruncated},
		{"trailing-partial-skippable", append(bytes.Clone(good), 0x5A, 0x2A), ErrTruncated},
		{"reserved-bit", frame(0x08, 0x00, 0x01, 0x00, 0x00), ErrHeader},
		// Window descriptor 0, then a last block of the reserved type.
		{"reserved-block", frame(0x00, 0x00, 0x07, 0x00, 0x00), ErrBlock},
		// A last raw block of 128 KiB + 1: 1 | (128<<10+1)<<3 = 0x100009.
		{"block-too-large", frame(0x00, 0x00, 0x09, 0x00, 0x10), ErrBlock},
		{"skippable-truncated", []byte{0x50, 0x2A, 0x4D, 0x18, 0xFF, 0xFF, 0xFF, 0x7F, 1, 2, 3}, ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decode(t, bytes.NewReader(tt.data), Config{}, nil)
			if !errors.Is(err, tt.want) || !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
		})
	}
}

// TestTrailing ends the stream after the last frame when what follows is
// no frame, reporting where it starts and its length.
func TestTrailing(t *testing.T) {
	good := fixtureData(t, "multi")
	end := int64(len(good))
	want, err := decode(t, bytes.NewReader(good), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		tail      []byte
		off, size int64
	}{
		{"none", nil, 0, 0},
		{"garbage", []byte("garbage!"), end, 8},
		{"foreign-short", []byte{0x28, 0xB6}, end, 2},
		{"long", bytes.Repeat([]byte{1}, 100000), end, 100000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			z, err := NewReader(bytes.NewReader(append(bytes.Clone(good), tt.tail...)), Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			out, err := io.ReadAll(z)
			if err != nil || !bytes.Equal(out, want) {
				t.Fatalf("%d bytes, %v", len(out), err)
			}
			if off, size := z.Trailing(); off != tt.off || size != tt.size {
				t.Errorf("Trailing() = %d, %d; want %d, %d", off, size, tt.off, tt.size)
			}
		})
	}
}

// TestReset reuses one Reader over every fixture, twice.
func TestReset(t *testing.T) {
	fs := fixtures(t)
	z, err := NewReader(bytes.NewReader(fs[0].data), Config{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for range 2 {
		for _, f := range fs {
			if err := z.Reset(bytes.NewReader(f.data)); err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			out, err := io.ReadAll(z)
			if err != nil || sum(out) != f.sha256 {
				t.Fatalf("%s: %d bytes, %v", f.name, len(out), err)
			}
		}
	}
}

// TestCorpus decodes the corpus's zst rows: "ok" rows must match their
// expected SHA-256, "must-fail" rows must fail. Rows the project lists as
// known failures (internal/formats/testdata/corpus-known-failures.txt, with
// the reason) are skipped.
func TestCorpus(t *testing.T) {
	known, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "internal/formats/testdata/corpus-known-failures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range testutil.Manifest(t) {
		if row.Format != "zst" || bytes.Contains(known, []byte(row.Local+"\t")) {
			continue
		}
		n++
		t.Run(row.Local, func(t *testing.T) {
			data, err := os.ReadFile(row.Path)
			if err != nil {
				t.Fatal(err)
			}
			out, err := decode(t, bytes.NewReader(data), Config{Threads: 2, MaxWindow: 1 << 30}, nil)
			switch row.Expect {
			case "ok":
				if err != nil {
					t.Fatal(err)
				}
				want, err := testutil.ExpectedFiles(row.Expected)
				if err != nil || want == nil {
					t.Fatalf("expected sums: %v", err)
				}
				if got := sum(out); got != want["<stream>"] {
					t.Fatalf("sha256 %s, want %s", got, want["<stream>"])
				}
			case "must-fail":
				if err == nil {
					t.Fatalf("decoded %d bytes, want an error", len(out))
				}
			}
		})
	}
	if n == 0 {
		t.Skip("no zst rows in the corpus")
	}
}

// TestDecoderChoice: with several threads, Read takes the concurrent
// decoder for frames over smallFrame or of unknown size and the other for
// small ones; WriteTo takes the one on the reader's goroutine for all
// (among klauspost's: ours takes none here).
func TestDecoderChoice(t *testing.T) {
	defer func(w int64) { ownMinWindow = w }(ownMinWindow)
	ownMinWindow = math.MaxInt64
	tests := []struct {
		name        string
		contentSize int64
		async       bool
	}{
		{"text-check", 200076, false},
		{"big-check", 2000760, true},
		{"stdin-check", -1, true},
		{"zeros-check", 300000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, err := NewReader(bytes.NewReader(fixtureData(t, tt.name)), Config{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			if z.w.contentSize != tt.contentSize {
				t.Errorf("content size %d, want %d", z.w.contentSize, tt.contentSize)
			}
			if z.cur != nil {
				t.Fatal("a decoder chosen before the first Read")
			}
			if _, err := z.Read(make([]byte, 1)); err != nil {
				t.Fatal(err)
			}
			if (z.cur == z.async) != tt.async {
				t.Errorf("Read: concurrent decoder %v, want %v", z.cur == z.async, tt.async)
			}
			if _, err := io.Copy(io.Discard, z); err != nil {
				t.Fatal(err)
			}

			if err := z.Reset(bytes.NewReader(fixtureData(t, tt.name))); err != nil {
				t.Fatal(err)
			}
			cw := &choiceWriter{z: z}
			if _, err := z.WriteTo(cw); err != nil {
				t.Fatal(err)
			}
			if cw.async {
				t.Error("WriteTo: concurrent decoder, want the reader's goroutine")
			}
		})
	}
}

// choiceWriter notes whether the concurrent decoder wrote any block.
type choiceWriter struct {
	z     *Reader
	async bool
}

func (w *choiceWriter) Write(p []byte) (int, error) {
	w.async = w.async || w.z.cur == w.z.async
	return len(p), nil
}

// TestContentSize parses every Frame_Content_Size field form.
func TestContentSize(t *testing.T) {
	tests := []struct {
		fhd   byte
		field []byte
		want  int64
	}{
		{0x00, nil, -1},                       // absent
		{0x20, []byte{200}, 200},              // single segment, 1 byte
		{0x40, []byte{0x00, 0x01}, 256 + 256}, // 2 bytes count from 256
		{0x80, []byte{1, 0, 0, 1}, 1<<24 + 1},
		{0xC0, []byte{0, 0, 0, 0, 1, 0, 0, 0}, 1 << 32},
		{0xC0, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, -1}, // beyond int64: unknown
	}
	for _, tt := range tests {
		hdr := append([]byte{0x28, 0xB5, 0x2F, 0xFD, tt.fhd, 0}, tt.field...)
		if got := contentSize(tt.fhd, hdr); got != tt.want {
			t.Errorf("fhd %#x field %x: %d, want %d", tt.fhd, tt.field, got, tt.want)
		}
	}
}

// TestWindowSize parses the Window_Descriptor forms (RFC 8878 §3.1.1.1.2)
// and the single-segment window, and checks them against the zstd CLI's
// fixtures' headers.
func TestWindowSize(t *testing.T) {
	tests := []struct {
		single      bool
		wd          byte
		contentSize int64
		want        int64
	}{
		{false, 0x00, -1, 1 << 10},           // exponent 0: 1 KiB
		{false, 0x68, -1, 8 << 20},           // exponent 13: 8 MiB
		{false, 0x6F, -1, 8<<20 + 7*(1<<20)}, // 8 MiB + 7/8 of it
		{false, 0xF8, -1, 1 << 41},           // exponent 31
		{true, 0, 300, 1 << 10},              // single segment: content, at least 1 KiB
		{true, 0, 5 << 20, 5 << 20},          // single segment
	}
	for _, tt := range tests {
		if got := windowSize(tt.single, tt.wd, tt.contentSize); got != tt.want {
			t.Errorf("single %v wd %#x content %d: %d, want %d", tt.single, tt.wd, tt.contentSize, got, tt.want)
		}
	}
	for _, f := range fixtures(t) {
		var w walker
		w.reset(bytes.NewReader(f.data))
		if err := w.next(); err != nil {
			t.Fatal(f.name, err)
		}
		var h zstd.Header
		if err := h.Decode(f.data); err != nil {
			t.Fatal(f.name, err)
		}
		if h.Skippable {
			continue // the walker has skipped to the next frame
		}
		want := int64(h.WindowSize)
		if h.SingleSegment {
			want = max(int64(h.FrameContentSize), 1<<10)
		}
		if w.window != want {
			t.Errorf("%s: window %d, klauspost's header says %d", f.name, w.window, want)
		}
	}
}

// TestWindowLimit: a frame whose window exceeds Config.MaxWindow fails with
// the decoder's size error, on either decoder.
func TestWindowLimit(t *testing.T) {
	for _, name := range []string{"text-check", "big-check"} {
		t.Run(name, func(t *testing.T) {
			_, err := decode(t, bytes.NewReader(fixtureData(t, name)), Config{Threads: 2, MaxWindow: 64 << 10}, nil)
			if !errors.Is(err, zstd.ErrWindowSizeExceeded) && !errors.Is(err, zstd.ErrDecoderSizeExceeded) {
				t.Fatalf("error %v, want a window size error", err)
			}
		})
	}
}

// TestOwnDecoder: a frame with a window of ownMinWindow or more goes to
// internal/codec/zstd, through Read and WriteTo, at 1 and 2 threads, and
// gives the same bytes; over Config.MaxWindow it fails with ErrLimit.
func TestOwnDecoder(t *testing.T) {
	defer func(w int64) { ownMinWindow = w }(ownMinWindow)
	ownMinWindow = 2 << 20 // as on amd64; other builds take none by default
	var plain []byte
	for i := 0; len(plain) < 3<<20; i++ {
		plain = strconv.AppendInt(plain, int64(i*i%100003), 10)
		plain = append(plain, ' ')
	}
	var comp bytes.Buffer
	e, err := zstd.NewWriter(&comp, zstd.WithWindowSize(int(ownMinWindow)), zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	e.Write(plain)
	e.Close()
	for _, threads := range []int{1, 2} {
		z, err := NewReader(bytes.NewReader(comp.Bytes()), Config{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("threads=%d Read: %v, equal %v", threads, err, bytes.Equal(got, plain))
		}
		if z.own == nil {
			t.Errorf("threads=%d: our decoder not taken", threads)
		}
		z.Close()
		got, err = decode(t, bytes.NewReader(comp.Bytes()), Config{Threads: threads}, viaWriteTo)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("threads=%d WriteTo: %v", threads, err)
		}
	}
	_, err = decode(t, bytes.NewReader(comp.Bytes()), Config{MaxWindow: 1 << 20}, nil)
	if !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("window over the limit: %v, want ErrLimit", err)
	}
	bad := bytes.Clone(comp.Bytes())
	bad[len(bad)-2] ^= 1
	_, err = decode(t, bytes.NewReader(bad), Config{}, nil)
	var me *verify.MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("changed checksum: %v", err)
	}
}

// TestReadAllocs: once warm, Read allocates nothing, on either decoder.
func TestReadAllocs(t *testing.T) {
	for _, threads := range []int{1, 2} {
		z, err := NewReader(bytes.NewReader(fixtureData(t, "big-check")), Config{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		if _, err := io.ReadFull(z, make([]byte, 256<<10)); err != nil {
			t.Fatal(err)
		}
		if allocs := testing.AllocsPerRun(100, func() {
			if _, err := io.ReadFull(z, buf); err != nil {
				t.Fatal(err)
			}
		}); allocs != 0 {
			t.Errorf("threads=%d: %v allocations per Read", threads, allocs)
		}
		z.Close()
	}
}

// TestOwnForAll runs the fixture, corpus, truncation, hostile-input,
// checksum and WriteTo tests with every frame on our own decoder.
func TestOwnForAll(t *testing.T) {
	defer func(w int64) { ownMinWindow = w }(ownMinWindow)
	ownMinWindow = 0
	for name, f := range map[string]func(*testing.T){
		"Fixtures": TestFixtures, "Corpus": TestCorpus, "Truncated": TestTruncated,
		"Hostile": TestHostile, "ChecksumMismatch": TestChecksumMismatch, "NoChecksum": TestNoChecksum,
		"ChecksumAfterNoChecksum": TestChecksumAfterNoChecksum, "Trailing": TestTrailing, "Reset": TestReset,
		"WriteTo": TestWriteTo, "WriteToChecksum": TestWriteToChecksum, "WriteToSinkError": TestWriteToSinkError,
	} {
		t.Run(name, f)
	}
}
