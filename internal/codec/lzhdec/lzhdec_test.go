package lzhdec_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzh"
	"github.com/unpack-dev/unpack/internal/codec/lzhdec"
)

// The streams come from the lzh package's fixtures (see its SOURCES.md).
func fixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "lzh", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stream is one entry's packed data, method and size.
type stream struct {
	m      lzhdec.Method
	data   []byte
	size   int64
	sha256 string
}

var methods = map[string]lzhdec.Method{"-lh1-": lzhdec.LH1, "-lh4-": lzhdec.LH4, "-lh5-": lzhdec.LH5,
	"-lh6-": lzhdec.LH6, "-lh7-": lzhdec.LH7, "-lhx-": lzhdec.LHX, "-lzs-": lzhdec.LZS, "-lz5-": lzhdec.LZ5,
	"-pm1-": lzhdec.PM1, "-pm2-": lzhdec.PM2}

// streams extracts the compressed entries of the fixtures by reading each
// archive twice: once for the decoded data, once (through a recording
// reader) for the offsets.
func streams(t testing.TB) []stream {
	var out []stream
	for _, name := range []string{"jlha-l0-lh5.lzh", "jlha-l1-lh6.lzh", "jlha-l2-lh7.lzh", "lh1-64k.lzh", "lh4.lzh", "h2_lhx.lzh", "initial.lzs", "lz5-64k.lzs", "pm1.pma", "mtcd.pma", "pm2.pma"} {
		data := fixture(t, name)
		r, err := lzh.NewReader(bytes.NewReader(data), nil)
		if err != nil {
			t.Fatal(err)
		}
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			m, ok := methods[e.Method]
			if !ok || e.Size == 0 {
				continue
			}
			h := sha256.New()
			if _, err := io.Copy(h, r); err != nil {
				t.Fatal(err)
			}
			out = append(out, stream{m: m, size: e.Size, sha256: hex.EncodeToString(h.Sum(nil)), data: packed(t, data, e)})
		}
	}
	return out
}

// packed finds an entry's packed bytes: the PackedSize bytes that follow
// the header naming it (in any case) and decode to the entry's size.
func packed(t testing.TB, data []byte, e *archive.Entry) []byte {
	base := filepath.Base(e.Name)
	lower := bytes.Clone(data)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	for from := 0; ; {
		i := bytes.Index(lower[from:], []byte(base))
		if i < 0 {
			t.Fatalf("%s (%s) not found", e.Name, e.Method)
		}
		from += i + len(base)
		// Try header ends near the name: the packed data is followed by
		// the next header or the end.
		for end := from; end < from+300 && end+int(e.PackedSize) <= len(data); end++ {
			d := data[end : end+int(e.PackedSize)]
			rest := data[end+int(e.PackedSize):]
			if !(len(rest) == 0 || rest[0] == 0 || archive.IsLZHHeader(rest)) {
				continue
			}
			if ok := decodes(d, e); ok {
				return d
			}
		}
	}
}

func decodes(d []byte, e *archive.Entry) bool {
	z, err := lzhdec.NewReader(bytes.NewReader(d), methods[e.Method], e.Size)
	if err != nil {
		return false
	}
	n, err := io.Copy(io.Discard, z)
	return err == nil && n == e.Size
}

func TestStreams(t *testing.T) {
	ss := streams(t)
	if len(ss) < 8 {
		t.Fatalf("%d streams", len(ss))
	}
	var z *lzhdec.Reader
	for _, s := range ss {
		for _, wrap := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.DataErrReader} {
			if z == nil {
				var err error
				if z, err = lzhdec.NewReader(wrap(bytes.NewReader(s.data)), s.m, s.size); err != nil {
					t.Fatal(err)
				}
			} else if err := z.Reset(wrap(bytes.NewReader(s.data)), s.m, s.size); err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			n, err := io.Copy(h, iotest.HalfReader(z)) // Read
			if err != nil || n != s.size || hex.EncodeToString(h.Sum(nil)) != s.sha256 {
				t.Errorf("method %d: %d bytes, %v", s.m, n, err)
			}
		}
		// WriteTo, and a size past the stream's: the input runs out.
		z.Reset(bytes.NewReader(s.data), s.m, s.size)
		h := sha256.New()
		if n, err := z.WriteTo(h); err != nil || n != s.size || hex.EncodeToString(h.Sum(nil)) != s.sha256 {
			t.Errorf("method %d WriteTo: %d, %v", s.m, n, err)
		}
		if s.m == lzhdec.PM1 {
			// -pm1- reads zeros past its input, as lhasa does: the
			// container's CRC catches a short stream.
			z.Reset(bytes.NewReader(s.data[:len(s.data)/2]), s.m, s.size)
			if n, _ := io.Copy(io.Discard, z); n > s.size {
				t.Errorf("-pm1-, half the input: %d bytes", n)
			}
			continue
		}
		z.Reset(bytes.NewReader(s.data), s.m, s.size+100000)
		if _, err := io.Copy(io.Discard, z); !errors.Is(err, lzhdec.ErrCorrupt) {
			t.Errorf("method %d read past its input: %v", s.m, err)
		}
		// Truncated input fails as corrupt.
		z.Reset(bytes.NewReader(s.data[:len(s.data)/2]), s.m, s.size)
		if _, err := io.Copy(io.Discard, z); !errors.Is(err, lzhdec.ErrCorrupt) {
			t.Errorf("method %d, half the input: %v", s.m, err)
		}
	}
}

func TestErrors(t *testing.T) {
	if _, err := lzhdec.NewReader(bytes.NewReader(nil), 99, 1); !errors.Is(err, lzhdec.ErrMethod) {
		t.Errorf("unknown method: %v", err)
	}
	if lzhdec.WindowSize(99) != 0 || lzhdec.WindowSize(lzhdec.LHX) != 1<<20 {
		t.Error("WindowSize")
	}
	// A block whose literal table over-subscribes the code space: 16-bit
	// count, then a temporary table of 3 codes all of length 1.
	bad := []byte{0x00, 0x10, 0x19, 0x24, 0, 0, 0, 0}
	z, _ := lzhdec.NewReader(bytes.NewReader(bad), lzhdec.LH5, 10)
	if _, err := io.Copy(io.Discard, z); !errors.Is(err, lzhdec.ErrCorrupt) || !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("over-subscribed table: %v", err)
	}
	// A read error is passed on.
	boom := errors.New("boom")
	z, _ = lzhdec.NewReader(iotest.ErrReader(boom), lzhdec.LH7, 10)
	if _, err := io.Copy(io.Discard, z); !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
	// Nothing to decode.
	z, _ = lzhdec.NewReader(bytes.NewReader(nil), lzhdec.LZ5, 0)
	if n, err := io.Copy(io.Discard, z); n != 0 || err != nil {
		t.Errorf("empty: %d %v", n, err)
	}
}

func BenchmarkLH5(b *testing.B) {
	var s stream
	for _, x := range streams(b) {
		if x.m == lzhdec.LH7 {
			s = x
		}
	}
	z, _ := lzhdec.NewReader(bytes.NewReader(s.data), s.m, s.size)
	b.SetBytes(s.size)
	b.ReportAllocs()
	for b.Loop() {
		z.Reset(bytes.NewReader(s.data), s.m, s.size)
		if n, err := z.WriteTo(io.Discard); err != nil || n != s.size {
			b.Fatal(n, err)
		}
	}
}
