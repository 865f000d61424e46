package lzw

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

type sum struct {
	sha  string
	size int64
}

// readSums reads testdata/sums.txt written by scripts/testdata/lzw.sh.
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

var fixtures = []struct{ file, want string }{
	{"text-b16.Z", "text"},
	{"text-b12.Z", "text"},
	{"text-b10.Z", "text"},
	{"mixed-b16.Z", "mixed"},
	{"mixed-b12.Z", "mixed"},
	{"mixed-b10.Z", "mixed"},
	{"runs-b16.Z", "runs"},
	{"small-b16.Z", "small"},
	{"one-b16.Z", "one"},
	{"empty-b16.Z", "empty"},
	{"nonblock-b16.Z", "nonblock"},
	{"tree.tar.Z", "tree.tar"},
}

func TestFixtures(t *testing.T) {
	sums := readSums(t)
	wraps := map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
	}
	var reused Reader
	for _, f := range fixtures {
		data, err := os.ReadFile(filepath.Join("testdata", f.file))
		if err != nil {
			t.Fatal(err)
		}
		want := sums[f.want]
		for name, wrap := range wraps {
			t.Run(f.file+"/"+name, func(t *testing.T) {
				r, err := NewReader(wrap(bytes.NewReader(data)))
				if err != nil {
					t.Fatal(err)
				}
				got, n, err := testutil.HashAll(iotest.OneByteReader(r))
				if err != nil || got != want.sha || n != want.size {
					t.Fatalf("got %s %d %v, want %s %d", got, n, err, want.sha, want.size)
				}
			})
		}
		if err := reused.Reset(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		n, err := reused.WriteTo(h)
		if got := hex.EncodeToString(h.Sum(nil)); err != nil || got != want.sha || n != want.size {
			t.Fatalf("%s WriteTo on a reused reader: got %s %d %v", f.file, got, n, err)
		}
	}
}

// TestBadB9 holds unpack to what compress -d, gzip -d and bsdcat say of
// ncompress's -b9 output: corrupt.
func TestBadB9(t *testing.T) {
	data, err := os.ReadFile("testdata/bad-b9.Z")
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeErr(data); !errors.Is(err, ErrCode) {
		t.Fatalf("got %v, want %v", err, ErrCode)
	}
}

func decodeErr(data []byte) error {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, r)
	return err
}

func TestHeader(t *testing.T) {
	for _, tc := range []struct {
		data []byte
		want error
	}{
		{nil, ErrMagic},
		{[]byte{0x1f}, ErrTruncated},
		{[]byte{0x1f, 0x9d}, ErrTruncated},
		{[]byte{0x1f, 0x8b, 8}, ErrMagic},
		{[]byte{0x1f, 0x9d, 0x91}, ErrBits},
		{[]byte{0x1f, 0x9d, 0x88}, ErrFewBits},
		{[]byte{0x1f, 0x9d, 0x90, 0x00, 0x03}, ErrCode},      // first code 256+
		{[]byte{0x1f, 0x9d, 0x90, 'a', 0xfe, 0x03}, ErrCode}, // code far beyond the next free one
	} {
		if err := decodeErr(tc.data); !errors.Is(err, tc.want) {
			t.Errorf("% x: got %v, want %v", tc.data, err, tc.want)
		}
	}
}

// TestTruncatedAndFlipped: .Z carries no length nor check, so a cut or a
// flipped bit can go unseen, but never panics, hangs, or gives more than
// a cut input holds; a cut file decodes to a prefix of the data.
func TestTruncatedAndFlipped(t *testing.T) {
	data, err := os.ReadFile("testdata/mixed-b12.Z")
	if err != nil {
		t.Fatal(err)
	}
	full, err := io.ReadAll(mustReader(t, data))
	if err != nil {
		t.Fatal(err)
	}
	for n := 3; n < len(data); n += len(data)/97 + 1 {
		got, err := io.ReadAll(mustReader(t, data[:n]))
		if err != nil && !errors.Is(err, archive.ErrCorrupt) {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if !bytes.HasPrefix(full, got) {
			t.Fatalf("cut at %d: output is not a prefix of the data", n)
		}
	}
	bad := make([]byte, len(data))
	corrupt := 0
	for i := 3; i < len(data); i += len(data)/211 + 1 {
		copy(bad, data)
		bad[i] ^= 0x10
		err := decodeErr(bad)
		if err != nil && !errors.Is(err, archive.ErrCorrupt) {
			t.Fatalf("flip at %d: %v", i, err)
		}
		if err != nil {
			corrupt++
		}
	}
	t.Logf("%d flips found corrupt by the code checks", corrupt)
}

func mustReader(t *testing.T, data []byte) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAgainstCompress runs ncompress over inputs too large to commit (the
// 16-bit table filling and clearing several times) at every code width it
// reads back, and compares. Skipped when compress is not installed.
func TestAgainstCompress(t *testing.T) {
	testutil.StartsProcess(t)
	if _, err := exec.LookPath("compress"); err != nil {
		t.Skip("compress (ncompress) not installed")
	}
	if testing.Short() {
		t.Skip("short")
	}
	r := rand.New(rand.NewSource(1))
	var in bytes.Buffer
	for in.Len() < 600<<10 {
		switch r.Intn(3) {
		case 0:
			b := make([]byte, 1+r.Intn(40000))
			r.Read(b)
			in.Write(b)
		case 1:
			for range r.Intn(5000) {
				in.WriteString(strconv.Itoa(r.Intn(100)) + " ")
			}
		default:
			in.Write(bytes.Repeat([]byte{byte(r.Intn(256))}, r.Intn(30000)))
		}
	}
	for bits := 10; bits <= 16; bits++ {
		cmd := exec.Command("compress", "-c", "-b", strconv.Itoa(bits))
		cmd.Stdin = bytes.NewReader(in.Bytes())
		z, err := cmd.Output()
		if err != nil && cmd.ProcessState.ExitCode() != 2 { // 2: no gain
			t.Fatal(err)
		}
		got, err := io.ReadAll(mustReader(t, z))
		if err != nil || !bytes.Equal(got, in.Bytes()) {
			t.Fatalf("-b%d: %d bytes, %v; want %d bytes", bits, len(got), err, in.Len())
		}
	}
}

// TestReuseAllocs checks that decoding another stream with a reused Reader
// allocates nothing.
func TestReuseAllocs(t *testing.T) {
	data, err := os.ReadFile("testdata/mixed-b16.Z")
	if err != nil {
		t.Fatal(err)
	}
	var z Reader
	br := bytes.NewReader(data)
	buf := make([]byte, 32<<10)
	run := func() {
		br.Reset(data)
		if err := z.Reset(br); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := z.Read(buf); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				return
			}
		}
	}
	run()
	if allocs := testing.AllocsPerRun(3, run); allocs > 0 {
		t.Fatalf("%v allocations per reused decode", allocs)
	}
}

// BenchmarkLZW decodes the committed .Z fixtures with one reused Reader.
func BenchmarkLZW(b *testing.B) {
	sums := readSums(b)
	for _, f := range fixtures[:6] {
		data, err := os.ReadFile(filepath.Join("testdata", f.file))
		if err != nil {
			b.Fatal(err)
		}
		size := sums[f.want].size
		b.Run(f.file, func(b *testing.B) {
			var z Reader
			br := bytes.NewReader(data)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(data)
				if err := z.Reset(br); err != nil {
					b.Fatal(err)
				}
				if n, err := z.WriteTo(io.Discard); err != nil || n != size {
					b.Fatalf("decoded %d bytes, %v; want %d", n, err, size)
				}
			}
		})
	}
}

// refDecode is the oracle of FuzzLZW: a plain decoder written from
// ncompress's description, one bit and one table entry at a time. It stops
// with errCodeRef where the Reader must fail with ErrCode, and after limit
// bytes of output.
func refDecode(data []byte, limit int) ([]byte, error) {
	if len(data) < 3 || data[0] != 0x1f || data[1] != 0x9d {
		return nil, ErrMagic
	}
	maxBits, block := int(data[2]&0x1f), data[2]&0x80 != 0
	if maxBits < 9 || maxBits > 16 {
		return nil, ErrBits
	}
	var prefix [maxCodes]int
	var suffix [maxCodes]byte
	for i := range 256 {
		suffix[i] = byte(i)
	}
	nBits, maxCode, maxMax, free := 9, 511, 1<<maxBits, 256
	if block {
		free = 257
	}
	old, first := -1, byte(0)
	var out, stack []byte
	for pos := 3; pos < len(data) && len(out) < limit; {
		n := min(nBits, len(data)-pos)
		grp := data[pos : pos+n]
		pos += n
	group:
		for k := range n * 8 / nBits {
			code := 0
			for b := range nBits {
				if bit := k*nBits + b; grp[bit>>3]>>(bit&7)&1 != 0 {
					code |= 1 << b
				}
			}
			switch {
			case old < 0:
				if code >= 256 {
					return out, ErrCode
				}
				out = append(out, byte(code))
				old, first = code, byte(code)
				continue
			case code == 256 && block:
				free, nBits, maxCode = 256, 9, 511
				break group
			}
			stack = stack[:0]
			c := code
			if code >= free {
				if code > free {
					return out, ErrCode
				}
				stack = append(stack, first)
				c = old
			}
			for c >= 256 {
				stack = append(stack, suffix[c])
				c = prefix[c]
			}
			stack = append(stack, byte(c))
			first = byte(c)
			for i := len(stack) - 1; i >= 0; i-- {
				out = append(out, stack[i])
			}
			if free < maxMax {
				prefix[free], suffix[free] = old, first
				free++
			}
			old = code
			if free > maxCode {
				nBits++
				maxCode = 1<<nBits - 1
				if nBits == maxBits {
					maxCode = maxMax
				}
				break group
			}
		}
	}
	return out, nil
}

// FuzzLZW decodes .Z streams and holds the Reader to refDecode: the same
// bytes, and an error exactly where refDecode has one. Any error must be of
// an archive category.
func FuzzLZW(f *testing.F) {
	for _, name := range []string{"small-b16.Z", "nonblock-b16.Z", "one-b16.Z", "tree.tar.Z", "mixed-b10.Z"} {
		f.Add(testutil.Fixture(f, name))
	}
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []byte
		r, err := NewReader(bytes.NewReader(data))
		if err == nil {
			got, err = io.ReadAll(io.LimitReader(r, limit))
		}
		if err != nil && !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrUnsupported) {
			t.Fatalf("error of no category: %v", err)
		}
		want, wantErr := refDecode(data, limit)
		if len(want) > limit {
			want, wantErr = want[:limit], nil
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes differ from the reference's %d", len(got), len(want))
		}
		if wantErr == ErrCode && err != ErrCode || wantErr == nil && err != nil && len(data) >= 3 {
			t.Fatalf("error %v, reference %v", err, wantErr)
		}
	})
}
