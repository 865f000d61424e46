package brotli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	ab "github.com/andybalholm/brotli"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// fixtures returns the testdata streams made by scripts/testdata/brotli.sh
// with the sha256 of their content as `brotli -dc` gives it.
func fixtures(t testing.TB) map[string]string {
	return testutil.SHA256Sums(t, filepath.Join("testdata", "SHA256SUMS"))
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TestFixtures decodes every fixture through Read and WriteTo, with the
// input and the output read one byte or half a buffer at a time.
func TestFixtures(t *testing.T) {
	z := new(Reader)
	for name, want := range fixtures(t) {
		data := testutil.Fixture(t, name)
		for _, tc := range []struct {
			how  string
			in   func(io.Reader) io.Reader
			read func(io.Reader) ([]byte, error)
		}{
			{"WriteTo", nil, io.ReadAll},
			{"Read", nil, func(r io.Reader) ([]byte, error) { return io.ReadAll(struct{ io.Reader }{r}) }},
			{"OneByteIn", iotest.OneByteReader, io.ReadAll},
			{"HalfIn", iotest.HalfReader, io.ReadAll},
			{"OneByteOut", nil, func(r io.Reader) ([]byte, error) { return io.ReadAll(iotest.OneByteReader(r)) }},
			{"DataErrIn", iotest.DataErrReader, io.ReadAll},
		} {
			t.Run(name+"/"+tc.how, func(t *testing.T) {
				var in io.Reader = bytes.NewReader(data)
				if tc.in != nil {
					in = tc.in(in)
				}
				if err := z.Reset(in); err != nil {
					t.Fatal(err)
				}
				got, err := tc.read(z)
				if err != nil {
					t.Fatal(err)
				}
				if s := sum(got); s != want {
					t.Fatalf("sha256 %s, want %s", s, want)
				}
			})
		}
	}
}

// TestLargeWindow: the large-window variant is refused as unsupported.
func TestLargeWindow(t *testing.T) {
	_, err := NewReader(bytes.NewReader(testutil.Fixture(t, "far-largewindow26.br")), Config{})
	if !errors.Is(err, ErrLargeWindow) || !errors.Is(err, archive.ErrUnsupported) {
		t.Fatalf("got %v, want ErrLargeWindow", err)
	}
}

// TestMemLimit: a window larger than Config.MemLimit is refused, one
// within it is not.
func TestMemLimit(t *testing.T) {
	data := testutil.Fixture(t, "far-q9-w24.br") // 1<<24 window, 15 KB of content
	z, err := NewReader(bytes.NewReader(data), Config{MemLimit: 1 << 12})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = io.Copy(io.Discard, z); !errors.Is(err, ErrLimit) || !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
	z.SetConfig(Config{MemLimit: 1<<24 + ringSlack})
	if err = z.Reset(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if _, err = io.Copy(io.Discard, z); err != nil {
		t.Fatal(err)
	}
}

// TestTrailing: bytes after the stream are an error, after the content.
func TestTrailing(t *testing.T) {
	data := append(testutil.Fixture(t, "text-q5.br"), 0)
	z, err := NewReader(bytes.NewReader(data), Config{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(z)
	if !errors.Is(err, ErrTrailing) {
		t.Fatalf("got %v, want ErrTrailing", err)
	}
	if s := sum(got); s != fixtures(t)["text-q5.br"] {
		t.Fatal("content before the trailing byte differs")
	}
}

// TestTruncated: every proper prefix of a stream fails with a corrupt
// error that is io.ErrUnexpectedEOF when the input simply ends.
func TestTruncated(t *testing.T) {
	z := new(Reader)
	for _, name := range []string{"mixed-q0.br", "mixed-q5.br", "text-q11.br", "noise-q5.br", "far-q9-w14.br"} {
		data := testutil.Fixture(t, name)
		step := max(1, len(data)/300)
		for n := 0; n < len(data); n += step {
			err := z.Reset(bytes.NewReader(data[:n]))
			if err == nil {
				_, err = io.Copy(io.Discard, z)
			}
			if !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("%s cut at %d: got %v, want a corrupt error", name, n, err)
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrPadding) {
				t.Fatalf("%s cut at %d: got %v, want io.ErrUnexpectedEOF", name, n, err)
			}
		}
	}
}

// TestBitFlips: streams with one bit flipped decode or fail with a
// categorized error; none panics or hangs.
func TestBitFlips(t *testing.T) {
	z := new(Reader)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"mixed-q1.br", "mixed-q9.br", "text-q11.br", "far-q9-w12.br"} {
		data := testutil.Fixture(t, name)
		bad := make([]byte, len(data))
		for range 400 {
			copy(bad, data)
			i := rng.IntN(len(bad))
			bad[i] ^= 1 << rng.IntN(8)
			err := z.Reset(bytes.NewReader(bad))
			if err == nil {
				_, err = io.Copy(io.Discard, z)
			}
			if err != nil && !archive.Categorized(err) {
				t.Fatalf("%s flip at %d: error of no category: %v", name, i, err)
			}
		}
	}
}

// TestRoundTrip decodes what andybalholm/brotli's encoder (the test
// oracle) makes of random inputs at every quality and several windows.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the of and to in is that for it with as was on be by this are from at or an have")
	z := new(Reader)
	for i := range 48 {
		var src []byte
		switch i % 4 {
		case 0: // words
			for len(src) < 30000 {
				src = append(src, words[rng.IntN(len(words))]...)
				src = append(src, ' ')
			}
		case 1: // low-entropy bytes
			for range 20000 {
				src = append(src, byte(rng.IntN(4)*rng.IntN(3)))
			}
		case 2: // noise with repeats
			for len(src) < 40000 {
				if len(src) > 100 && rng.IntN(2) == 0 {
					d := 1 + rng.IntN(len(src)-1)
					n := min(d, 3+rng.IntN(300))
					src = append(src, src[len(src)-d:len(src)-d+n]...)
				} else {
					for range 1 + rng.IntN(50) {
						src = append(src, byte(rng.Uint32()))
					}
				}
			}
		case 3: // short
			src = []byte(words[rng.IntN(len(words))])[:rng.IntN(3)]
		}
		var buf bytes.Buffer
		w := ab.NewWriterOptions(&buf, ab.WriterOptions{Quality: i % 12, LGWin: 10 + i%15})
		w.Write(src)
		w.Close()
		if err := z.Reset(&buf); err != nil {
			t.Fatal(i, err)
		}
		got, err := io.ReadAll(z)
		if err != nil {
			t.Fatal(i, err)
		}
		if !bytes.Equal(got, src) {
			t.Fatalf("%d: round trip differs", i)
		}
	}
}

// TestEmpty: an empty input is a truncated stream.
func TestEmpty(t *testing.T) {
	if _, err := NewReader(bytes.NewReader(nil), Config{}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want io.ErrUnexpectedEOF", err)
	}
}

// TestDictionary checks the extracted static dictionary: its size, the
// CRC-32 RFC 7932 gives (via the SHA-256 of the extracted file) and the
// word offsets the lengths imply.
func TestDictionary(t *testing.T) {
	if len(dictionary) != 122784 {
		t.Fatalf("dictionary is %d bytes, want 122784", len(dictionary))
	}
	const want = "20e42eb1b511c21806d4d227d07e5dd06877d8ce7b3a817f378f313653f35c70"
	if s := sum([]byte(dictionary)); s != want {
		t.Fatalf("dictionary sha256 %s, want %s", s, want)
	}
	if end := dictOffset[24] + 24<<ndBits[24]; end != len(dictionary) {
		t.Fatalf("word table ends at %d", end)
	}
	for i, tr := range transforms {
		if len(tr.prefix)+24+len(tr.suffix) > maxWord {
			t.Fatalf("transform %d too long", i)
		}
	}
	if _, err := os.Stat(filepath.Join("testdata", "SHA256SUMS")); err != nil {
		t.Fatal(err)
	}
}

// TestAllocs: decoding a stream again with a reused Reader allocates
// nothing.
func TestAllocs(t *testing.T) {
	data := testutil.Fixture(t, "text-q11.br")
	br := bytes.NewReader(data)
	z := new(Reader)
	decode := func() {
		br.Reset(data)
		if err := z.Reset(br); err != nil {
			t.Fatal(err)
		}
		if _, err := z.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	decode()
	if n := testing.AllocsPerRun(5, decode); n != 0 {
		t.Fatalf("%v allocations per decode, want 0", n)
	}
}

// TestRoundTripLarge decodes larger mixed inputs, where the encoder's
// block splitting gives many block switches of every category, at the
// qualities that use it.
func TestRoundTripLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes at quality 11")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("the of and to in is that for it with as was on be by this are from at or an have brotli window literal")
	var src []byte
	for len(src) < 300000 {
		switch rng.IntN(3) {
		case 0:
			for range 200 {
				src = append(src, words[rng.IntN(len(words))]...)
				src = append(src, " \n"[rng.IntN(2)])
			}
		case 1:
			for range 2000 {
				src = append(src, byte(rng.IntN(16)*rng.IntN(5)))
			}
		default:
			for range 100 {
				d := 1 + rng.IntN(len(src)-1+1)
				n := min(d, 4+rng.IntN(40))
				if d <= len(src) {
					src = append(src, src[len(src)-d:len(src)-d+n]...)
				}
				src = append(src, byte(rng.Uint32()))
			}
		}
	}
	z := new(Reader)
	for _, q := range []int{4, 6, 9, 11} {
		var buf bytes.Buffer
		w := ab.NewWriterOptions(&buf, ab.WriterOptions{Quality: q, LGWin: 16 + q%3})
		w.Write(src)
		w.Close()
		if err := z.Reset(&buf); err != nil {
			t.Fatal(q, err)
		}
		got, err := io.ReadAll(z)
		if err != nil {
			t.Fatal(q, err)
		}
		if !bytes.Equal(got, src) {
			t.Fatalf("quality %d: round trip differs", q)
		}
	}
}
