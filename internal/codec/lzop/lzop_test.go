package lzop

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
	"github.com/unpack-dev/unpack/internal/verify"
)

type sum struct {
	sha  string
	size int64
}

// readSums reads testdata/sums.txt written by scripts/testdata/lzop.sh.
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
	{"text-1.lzo", "text"},
	{"text-3.lzo", "text"},
	{"text-9.lzo", "text"},
	{"mixed-3.lzo", "mixed"},
	{"mixed-9.lzo", "mixed"},
	{"small-3.lzo", "small"},
	{"small-nocheck.lzo", "small"},
	{"small-crc32.lzo", "small"},
	{"small-cc.lzo", "small"},
	{"small-crc32-cc.lzo", "small"},
	{"noise-3.lzo", "noise"},
	{"empty-3.lzo", "empty"},
	{"two.lzo", "two"},
	{"tree.tar.lzo", "tree.tar"},
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
				r, err := NewReader(wrap(bytes.NewReader(data)), 0)
				if err != nil {
					t.Fatal(err)
				}
				got, n, err := testutil.HashAll(iotest.OneByteReader(r))
				if err != nil || got != want.sha || n != want.size {
					t.Fatalf("got %s %d %v, want %s %d", got, n, err, want.sha, want.size)
				}
			})
		}
		if err := reused.Reset(bytes.NewReader(data), 0); err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		n, err := reused.WriteTo(h)
		if got := hex.EncodeToString(h.Sum(nil)); err != nil || got != want.sha || n != want.size {
			t.Fatalf("%s WriteTo on a reused reader: got %s %d %v", f.file, got, n, err)
		}
	}
}

func decodeErr(data []byte, limit int64) error {
	r, err := NewReader(bytes.NewReader(data), limit)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, r)
	return err
}

// TestChecks flips one byte of each checksum a fixture carries, and of its
// data, and expects the check that covers it to fail.
func TestChecks(t *testing.T) {
	data, err := os.ReadFile("testdata/small-crc32-cc.lzo")
	if err != nil {
		t.Fatal(err)
	}
	// Header: magic 9, version 2, lib 2, need 2, method 1, level 1, flags 4,
	// mode 4, mtime 8, name length 1 (0), checksum 4. Then the block:
	// sizes 8, CRC-32 of the data 4, CRC-32 of the compressed data 4.
	hdrEnd := 9 + 2 + 2 + 2 + 1 + 1 + 4 + 4 + 8 + 1 + int(data[9+2+2+2+1+1+4+4+8])
	blk := hdrEnd + 4
	for name, tc := range map[string]struct {
		pos  int
		want error
	}{
		"header field":        {9 + 7, ErrHeader},
		"header checksum":     {hdrEnd, ErrHeader},
		"data checksum":       {blk + 8, verify.ErrChecksum},
		"compressed checksum": {blk + 12, verify.ErrChecksum},
		"compressed data":     {blk + 16 + 100, verify.ErrChecksum},
		"block size":          {blk + 1, archive.ErrCorrupt},
	} {
		b := bytes.Clone(data)
		b[tc.pos] ^= 0x04
		if err := decodeErr(b, 0); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", name, err, tc.want)
		}
	}
	var mm *verify.MismatchError
	b := bytes.Clone(data)
	b[blk+8] ^= 1
	if err := decodeErr(b, 0); !errors.As(err, &mm) || mm.Kind != verify.CRC32 {
		t.Errorf("data CRC: %v", err)
	}
	// Adler-32 of the data, without a check of the compressed bytes: a
	// flip in them is found by the decoder or by the data's Adler-32.
	data, _ = os.ReadFile("testdata/small-3.lzo")
	for i := len(data) - 2000; i < len(data)-4; i += 97 {
		b := bytes.Clone(data)
		b[i] ^= 0x20
		err := decodeErr(b, 0)
		if !errors.Is(err, ErrData) && !(errors.As(err, &mm) && mm.Kind == verify.Adler32) {
			t.Fatalf("flip at %d: %v", i, err)
		}
	}
}

func TestTruncatedAndFlipped(t *testing.T) {
	for _, f := range []string{"mixed-3.lzo", "two.lzo"} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(data); n += len(data)/97 + 1 {
			if err := decodeErr(data[:n], 0); !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("%s cut at %d: %v", f, n, err)
			}
		}
		bad := make([]byte, len(data))
		for i := 0; i < len(data); i += len(data)/211 + 1 {
			copy(bad, data)
			bad[i] ^= 0x10
			err := decodeErr(bad, 0)
			if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, verify.ErrChecksum) &&
				!errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, archive.ErrLimit) {
				// mtime and mode are covered by the header check, so every
				// byte is checked by something.
				t.Fatalf("%s flip at %d: %v", f, i, err)
			}
		}
	}
}

func TestTrailingAndLimit(t *testing.T) {
	data, err := os.ReadFile("testdata/text-3.lzo")
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeErr(append(bytes.Clone(data), "junk"...), 0); !errors.Is(err, ErrTrailing) {
		t.Errorf("trailing garbage: %v", err)
	}
	if err := decodeErr(data, 100<<10); !errors.Is(err, archive.ErrLimit) {
		t.Errorf("256 KiB blocks under a 100 KiB limit: %v", err)
	}
}

// TestAgainstLzop compresses generated data (long runs, overlapping
// matches, noise) at every level with lzop, when it is installed.
func TestAgainstLzop(t *testing.T) {
	testutil.StartsProcess(t)
	if _, err := exec.LookPath("lzop"); err != nil {
		t.Skip("lzop not installed")
	}
	if testing.Short() {
		t.Skip("short")
	}
	r := rand.New(rand.NewSource(1))
	var in bytes.Buffer
	for in.Len() < 900<<10 {
		switch r.Intn(4) {
		case 0:
			b := make([]byte, 1+r.Intn(3000))
			r.Read(b)
			in.Write(b)
		case 1:
			for range r.Intn(5000) {
				in.WriteString(strconv.Itoa(r.Intn(100)) + " ")
			}
		case 2:
			in.Write(bytes.Repeat([]byte{byte(r.Intn(256))}, r.Intn(70000)))
		default:
			p := in.Bytes()
			if len(p) > 60000 {
				off := len(p) - 1 - r.Intn(60000)
				in.Write(bytes.Clone(p[off : off+r.Intn(len(p)-off)]))
			}
		}
	}
	for _, level := range []string{"-1", "-3", "-7", "-9"} {
		cmd := exec.Command("lzop", level, "-CC", "-c")
		cmd.Stdin = bytes.NewReader(in.Bytes())
		z, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(z), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, in.Bytes()) {
			t.Fatalf("%s: %d bytes, %v; want %d bytes", level, len(got), err, in.Len())
		}
	}
}

func TestReuseAllocs(t *testing.T) {
	data, err := os.ReadFile("testdata/text-3.lzo")
	if err != nil {
		t.Fatal(err)
	}
	var z Reader
	br := bytes.NewReader(data)
	run := func() {
		br.Reset(data)
		if err := z.Reset(br, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := z.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if allocs := testing.AllocsPerRun(3, run); allocs > 4 {
		t.Fatalf("%v allocations per reused decode", allocs)
	}
}

func BenchmarkLzop(b *testing.B) {
	sums := readSums(b)
	for _, f := range fixtures[:5] {
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
				if err := z.Reset(br, 0); err != nil {
					b.Fatal(err)
				}
				if n, err := z.WriteTo(io.Discard); err != nil || n != size {
					b.Fatalf("decoded %d bytes, %v; want %d", n, err, size)
				}
			}
		})
	}
}

// FuzzLzop decodes .lzo streams: any error must be of an archive category,
// and the parallel decode (from the first block) must hand out the same
// bytes and fail the same way as the serial one.
func FuzzLzop(f *testing.F) {
	for _, name := range []string{"small-3.lzo", "small-crc32-cc.lzo", "noise-3.lzo", "two.lzo", "tree.tar.lzo"} {
		f.Add(testutil.Fixture(f, name))
	}
	f.Add(append(testutil.Fixture(f, "two.lzo"), testutil.Fixture(f, "small-cc.lzo")...))
	f.Fuzz(func(t *testing.T, data []byte) {
		var outs [2][]byte
		var errs [2]error
		for i, threads := range []int{1, 3} {
			r, err := NewReader(bytes.NewReader(data), 1<<20)
			if err == nil {
				r.SetThreads(threads)
				r.serial = 0
				outs[i], err = io.ReadAll(io.LimitReader(r, 8<<20))
			}
			if err != nil && !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, verify.ErrChecksum) &&
				!errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, archive.ErrLimit) {
				t.Fatalf("error of no category: %v", err)
			}
			errs[i] = err
		}
		if !bytes.Equal(outs[0], outs[1]) || fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) {
			t.Fatalf("serial: %d bytes, %v; parallel: %d bytes, %v", len(outs[0]), errs[0], len(outs[1]), errs[1])
		}
	})
}

// TestTruncatedStored: a stored (incompressible) block cut short gives
// none of its declared bytes, only ErrTruncated: what is handed out is a
// prefix of the whole file's data, never the unread rest of the block's
// buffer.
func TestTruncatedStored(t *testing.T) {
	data, err := os.ReadFile("testdata/noise-3.lzo")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	for n := len(data) - 1; n > len(data)-len(want); n -= 7 {
		r, err := NewReader(bytes.NewReader(data[:n]), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if !errors.Is(err, ErrTruncated) {
			t.Fatalf("cut at %d: %v, want ErrTruncated", n, err)
		}
		if !bytes.HasPrefix(want, got) || len(got) >= n {
			t.Fatalf("cut at %d: %d bytes handed out, not a prefix of the data read", n, len(got))
		}
	}
}
