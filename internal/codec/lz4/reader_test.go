package lz4

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"maps"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// fixture is a file of testdata/ and the sha256 of its content as
// `lz4 -dc` decodes it (testdata/SHA256SUMS, from scripts/testdata/lz4.sh).
type fixture struct {
	name string
	sum  string
}

// fixtures lists testdata/SHA256SUMS sorted by name.
func fixtures(t testing.TB) []fixture {
	t.Helper()
	sums := testutil.SHA256Sums(t, "testdata/SHA256SUMS")
	var list []fixture
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		list = append(list, fixture{name, sums[name]})
	}
	return list
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// decodeAll decodes data with z (reset to it) and returns everything read.
func decodeAll(z *Reader, r io.Reader) ([]byte, error) {
	if err := z.Reset(r); err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// TestFixtures decodes every fixture through one Reader (reset for each)
// and through readers that give the input one byte or half a buffer at a
// time, or the last bytes with io.EOF, and by WriteTo.
func TestFixtures(t *testing.T) {
	z := new(Reader)
	for _, fx := range fixtures(t) {
		data := testutil.Fixture(t, fx.name)
		for _, mode := range []struct {
			name string
			r    func(io.Reader) io.Reader
		}{
			{"plain", func(r io.Reader) io.Reader { return r }},
			{"onebyte", iotest.OneByteReader},
			{"half", iotest.HalfReader},
			{"dataerr", iotest.DataErrReader},
		} {
			t.Run(fx.name+"/"+mode.name, func(t *testing.T) {
				out, err := decodeAll(z, mode.r(bytes.NewReader(data)))
				if err != nil {
					t.Fatal(err)
				}
				if got := sha(out); got != fx.sum {
					t.Fatalf("sha256 %s, want %s (%d bytes)", got, fx.sum, len(out))
				}
			})
		}
		t.Run(fx.name+"/writeto", func(t *testing.T) {
			zz, err := NewReader(bytes.NewReader(data), Config{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := io.Copy(&out, zz); err != nil {
				t.Fatal(err)
			}
			if got := sha(out.Bytes()); got != fx.sum {
				t.Fatalf("sha256 %s, want %s", got, fx.sum)
			}
		})
	}
}

// isCorrupt reports whether err is of the corrupt category.
func isCorrupt(err error) bool {
	return errors.Is(err, archive.ErrCorrupt) || errors.Is(err, archive.ErrChecksum)
}

// checked is a fixture with every checksum: block, content, and a content
// size.
const checked = "text-B5-BD-BX-size.lz4"

// TestChecksums corrupts each kind of checksum and the data each covers.
func TestChecksums(t *testing.T) {
	data := testutil.Fixture(t, checked)
	// Descriptor: magic, FLG, BD, 8-byte content size, HC at 14; the
	// first block's size word at 15, its data at 19.
	size := int(binary.LittleEndian.Uint32(data[15:]) & 0x7FFFFFFF)
	for _, tc := range []struct {
		name string
		at   int
		what string
	}{
		{"header checksum", 14, HeaderChecksum},
		{"descriptor byte", 6, HeaderChecksum},
		{"block data", 19 + size/2, BlockChecksum},
		{"block checksum", 19 + size, BlockChecksum},
		{"content checksum", len(data) - 2, ContentChecksum},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := bytes.Clone(data)
			bad[tc.at] ^= 0x10
			_, err := decodeAll(new(Reader), bytes.NewReader(bad))
			var ce *ChecksumError
			if !errors.As(err, &ce) || ce.What != tc.what || !errors.Is(err, verify.ErrChecksum) {
				t.Fatalf("got %v, want a %s checksum error", err, tc.what)
			}
		})
	}
	// Without block checksums, corrupt data is caught by the content
	// checksum (or by the block decoder).
	data = testutil.Fixture(t, "text-default.lz4")
	bad := bytes.Clone(data)
	bad[len(bad)/2] ^= 0x01
	if _, err := decodeAll(new(Reader), bytes.NewReader(bad)); !isCorrupt(err) {
		t.Fatalf("corrupt content: got %v", err)
	}
}

// withDescriptor returns a frame with the descriptor bytes d (FLG, BD and
// options; the HC is computed) followed by rest.
func withDescriptor(d []byte, rest ...byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, frameMagic)
	b = append(b, d...)
	b = append(b, byte(verify.XXH32Sum(d)>>8))
	return append(b, rest...)
}

// TestBadFrames checks the error of each kind of malformed frame.
func TestBadFrames(t *testing.T) {
	text := testutil.Fixture(t, "text-default.lz4")
	endMark := []byte{0, 0, 0, 0}
	sized := func(n uint64, rest ...byte) []byte {
		d := binary.LittleEndian.AppendUint64([]byte{0x48, 0x40}, n)
		return withDescriptor(d, rest...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty input", nil, ErrTruncated},
		{"short magic", []byte{0x04, 0x22}, ErrTruncated},
		{"bad magic", []byte("PK\x03\x04rest"), ErrMagic},
		{"version 0", withDescriptor([]byte{0x00, 0x40}, endMark...), ErrHeader},
		{"reserved FLG bit", withDescriptor([]byte{0x62, 0x40}, endMark...), ErrHeader},
		{"reserved BD bit", withDescriptor([]byte{0x60, 0x41}, endMark...), ErrHeader},
		{"block max code 3", withDescriptor([]byte{0x60, 0x30}, endMark...), ErrHeader},
		{"dictionary ID", withDescriptor([]byte{0x61, 0x40, 1, 2, 3, 4}, endMark...), archive.ErrUnsupported},
		{"block too big", withDescriptor([]byte{0x60, 0x40}, 0x01, 0x00, 0x01, 0x00), ErrBlockSize},
		{"stored block too big", withDescriptor([]byte{0x60, 0x40}, 0x01, 0x00, 0x01, 0x80), ErrBlockSize},
		{"bad block", withDescriptor([]byte{0x60, 0x40}, 5, 0, 0, 0, 0x10, 'a', 0, 0, 0, 0, 0, 0, 0), ErrOffset},
		{"truncated block", withDescriptor([]byte{0x60, 0x40}, 9, 0, 0, 0, 0x10, 'a'), ErrTruncated},
		{"no end mark", withDescriptor([]byte{0x60, 0x40}), ErrTruncated},
		{"content size too small", sized(1, 0x02, 0, 0, 0x80, 'a', 'b', 0, 0, 0, 0), ErrContentSize},
		{"content size too large", sized(3, 0x02, 0, 0, 0x80, 'a', 'b', 0, 0, 0, 0), ErrContentSize},
		{"content size right", sized(2, 0x02, 0, 0, 0x80, 'a', 'b', 0, 0, 0, 0), nil},
		{"skippable cut", []byte{0x50, 0x2a, 0x4d, 0x18, 10, 0, 0, 0, 1, 2}, ErrTruncated},
		{"magic cut", append(bytes.Clone(text), 0x04, 0x22), ErrTruncated},
		{"legacy bad block", []byte{0x02, 0x21, 0x4c, 0x18, 1, 0, 0, 0, 0x1F}, ErrShortBlock},
		{"legacy zero block", []byte{0x02, 0x21, 0x4c, 0x18, 0, 0, 0, 0}, ErrShortBlock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeAll(new(Reader), bytes.NewReader(tc.data))
			if !errors.Is(err, tc.want) || (err != nil && !isCorrupt(err) && !errors.Is(err, archive.ErrUnsupported)) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestTrailing ends the stream after the last frame when what follows is
// no frame, reporting where it starts and its length.
func TestTrailing(t *testing.T) {
	text := testutil.Fixture(t, "text-9.lz4")
	want, err := decodeAll(new(Reader), bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	end := int64(len(text))
	legacy := []byte{0x02, 0x21, 0x4c, 0x18, 2, 0, 0, 0, 0x10, 'a'}
	for _, tc := range []struct {
		name      string
		data      []byte
		want      []byte
		off, size int64
	}{
		{"none", text, want, 0, 0},
		{"garbage", append(bytes.Clone(text), "garbage"...), want, end, 7},
		{"short", append(bytes.Clone(text), 0x01, 0x02), want, end, 2},
		{"long", append(bytes.Clone(text), bytes.Repeat([]byte{7}, 300000)...), want, end, 300000},
		{"legacy short", append(bytes.Clone(legacy), 1), []byte("a"), 10, 1},
		{"legacy garbage", append(bytes.Clone(legacy), "garbage"...), []byte("a"), 10, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z := new(Reader)
			got, err := decodeAll(z, bytes.NewReader(tc.data))
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Fatalf("%d bytes, %v", len(got), err)
			}
			if off, size := z.Trailing(); off != tc.off || size != tc.size {
				t.Errorf("Trailing() = %d, %d; want %d, %d", off, size, tc.off, tc.size)
			}
		})
	}
}

// TestTruncated cuts every fixture at many lengths: each must fail with a
// corrupt error, after giving no more than a prefix of the content.
func TestTruncated(t *testing.T) {
	z := new(Reader)
	for _, fx := range fixtures(t) {
		data := testutil.Fixture(t, fx.name)
		full, err := decodeAll(z, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(data)/97)
		for n := 0; n < len(data); n += step {
			out, err := decodeAll(z, bytes.NewReader(data[:n]))
			if fx.name == "empty-legacy.lz4" && n == 4 {
				continue
			}
			if err == nil && n >= 4 && strings.Contains(fx.name, "legacy") {
				// A legacy frame may end after any block.
				if !bytes.HasPrefix(full, out) {
					t.Fatalf("%s cut at %d: output is no prefix", fx.name, n)
				}
				continue
			}
			if !isCorrupt(err) {
				t.Fatalf("%s cut at %d: got %v", fx.name, n, err)
			}
			if !bytes.HasPrefix(full, out) {
				t.Fatalf("%s cut at %d: output is no prefix", fx.name, n)
			}
		}
	}
}

// TestBitFlips flips one bit at many places of each fixture: decoding
// never panics, and fails with a corrupt error or (where no checksum
// covers the flipped bit) gives output.
func TestBitFlips(t *testing.T) {
	z := new(Reader)
	for _, fx := range fixtures(t) {
		data := testutil.Fixture(t, fx.name)
		step := max(1, len(data)/211)
		for i := 0; i < len(data); i += step {
			bad := bytes.Clone(data)
			bad[i] ^= 1 << (i % 8)
			_, err := decodeAll(z, bytes.NewReader(bad))
			if err != nil && !isCorrupt(err) && !errors.Is(err, archive.ErrUnsupported) {
				t.Fatalf("%s bit flip at %d: error of the wrong category: %v", fx.name, i, err)
			}
			if err == nil && !strings.Contains(fx.name, "nocrc") && !strings.Contains(fx.name, "legacy") && !strings.Contains(fx.name, "multi") {
				t.Fatalf("%s bit flip at %d: no error", fx.name, i)
			}
		}
	}
}

// TestMemLimit checks that a frame whose buffers exceed Config.MemLimit
// fails with ErrLimit, and one within it decodes.
func TestMemLimit(t *testing.T) {
	data := withDescriptor([]byte{0x60, 0x70}, 0, 0, 0, 0) // 4 MiB blocks
	if _, err := NewReader(bytes.NewReader(data), Config{MemLimit: 1 << 20}); !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
	data = testutil.Fixture(t, "text-default.lz4") // 256 KiB blocks
	z, err := NewReader(bytes.NewReader(data), Config{MemLimit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, z); err != nil {
		t.Fatal(err)
	}
}

// TestClose checks that Read fails after Close and Reset revives the
// Reader.
func TestClose(t *testing.T) {
	data := testutil.Fixture(t, "text-B4-BD.lz4")
	z, err := NewReader(bytes.NewReader(data), Config{})
	if err != nil {
		t.Fatal(err)
	}
	z.Close()
	if _, err := z.Read(make([]byte, 10)); err == nil {
		t.Fatal("Read after Close succeeded")
	}
	if _, err := decodeAll(z, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}

// workload is a few MiB of mixed data: text, runs, short periods, random
// stretches (some long enough to make stored blocks) and repeats from far
// back, deterministic.
func workload() []byte {
	in := testInputs()
	r := rand.New(rand.NewPCG(3, 4))
	var b []byte
	for len(b) < 6<<20 {
		for _, k := range []string{"text", "mixed", "zeros", "periodd", "periodk"} {
			b = append(b, in[k]...)
		}
		for range 300_000 {
			b = append(b, byte(r.Uint32()))
		}
	}
	return b
}

// TestTool compresses a few-MiB workload with the lz4 tool in every block
// mode (linked blocks of every size move the history through the buffer
// many times) and checks the decoded bytes.
func TestTool(t *testing.T) {
	testutil.StartsProcess(t)
	if testing.Short() {
		t.Skip("runs the lz4 tool on 6 MiB")
	}
	if _, err := exec.LookPath("lz4"); err != nil {
		t.Skip("no lz4 tool")
	}
	raw := workload()
	z := new(Reader)
	for _, args := range [][]string{
		{"-1"}, {"-9"}, {"--fast=3"},
		{"-B4", "-BD"}, {"-B5", "-BD", "-BX"}, {"-B6", "-BD"}, {"-B7", "-BD", "--content-size"},
		{"-B4"}, {"-l"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command("lz4", append([]string{"-q", "-c"}, args...)...)
			cmd.Stdin = bytes.NewReader(raw)
			packed, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			out, err := decodeAll(z, iotest.HalfReader(bytes.NewReader(packed)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, raw) {
				t.Fatalf("decoded %d bytes differ from the %d compressed", len(out), len(raw))
			}
		})
	}
}

// TestSteadyStateAllocs checks that reading on allocates nothing once the
// buffers are sized, across frames and Resets.
func TestSteadyStateAllocs(t *testing.T) {
	data := testutil.Fixture(t, "multi.lz4")
	z := new(Reader)
	buf := make([]byte, 4096)
	br := bytes.NewReader(data)
	decode := func() {
		br.Reset(data)
		if err := z.Reset(br); err != nil {
			t.Fatal(err)
		}
		for {
			_, err := z.Read(buf)
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	decode()
	if n := testing.AllocsPerRun(20, decode); n != 0 {
		t.Fatalf("%v allocations per decode, want 0", n)
	}
}

// TestMakeFrame checks the test frame builder against the Reader, so the
// fuzz seeds it makes are valid frames.
func TestMakeFrame(t *testing.T) {
	text := testInputs()["text"]
	for _, flg := range []byte{0x40, 0x60, 0x7C, 0x5C, 0x64} {
		f := makeFrame(flg, 0x40, text[:3000], text[3000:9000], nil, text[:100])
		out, err := decodeAll(new(Reader), bytes.NewReader(f))
		if want := append(bytes.Clone(text[:9000]), text[:100]...); err != nil || !bytes.Equal(out, want) {
			t.Fatalf("flg %#x: %v, %d bytes", flg, err, len(out))
		}
	}
}

// TestSizeExceeded: a frame whose blocks decode to more than its declared
// content size hands out no byte past that size, only ErrContentSize,
// read in one call or byte by byte, with a large or a small output
// buffer, for a stored and a compressed block.
func TestSizeExceeded(t *testing.T) {
	text := testInputs()["text"][:1000]
	for name, frame := range map[string][]byte{
		"stored":     makeFrame(0x68, 0x40, []byte("0123456789abcdef")),
		"compressed": makeFrame(0x68, 0x40, text),
	} {
		const size = 6
		binary.LittleEndian.PutUint64(frame[6:], size)
		frame[14] = byte(verify.XXH32Sum(frame[4:14]) >> 8)
		for _, chunk := range []int{1 << 20, 1} {
			for _, z := range []*Reader{new(Reader), smallReader(13)} {
				if err := z.Reset(bytes.NewReader(frame)); err != nil {
					t.Fatal(err)
				}
				got, err := testutil.ReadInChunks(z, chunk)
				if !errors.Is(err, ErrContentSize) {
					t.Errorf("%s, chunk %d: error %v, want ErrContentSize", name, chunk, err)
				}
				if len(got) != size || !bytes.HasPrefix(text, got) && string(got) != "012345" {
					t.Errorf("%s, chunk %d: handed out %q, want the declared %d bytes", name, chunk, got, size)
				}
			}
		}
	}
}
