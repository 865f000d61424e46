package gzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/iotest"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// fixtures returns the committed fixtures by name.
func fixtures(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob("testdata/*.gz")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures (scripts/testdata/gzip.sh): %v", err)
	}
	m := make(map[string][]byte)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(p)] = b
	}
	return m
}

// oracle decodes with klauspost/compress, every member.
func oracle(t testing.TB, gz []byte) []byte {
	t.Helper()
	zr, err := kgzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return want
}

func decode(r io.Reader) ([]byte, *Reader, error) {
	z, err := NewReader(r)
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(z)
	return b, z, err
}

func TestFixtures(t *testing.T) {
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"onebyte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"dataerr", iotest.DataErrReader},
	}
	for name, gz := range fixtures(t) {
		want := oracle(t, gz)
		for _, rd := range readers {
			t.Run(name+"/"+rd.name, func(t *testing.T) {
				got, _, err := decode(rd.wrap(bytes.NewReader(gz)))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("output differs: %d bytes, want %d", len(got), len(want))
				}
			})
		}
	}
}

func TestNamed(t *testing.T) {
	gz := fixtures(t)["named.gz"]
	z, err := NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if z.Name != "text.txt" {
		t.Errorf("Name = %q", z.Name)
	}
	if want := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC); !z.ModTime.Equal(want) {
		t.Errorf("ModTime = %v, want %v", z.ModTime, want)
	}
}

// member wraps the raw deflate data of gz's first member in a header with
// every optional field.
func member(t testing.TB, gz []byte, name, comment string, extra []byte, hcrc bool) []byte {
	t.Helper()
	if gz[3] != 0 {
		t.Fatal("fixture has header fields")
	}
	flg := byte(flagName | flagComment | flagExtra)
	if hcrc {
		flg |= flagHCRC
	}
	h := []byte{0x1f, 0x8b, 8, flg, 1, 2, 3, 4, 0, 3}
	h = binary.LittleEndian.AppendUint16(h, uint16(len(extra)))
	h = append(h, extra...)
	h = append(append(h, name...), 0)
	h = append(append(h, comment...), 0)
	if hcrc {
		h = binary.LittleEndian.AppendUint16(h, uint16(crc32.ChecksumIEEE(h)))
	}
	return append(h, gz[10:]...)
}

func TestHeaderFields(t *testing.T) {
	gz := fixtures(t)["runs.gz"]
	want := oracle(t, gz)
	extra := []byte("AB\x02\x00xy")
	for _, hcrc := range []bool{false, true} {
		m := member(t, gz, "caf\xe9.txt", "a comment", extra, hcrc)
		got, z, err := decode(iotest.OneByteReader(bytes.NewReader(m)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatal("output differs")
		}
		if z.Name != "café.txt" || z.Comment != "a comment" || !bytes.Equal(z.Extra, extra) || z.OS != 3 ||
			z.ModTime.Unix() != 0x04030201 {
			t.Errorf("header = %+v", z.Header)
		}
	}
	m := member(t, gz, "n", "c", nil, true)
	m[10+2+2] ^= 1 // the name, covered by the header CRC
	if _, _, err := decode(bytes.NewReader(m)); !errors.Is(err, ErrHeader) {
		t.Errorf("bad header CRC: %v", err)
	}
}

func TestMembers(t *testing.T) {
	f := fixtures(t)
	a, b := f["runs.gz"], f["text.gz"]
	want := append(oracle(t, a), oracle(t, b)...)
	end := int64(len(a) + len(b))
	big := bytes.Repeat([]byte("trailing"), 20000)
	tests := []struct {
		name               string
		in                 []byte
		err                error
		trailOff, trailLen int64
	}{
		{"two", cat(a, b), nil, 0, 0},
		{"padding", cat(a, b, make([]byte, 1000)), nil, 0, 0},
		{"garbage", cat(a, b, []byte("junk")), nil, end, 4},
		{"zeros then garbage", cat(a, b, []byte{0, 0, 1}), nil, end, 3},
		{"magic byte then garbage", cat(a, b, []byte{0x1f, 'x', 'y'}), nil, end, 3},
		{"lone magic byte", cat(a, b, []byte{0x1f}), ErrTruncated, 0, 0},
		{"more than a buffer", cat(a, b, big), nil, end, int64(len(big))},
		{"second header cut", cat(a, b, b[:5]), ErrTruncated, 0, 0},
		{"bad second header", cat(a, b, []byte{0x1f, 0x8b, 9, 0, 0, 0, 0, 0, 0, 0}), ErrMethod, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, err := NewReader(iotest.HalfReader(bytes.NewReader(tt.in)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(z)
			if !errors.Is(err, tt.err) && !(tt.err == nil && err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if tt.err == nil && !bytes.Equal(got, want) {
				t.Fatal("output differs")
			}
			if off, n := z.Trailing(); off != tt.trailOff || n != tt.trailLen {
				t.Errorf("Trailing() = %d, %d; want %d, %d", off, n, tt.trailOff, tt.trailLen)
			}
		})
	}
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestCorrupt(t *testing.T) {
	gz := fixtures(t)["text.gz"]
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(gz)) }
	n := len(gz)
	tests := []struct {
		name string
		in   []byte
		err  error
	}{
		{"empty", nil, ErrTruncated},
		{"magic", mod(func(b []byte) []byte { b[0] = 0; return b }), ErrHeader},
		{"method", mod(func(b []byte) []byte { b[2] = 7; return b }), ErrMethod},
		{"reserved flag", mod(func(b []byte) []byte { b[3] = 0x80; return b }), ErrHeader},
		{"crc", mod(func(b []byte) []byte { b[n-8] ^= 1; return b }), verify.ErrChecksum},
		{"isize", mod(func(b []byte) []byte { b[n-1] ^= 1; return b }), ErrSize},
		{"no trailer", gz[:n-8], ErrTruncated},
		{"short trailer", gz[:n-3], ErrTruncated},
		{"block type 3", mod(func(b []byte) []byte { b[10] |= 6; return b }), archive.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := decode(bytes.NewReader(tt.in))
			if !errors.Is(err, tt.err) || !archive.Categorized(err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
		})
	}
}

func TestTruncated(t *testing.T) {
	for name, gz := range fixtures(t) {
		step := max(1, len(gz)/300)
		for n := 0; n < len(gz); n += step {
			_, _, err := decode(bytes.NewReader(gz[:n]))
			if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, archive.ErrCorrupt) {
				// A cut inside a later member's header or an empty
				// member may also end cleanly only at a member boundary.
				t.Fatalf("%s cut at %d: %v", name, n, err)
			}
		}
	}
}

func TestBitFlips(t *testing.T) {
	gz := fixtures(t)["runs.gz"]
	want := oracle(t, gz)
	for i := range gz {
		for _, bit := range []byte{1, 0x10, 0x80} {
			b := bytes.Clone(gz)
			b[i] ^= bit
			got, _, err := decode(bytes.NewReader(b))
			switch {
			case err != nil && !archive.Categorized(err):
				t.Fatalf("byte %d bit %#x: uncategorized %v", i, bit, err)
			case err == nil && !bytes.Equal(got, want):
				t.Fatalf("byte %d bit %#x: wrong output without error", i, bit)
			}
		}
	}
}

func TestReset(t *testing.T) {
	f := fixtures(t)
	z := new(Reader)
	for _, name := range []string{"text.gz", "members.gz", "random.gz", "text.gz"} {
		if err := z.Reset(bytes.NewReader(f[name])); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, oracle(t, f[name])) {
			t.Fatalf("%s after Reset: output differs", name)
		}
	}
}

func TestAllocs(t *testing.T) {
	gz := fixtures(t)["members.gz"]
	z, err := NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32<<10)
	src := bytes.NewReader(gz)
	allocs := testing.AllocsPerRun(20, func() {
		src.Reset(gz)
		if err := z.Reset(src); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := z.Read(buf); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs > 0 {
		t.Errorf("%v allocations per stream of four members", allocs)
	}
}

func FuzzGzip(f *testing.F) {
	for _, gz := range fixtures(f) {
		f.Add(gz)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, _, err := decode(bytes.NewReader(in))
		if err != nil {
			if !archive.Categorized(err) {
				t.Fatalf("uncategorized error %v", err)
			}
			return
		}
		// The oracle rejects the zero padding we skip; where it accepts
		// the input, the outputs must agree.
		zr, kerr := kgzip.NewReader(bytes.NewReader(in))
		if kerr != nil {
			return
		}
		want, kerr := io.ReadAll(zr)
		if kerr == nil && !bytes.Equal(got, want) {
			t.Fatal("output differs from the oracle")
		}
	})
}

// TestMemoryBounded checks that a stream's allocations are the fixed
// buffers (window, input, tables), however long the output.
func TestMemoryBounded(t *testing.T) {
	var buf bytes.Buffer
	w := kgzip.NewWriter(&buf)
	chunk := bytes.Repeat([]byte("bounded memory "), 1<<12)
	for range 256 { // 15 MiB of output
		w.Write(chunk)
	}
	w.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	z, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{z}, make([]byte, 64<<10))
	if err != nil || n != 256*int64(len(chunk)) {
		t.Fatal(n, err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 500<<10 {
		t.Errorf("%d bytes allocated for one stream", got)
	}
}
