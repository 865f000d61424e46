package bzip2

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// fixtures reads testdata/SHA256SUMS: file name -> sha256 of its output as
// `bzip2 -dc` produced it.
func fixtures(t testing.TB) map[string]string {
	t.Helper()
	data, err := os.ReadFile("testdata/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("bad SHA256SUMS line %q", line)
		}
		m[name] = sum
	}
	if len(m) < 10 {
		t.Fatalf("only %d fixtures", len(m))
	}
	return m
}

// testReaders are reused by decodeAll (through Reset), one per thread
// count, as a caller decoding many files would.
var testReaders = map[int]*Reader{}

// decodeAll decompresses data through wrap(input) with threads, reading
// the output with reads of at most chunk bytes (0: through WriteTo),
// under a timeout.
func decodeAll(t testing.TB, data []byte, threads, chunk int, wrap func(io.Reader) io.Reader) ([]byte, error) {
	t.Helper()
	type result struct {
		out []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var in io.Reader = bytes.NewReader(data)
		if wrap != nil {
			in = wrap(in)
		}
		z := testReaders[threads]
		var err error
		if z == nil {
			z, err = NewReader(in, Config{Threads: threads})
			testReaders[threads] = z
		} else {
			err = z.Reset(in)
		}
		if err != nil {
			ch <- result{nil, err}
			return
		}
		var out bytes.Buffer
		if chunk == 0 {
			_, err := z.WriteTo(&out)
			ch <- result{out.Bytes(), err}
			return
		}
		buf := make([]byte, chunk)
		for {
			n, err := z.Read(buf)
			out.Write(buf[:n])
			if err == io.EOF {
				ch <- result{out.Bytes(), nil}
				return
			}
			if err != nil {
				ch <- result{out.Bytes(), err}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		return r.out, r.err
	case <-time.After(60 * time.Second):
		t.Fatal("decoder hung")
		return nil, nil
	}
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestFixtures(t *testing.T) {
	wraps := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"plain", nil},
		{"onebyte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"dataerr", iotest.DataErrReader},
		{"writeto", nil},
	}
	for name, want := range fixtures(t) {
		data := testutil.Fixture(t, name)
		for _, threads := range []int{1, 2, 5} {
			for _, w := range wraps {
				chunk := 1 << 16
				switch w.name {
				case "onebyte":
					chunk = 7
				case "writeto":
					chunk = 0
				}
				t.Run(fmt.Sprintf("%s/threads=%d/%s", name, threads, w.name), func(t *testing.T) {
					got, err := decodeAll(t, data, threads, chunk, w.wrap)
					if err != nil {
						t.Fatal(err)
					}
					if s := sum(got); s != want {
						t.Fatalf("output sha256 %s (%d bytes), want %s", s, len(got), want)
					}
				})
			}
		}
	}
}

// TestFalseMagic checks the fixture whose every block holds a block magic
// and an end-of-stream magic in its symbol map: the parallel decoder
// must see through them.
func TestFalseMagic(t *testing.T) {
	data := testutil.Fixture(t, "bitmap-bzip2.bz2")
	cands, _ := scanMagics(nil, data, 0, 0)
	inside := 0
	for _, c := range cands {
		if c/2 != 32 && c/2%8 != 0 {
			inside++
		}
	}
	if inside < 4 {
		t.Fatalf("fixture has only %d magics at odd positions: %v", inside, cands)
	}
	want := fixtures(t)["bitmap-bzip2.bz2"]
	for _, threads := range []int{2, 3, 8} {
		got, err := decodeAll(t, data, threads, 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sum(got) != want {
			t.Fatalf("threads=%d: wrong output", threads)
		}
	}
}

func TestReset(t *testing.T) {
	sums := fixtures(t)
	for _, threads := range []int{1, 3} {
		var z *Reader
		for _, name := range []string{"text-bzip2-1.bz2", "runs-bzip2.bz2", "empty-bzip2.bz2", "multi-bzip2.bz2"} {
			data := testutil.Fixture(t, name)
			var err error
			if z == nil {
				z, err = NewReader(bytes.NewReader(data), Config{Threads: threads})
			} else {
				err = z.Reset(bytes.NewReader(data))
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(z)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if sum(got) != sums[name] {
				t.Fatalf("%s: wrong output after Reset", name)
			}
		}
		// Reset in the middle of a stream.
		if err := z.Reset(bytes.NewReader(testutil.Fixture(t, "text-bzip2-1.bz2"))); err != nil {
			t.Fatal(err)
		}
		if _, err := z.Read(make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		data := testutil.Fixture(t, "binary-lbzip2.bz2")
		if err := z.Reset(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		if err != nil || sum(got) != sums["binary-lbzip2.bz2"] {
			t.Fatalf("after mid-stream Reset: %v", err)
		}
		z.Close()
		if _, err := z.Read(make([]byte, 1)); err == nil || err == io.EOF {
			t.Fatalf("Read after Close: %v", err)
		}
	}
}

// isCorrupt reports whether err is of the categories a damaged input must
// give.
func isCorrupt(err error) bool {
	return errors.Is(err, archive.ErrCorrupt) || errors.Is(err, verify.ErrChecksum)
}

func TestBadHeaders(t *testing.T) {
	for _, in := range []string{"", "B", "BZ", "BZh", "BZh0", "BZhA", "BZx9", "BZh9", "BZh9\x31\x41\x59",
		"BZh9\x17\x72\x45\x38\x50\x90", "BZh9\x17\x72\x45\x38\x50\x90\x00\x00\x00\x01",
		"BZh9\x12\x34\x56\x78\x9a\xbc"} {
		for _, threads := range []int{1, 2} {
			_, err := decodeAll(t, []byte(in), threads, 100, nil)
			if !isCorrupt(err) {
				t.Errorf("%q threads=%d: err %v, want corrupt", in, threads, err)
			}
		}
	}
}

// TestTrailing ends the input after the last stream when what follows is
// no stream, reporting where it starts and its length; the start of a
// stream header cut short is truncation.
func TestTrailing(t *testing.T) {
	good := testutil.Fixture(t, "text-bzip2-1.bz2")
	want, err := decodeAll(t, good, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	end := int64(len(good))
	for _, tt := range []struct {
		name      string
		tail      string
		off, size int64
		err       error
	}{
		{"none", "", 0, 0, nil},
		{"garbage", "garbage", end, 7, nil},
		{"short", "x", end, 1, nil},
		{"long", strings.Repeat("trailing", 100000), end, 800000, nil},
		{"header cut", "BZ", 0, 0, ErrTruncated},
	} {
		for _, threads := range []int{1, 2} {
			z, err := NewReader(bytes.NewReader(append(bytes.Clone(good), tt.tail...)), Config{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			out, err := io.ReadAll(z)
			z.Close()
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Errorf("%s threads=%d: err %v, want %v", tt.name, threads, err, tt.err)
				}
				continue
			}
			if err != nil || !bytes.Equal(out, want) {
				t.Errorf("%s threads=%d: %d bytes, %v", tt.name, threads, len(out), err)
			}
			if off, size := z.Trailing(); off != tt.off || size != tt.size {
				t.Errorf("%s threads=%d: Trailing() = %d, %d; want %d, %d", tt.name, threads, off, size, tt.off, tt.size)
			}
		}
	}
}

func TestChecksumErrors(t *testing.T) {
	data := testutil.Fixture(t, "text-bzip2-1.bz2")
	// The first block's stored CRC is at bytes 10..13.
	bad := bytes.Clone(data)
	bad[12] ^= 0x40
	for _, threads := range []int{1, 2} {
		_, err := decodeAll(t, bad, threads, 1<<16, nil)
		var ce *ChecksumError
		if !errors.As(err, &ce) || ce.Stream || !errors.Is(err, verify.ErrChecksum) || !errors.Is(err, archive.ErrChecksum) {
			t.Fatalf("threads=%d: block CRC: %v", threads, err)
		}
		var me *verify.MismatchError
		if !errors.As(err, &me) {
			t.Fatalf("not a *verify.MismatchError: %v", err)
		}
	}
	// The stream CRC is the last 4 bytes less padding: flip its last bit
	// in the empty stream (CRC 0).
	empty := testutil.Fixture(t, "empty-bzip2.bz2")
	empty[len(empty)-1] ^= 0x01
	_, err := decodeAll(t, empty, 1, 100, nil)
	var ce *ChecksumError
	if !errors.As(err, &ce) || !ce.Stream {
		t.Fatalf("stream CRC: %v", err)
	}
}

func TestTruncated(t *testing.T) {
	for _, name := range []string{"text-bzip2-1.bz2", "runs-bzip2.bz2", "bitmap-bzip2.bz2", "empty-bzip2.bz2"} {
		data := testutil.Fixture(t, name)
		r := rand.New(rand.NewPCG(3, uint64(len(data))))
		cuts := []int{0, 1, 4, 5, 10, 14, 20, len(data) - 1, len(data) - 2, len(data) - 4, len(data) - 5}
		for range 12 {
			cuts = append(cuts, r.IntN(len(data)))
		}
		for _, n := range cuts {
			if n < 0 || n >= len(data) {
				continue
			}
			for _, threads := range []int{1, 3} {
				chunk := 1 << 16
				if threads == 3 {
					chunk = 0 // WriteTo
				}
				_, err := decodeAll(t, data[:n], threads, chunk, nil)
				if !isCorrupt(err) {
					t.Fatalf("%s cut at %d threads=%d: err %v, want corrupt", name, n, threads, err)
				}
			}
		}
	}
}

// TestBitFlips flips single bits across small inputs: every result is an
// error of the corrupt category or (when the flip hits something the
// format does not protect, such as padding) the original output.
func TestBitFlips(t *testing.T) {
	sums := fixtures(t)
	for _, name := range []string{"small-bzip2.bz2", "empty-bzip2.bz2", "runs-bzip2.bz2", "text-bzip2-9.bz2"} {
		data := testutil.Fixture(t, name)
		r := rand.New(rand.NewPCG(4, uint64(len(data))))
		bits := len(data) * 8
		var positions []int
		if name == "small-bzip2.bz2" || name == "empty-bzip2.bz2" {
			for i := range bits {
				positions = append(positions, i)
			}
		} else {
			n := 300
			if name == "runs-bzip2.bz2" {
				n = 40 // 12 MB of output each
			}
			for range n {
				positions = append(positions, r.IntN(bits))
			}
		}
		bad := bytes.Clone(data)
		for _, p := range positions {
			bad[p/8] ^= 0x80 >> (p % 8)
			threads := 1 + p%3
			chunk := 1 << 20
			if p/3%2 == 0 {
				chunk = 0 // WriteTo
			}
			got, err := decodeAll(t, bad, threads, chunk, nil)
			bad[p/8] ^= 0x80 >> (p % 8)
			if err == nil {
				if sum(got) != sums[name] {
					t.Fatalf("%s bit %d: wrong output without error", name, p)
				}
				continue
			}
			if !isCorrupt(err) {
				t.Fatalf("%s bit %d: err %v, want corrupt", name, p, err)
			}
		}
	}
}

// TestOracle compresses random inputs with the bzip2 tool and compares
// the decoder with compress/bzip2 and with itself across thread counts.
func TestOracle(t *testing.T) {
	testutil.StartsProcess(t)
	if _, err := exec.LookPath("bzip2"); err != nil {
		t.Skip("bzip2 not installed")
	}
	r := rand.New(rand.NewPCG(5, 6))
	n := 25
	if testing.Short() {
		n = 10
	}
	for i := range n {
		size := r.IntN(400_000)
		if i == 0 {
			size = 0
		}
		data := make([]byte, size)
		switch i % 5 {
		case 0: // random bytes
			for k := range data {
				data[k] = byte(r.Uint32())
			}
		case 1: // few symbols
			for k := range data {
				data[k] = "ab\x00\xff"[r.IntN(4)]
			}
		case 2: // runs of random lengths
			for k := 0; k < len(data); {
				b, l := byte(r.Uint32()), 1+r.IntN(600)
				for ; l > 0 && k < len(data); l-- {
					data[k] = b
					k++
				}
			}
		case 3: // repeated random phrases
			phrases := make([][]byte, 50)
			for k := range phrases {
				phrases[k] = make([]byte, 1+r.IntN(30))
				for m := range phrases[k] {
					phrases[k][m] = byte('a' + r.IntN(26))
				}
			}
			data = data[:0]
			for len(data) < size {
				data = append(data, phrases[r.IntN(len(phrases))]...)
			}
		case 4: // periodic: the BWT permutation splits into several cycles
			period := make([]byte, 1+r.IntN(7))
			for k := range period {
				period[k] = byte('a' + r.IntN(3))
			}
			data = bytes.Repeat(period, size/len(period)+1)[:size]
		}
		level := 1 + r.IntN(9)
		cmd := exec.Command("bzip2", fmt.Sprintf("-%d", level), "-c")
		cmd.Stdin = bytes.NewReader(data)
		comp, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		ref, err := io.ReadAll(stdbzip2.NewReader(bytes.NewReader(comp)))
		if err != nil || !bytes.Equal(ref, data) {
			t.Fatalf("case %d: compress/bzip2 disagrees with the input: %v", i, err)
		}
		for _, threads := range []int{1, 2, 4} {
			got, err := decodeAll(t, comp, threads, 1<<16, nil)
			if err != nil {
				t.Fatalf("case %d (kind %d, %d bytes, -%d) threads=%d: %v", i, i%5, size, level, threads, err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("case %d (kind %d, %d bytes, -%d) threads=%d: wrong output", i, i%5, size, level, threads)
			}
		}
	}
}

func TestCorpus(t *testing.T) {
	rows := testutil.Manifest(t)
	seen := 0
	for _, row := range rows {
		if row.Format != "bz2" && row.Format != "tar.bz2" {
			continue
		}
		seen++
		t.Run(row.Local, func(t *testing.T) {
			data, err := os.ReadFile(row.Path)
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if row.Format == "bz2" {
				m, err := testutil.ExpectedFiles(row.Expected)
				if err != nil {
					t.Fatal(err)
				}
				want = m["<stream>"]
			} else if _, rest, ok := strings.Cut(row.Notes, "stream sha256="); ok {
				want = rest[:64]
			}
			for _, threads := range []int{1, 2} {
				got, err := decodeAll(t, data, threads, 1<<16, nil)
				switch row.Expect {
				case "ok", "ok?":
					if err != nil {
						t.Fatalf("threads=%d: %v", threads, err)
					}
					if want == "" {
						t.Fatalf("no expected sha256 for %s", row.Local)
					}
					if s := sum(got); s != want {
						t.Fatalf("threads=%d: sha256 %s, want %s", threads, s, want)
					}
				case "must-fail":
					if !isCorrupt(err) {
						t.Fatalf("threads=%d: err %v, want corrupt", threads, err)
					}
				default:
					if err != nil && !isCorrupt(err) {
						t.Fatalf("threads=%d: err %v", threads, err)
					}
				}
			}
		})
	}
	if seen == 0 {
		t.Fatal("no bz2 rows in the corpus manifest")
	}
}

// TestAllocs checks that decoding allocates per stream, not per block:
// a Reader reused through Reset decodes a multi-block file with a small,
// fixed number of allocations.
func TestAllocs(t *testing.T) {
	data := testutil.Fixture(t, "multi-bzip2.bz2")
	for _, threads := range []int{1, 2} {
		for _, writeTo := range []bool{false, true} {
			z, err := NewReader(bytes.NewReader(data), Config{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 1<<16)
			br := bytes.NewReader(data)
			run := func() {
				br.Reset(data)
				if err := z.Reset(br); err != nil {
					t.Fatal(err)
				}
				if writeTo {
					if _, err := z.WriteTo(io.Discard); err != nil {
						t.Fatal(err)
					}
					return
				}
				for {
					_, err := z.Read(buf)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			run()
			allocs := testing.AllocsPerRun(5, run)
			// Threads > 1: the work channel and the worker goroutines.
			if limit := 4.0 + 2*float64(threads); threads == 1 && allocs > 0 || allocs > limit {
				t.Errorf("threads=%d writeTo=%v: %.0f allocations per file", threads, writeTo, allocs)
			}
			z.Close()
		}
	}
}

var errWrite = errors.New("write failed")

// TestWriteToError checks that an error of the writer ends WriteTo with
// the bytes written so far, and that Read then reports it.
func TestWriteToError(t *testing.T) {
	data := testutil.Fixture(t, "multi-bzip2.bz2")
	for _, threads := range []int{1, 2} {
		z, err := NewReader(bytes.NewReader(data), Config{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		n, err := z.WriteTo(&testutil.FailWriter{N: 100000, Err: errWrite})
		if n != 100000 || !errors.Is(err, errWrite) {
			t.Fatalf("threads=%d: WriteTo = %d, %v; want 100000, %v", threads, n, err, errWrite)
		}
		if _, err := z.Read(make([]byte, 10)); !errors.Is(err, errWrite) {
			t.Fatalf("threads=%d: Read after a failed WriteTo: %v", threads, err)
		}
		z.Close()
	}
}

func TestMemLimit(t *testing.T) {
	data := testutil.Fixture(t, "text-bzip2-9.bz2")
	if _, err := NewReader(bytes.NewReader(data), Config{MemLimit: 1 << 20}); !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("1 MiB limit: %v", err)
	}
	z, err := NewReader(bytes.NewReader(data), Config{Threads: 8, MemLimit: MemoryUse(2)})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if z.threads != 2 {
		t.Fatalf("threads %d under a limit of MemoryUse(2)", z.threads)
	}
	got, err := io.ReadAll(z)
	if err != nil || sum(got) != fixtures(t)["text-bzip2-9.bz2"] {
		t.Fatalf("decode under the limit: %v", err)
	}
}
