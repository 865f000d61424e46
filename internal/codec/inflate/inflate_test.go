package inflate

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

// farStream returns the raw Deflate64 stream of testdata/far-7zip.zip (made
// by 7-Zip, with distances beyond 32 KiB) and the SHA-256 of its output.
func farStream(t testing.TB) ([]byte, string) {
	zr, err := zip.OpenReader("testdata/far-7zip.zip")
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.File[0].OpenRaw()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("testdata/far.sha256")
	if err != nil {
		t.Fatal(err)
	}
	return raw, string(sum[:64])
}

func TestFar7zip(t *testing.T) {
	raw, want := farStream(t)
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
	} {
		h := sha256.New()
		if _, err := io.Copy(h, wrap(NewReader(wrap(bytes.NewReader(raw)), true))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("%s: sha256 %s, want %s", name, got, want)
		}
	}
}

// TestReaderDeflate decodes compress/flate's streams at every size and
// level: in deflate mode all of them (with length-258 matches, code 285),
// and in Deflate64 mode those without such matches, which it reads the same
// way.
func TestReaderDeflate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 100, 5000, 70000, 300000} {
		data := make([]byte, size)
		for i := range data {
			data[i] = "abcd"[rng.IntN(4)]
		}
		long := bytes.Clone(data)
		for i := 0; i+1000 < len(long); i += 5000 {
			copy(long[i:i+1000], bytes.Repeat([]byte{'x'}, 1000))
		}
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression, flate.HuffmanOnly} {
			for _, tc := range []struct {
				d64  bool
				data []byte
			}{{false, long}, {false, data}, {true, data}} {
				var buf bytes.Buffer
				w, _ := flate.NewWriter(&buf, level)
				w.Write(tc.data)
				w.Close()
				r := NewReader(bytes.NewReader(buf.Bytes()), tc.d64)
				got, err := io.ReadAll(r)
				if err != nil {
					t.Fatalf("size %d level %d d64 %v: %v", size, level, tc.d64, err)
				}
				if !bytes.Equal(got, tc.data) {
					t.Fatalf("size %d level %d d64 %v: output differs", size, level, tc.d64)
				}
				// Reset reuses the reader.
				r.Reset(bytes.NewReader(buf.Bytes()))
				if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, tc.data) {
					t.Fatalf("size %d level %d d64 %v after Reset: %v", size, level, tc.d64, err)
				}
			}
		}
	}
}

// TestNoOverread checks that the decoder stops at the end of its stream.
func TestNoOverread(t *testing.T) {
	raw, _ := farStream(t)
	in := bytes.NewReader(append(bytes.Clone(raw), "TRAILER"...))
	if _, err := io.Copy(io.Discard, NewReader(in, true)); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(in)
	if string(rest) != "TRAILER" {
		t.Fatalf("left %q after the stream", rest)
	}
}

func TestCorrupt(t *testing.T) {
	raw, _ := farStream(t)
	for n := 0; n < len(raw); n += 1 + len(raw)/50 {
		_, err := io.Copy(io.Discard, NewReader(bytes.NewReader(raw[:n]), true))
		if err != io.ErrUnexpectedEOF && !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("truncated at %d: %v", n, err)
		}
	}
	for _, tc := range []struct {
		in   []byte
		want error
	}{
		{[]byte{0x07}, ErrBlockType},
		{[]byte{0x01, 0x05, 0x00, 0x05, 0x00}, ErrStoredLength},
		{[]byte{0x03, 0x00, 0xfc, 0xff}, nil}, // fixed block, end of block
	} {
		_, err := io.Copy(io.Discard, NewReader(bytes.NewReader(tc.in), true))
		if !errors.Is(err, tc.want) && !(tc.want == nil && err == nil) {
			t.Errorf("%x: got %v, want %v", tc.in, err, tc.want)
		}
	}
}

func TestErrorsAreCorrupt(t *testing.T) {
	for _, err := range []error{ErrBlockType, ErrStoredLength, ErrCodeLengths, ErrSymbol, ErrDistance} {
		if !errors.Is(err, archive.ErrCorrupt) || !strings.HasPrefix(err.Error(), "inflate: ") {
			t.Errorf("%v", err)
		}
	}
}

func FuzzDeflate64(f *testing.F) {
	raw, _ := farStream(f)
	f.Add(raw[:4096])
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	w.Write([]byte(strings.Repeat("fuzzing deflate64 ", 50)))
	w.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		io.CopyN(io.Discard, NewReader(bytes.NewReader(b), true), 1<<24)
	})
}

func BenchmarkDecode(b *testing.B) {
	raw, _ := farStream(b)
	out, err := io.ReadAll(NewReader(bytes.NewReader(raw), true))
	if err != nil {
		b.Fatal(err)
	}
	r := NewReader(nil, true)
	in := bytes.NewReader(raw)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		in.Reset(raw)
		r.Reset(in)
		n, err := io.Copy(io.Discard, r)
		if err != nil || n != int64(len(out)) {
			b.Fatal(n, err)
		}
	}
}
