package xz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/unpack-dev/unpack/internal/testutil"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// fixture is one file of testdata/ with the SHA-256 and size of its
// content, as scripts/testdata/xz.sh recorded them from the original.
type fixture struct {
	name string
	sum  string
	size int64
}

func fixtures(t testing.TB) []fixture {
	t.Helper()
	f, err := os.Open("testdata/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fs []fixture
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		size, _ := strconv.ParseInt(fields[1], 10, 64)
		fs = append(fs, fixture{name: fields[2], sum: fields[0], size: size})
	}
	return fs
}

// decode reads all of r's output through wrap, with a timeout against hangs.
func decode(t testing.TB, in io.Reader, cfg Config, wrap func(io.Reader) io.Reader) (sum string, n int64, err error) {
	t.Helper()
	type result struct {
		sum string
		n   int64
		err error
	}
	ch := make(chan result, 1)
	go func() {
		z, err := NewReader(in, cfg)
		if err != nil {
			ch <- result{err: err}
			return
		}
		defer z.Close()
		h := sha256.New()
		n, err := io.Copy(h, wrap(z))
		ch <- result{hex.EncodeToString(h.Sum(nil)), n, err}
	}()
	select {
	case r := <-ch:
		return r.sum, r.n, r.err
	case <-time.After(60 * time.Second):
		t.Fatal("decoding hangs")
	}
	return
}

func plain(r io.Reader) io.Reader { return r }

// onlyReader hides io.WriterTo and io.ByteReader so io.Copy uses Read.
type onlyReader struct{ io.Reader }

// readerWraps are the ways of reading a Reader (and of feeding it input):
// through Read, byte by byte, in halves, and as it comes (io.Copy then
// uses the Reader's WriteTo).
var readerWraps = map[string]func(io.Reader) io.Reader{
	"plain":   func(r io.Reader) io.Reader { return onlyReader{r} },
	"direct":  plain,
	"onebyte": iotest.OneByteReader,
	"half":    iotest.HalfReader,
}

func TestFixtures(t *testing.T) {
	for _, fx := range fixtures(t) {
		data := testutil.Fixture(t, fx.name)
		for _, threads := range []int{1, 2, 4} {
			for wn, wrap := range readerWraps {
				for inName, in := range readerWraps {
					if (wn == "onebyte" || wn == "half" || inName == "onebyte" || inName == "half") && fx.size > 1<<20 {
						continue // byte by byte is too slow for 32 MiB
					}
					t.Run(fmt.Sprintf("%s/threads=%d/out=%s/in=%s", fx.name, threads, wn, inName), func(t *testing.T) {
						sum, n, err := decode(t, in(bytes.NewReader(data)), Config{Threads: threads}, wrap)
						if err != nil {
							t.Fatal(err)
						}
						if sum != fx.sum || n != fx.size {
							t.Fatalf("got %d bytes %s, want %d bytes %s", n, sum, fx.size, fx.sum)
						}
					})
				}
			}
		}
	}
}

// TestReset decodes every fixture with one Reader.
func TestReset(t *testing.T) {
	var z *Reader
	for _, fx := range fixtures(t) {
		in := bytes.NewReader(testutil.Fixture(t, fx.name))
		if z == nil {
			var err error
			if z, err = NewReader(in, Config{Threads: 2}); err != nil {
				t.Fatal(err)
			}
		} else if err := z.Reset(in, Config{Threads: 2}); err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if _, err := io.Copy(h, z); err != nil {
			t.Fatalf("%s: %v", fx.name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != fx.sum {
			t.Fatalf("%s: wrong output", fx.name)
		}
	}
	z.Close()
	if _, err := z.Read(make([]byte, 1)); err == nil {
		t.Fatal("read after Close succeeded")
	}
}

// TestCloseMidStream stops reading a multi-block file early.
func TestCloseMidStream(t *testing.T) {
	z, err := NewReader(bytes.NewReader(testutil.Fixture(t, "blocks-sized.xz")), Config{Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(z, make([]byte, 10000)); err != nil {
		t.Fatal(err)
	}
	z.Close()
}

// isCategorized reports whether err is of a category the CLI maps.
func isCategorized(err error) bool {
	return errors.Is(err, archive.ErrCorrupt) || errors.Is(err, verify.ErrChecksum) ||
		errors.Is(err, archive.ErrUnsupported) || errors.Is(err, archive.ErrLimit)
}

// TestTruncated cuts single-stream fixtures at every length (or many, for
// big ones): each must fail as corrupt input, never succeed.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"x86-lzma2.xz", "blocks-sized.xz", "tiny-blocks.xz", "chain3.xz", "empty.xz"} {
		data := testutil.Fixture(t, name)
		step := max(1, len(data)/400)
		for _, threads := range []int{1, 2} {
			for n := 0; n < len(data); n += step {
				_, _, err := decode(t, bytes.NewReader(data[:n]), Config{Threads: threads}, plain)
				if err == nil || !errors.Is(err, archive.ErrCorrupt) {
					t.Fatalf("%s cut at %d/%d, threads %d: err = %v", name, n, len(data), threads, err)
				}
			}
		}
	}
}

// TestBitFlips flips every bit of small files with a CRC64 or SHA-256
// check (one multi-block, one with a filter chain): every result must be an
// error of a category or the exact content.
func TestBitFlips(t *testing.T) {
	for _, name := range []string{"empty.xz", "tiny-blocks.xz", "tiny-x86-delta.xz"} {
		data := testutil.Fixture(t, name)
		var want fixture
		for _, fx := range fixtures(t) {
			if fx.name == name {
				want = fx
			}
		}
		for i := range data {
			for bit := 0; bit < 8; bit++ {
				b := append([]byte(nil), data...)
				b[i] ^= 1 << bit
				sum, n, err := decode(t, bytes.NewReader(b), Config{Threads: 1 + i%2}, plain)
				if err == nil {
					if sum != want.sum || n != want.size {
						t.Fatalf("%s: flip at %d.%d decoded to wrong output without error", name, i, bit)
					}
					continue
				}
				if !isCategorized(err) {
					t.Fatalf("%s: flip at %d.%d: uncategorized error %v", name, i, bit, err)
				}
			}
		}
	}
}

func TestMemLimit(t *testing.T) {
	data := testutil.Fixture(t, "x86-lzma2.xz") // 64 KiB dictionary, sizes not in the header
	_, _, err := decode(t, bytes.NewReader(data), Config{MemLimit: 32 << 10}, plain)
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, archive.ErrLimit) || le.Need != 64<<10 || le.Limit != 32<<10 {
		t.Fatalf("err = %v, want a LimitError needing 64 KiB", err)
	}
	// Blocks with sizes need no more dictionary than their content, and
	// parallel decoding fits its buffers in the limit or streams.
	for _, limit := range []int64{64 << 10, 200 << 10, 1 << 30} {
		fx := fixtures(t)
		for _, f := range fx {
			if f.name != "blocks-sized.xz" {
				continue
			}
			sum, _, err := decode(t, bytes.NewReader(testutil.Fixture(t, f.name)), Config{MemLimit: limit, Threads: 4}, plain)
			if err != nil || sum != f.sum {
				t.Fatalf("limit %d: %v", limit, err)
			}
		}
	}
}

func TestIOErrorPassesThrough(t *testing.T) {
	boom := errors.New("boom")
	data := testutil.Fixture(t, "blocks-unsized.xz")
	for _, cut := range []int{5, 20, 3000, len(data) - 10} {
		for _, threads := range []int{1, 2} {
			in := io.MultiReader(bytes.NewReader(data[:cut]), iotest.ErrReader(boom))
			_, _, err := decode(t, in, Config{Threads: threads}, plain)
			if !errors.Is(err, boom) {
				t.Fatalf("cut %d threads %d: err = %v, want boom", cut, threads, err)
			}
		}
	}
}

// TestConcatenatedStopsAtGarbage checks data after valid streams.
func TestTrailingData(t *testing.T) {
	good := testutil.Fixture(t, "empty.xz")
	for name, tail := range map[string][]byte{
		"zeros3":  {0, 0, 0},
		"zeros5":  {0, 0, 0, 0, 0},
		"garbage": []byte("garbage!"),
		"magic":   headerMagic,
	} {
		_, _, err := decode(t, bytes.NewReader(append(append([]byte(nil), good...), tail...)), Config{}, plain)
		if !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
}

// TestAllocs guards the allocation budget: a 32 MiB xz+x86 file decodes
// with under 256 KiB allocated beyond its dictionary, and decoding it again
// with the same Reader allocates almost nothing.
func TestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 32 MiB")
	}
	data := testutil.Fixture(t, "x86big.xz")
	const dict = 8 << 20 // preset 6
	buf := make([]byte, 64<<10)
	var z *Reader
	run := func() {
		var err error
		if z == nil {
			z, err = NewReader(bytes.NewReader(data), Config{Threads: 1})
		} else {
			err = z.Reset(bytes.NewReader(data), Config{Threads: 1})
		}
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.CopyBuffer(io.Discard, onlyReader{z}, buf)
		if err != nil || n != 32<<20 {
			t.Fatalf("%d bytes, %v", n, err)
		}
	}
	var m0, m1, m2 runtimeMem
	m0.read()
	run()
	m1.read()
	run()
	m2.read()
	first := int64(m1.total-m0.total) - dict
	again := int64(m2.total - m1.total)
	t.Logf("first decode: %d bytes beyond the %d-byte dictionary; again: %d bytes", first, dict, again)
	if first > 256<<10 {
		t.Errorf("first decode allocated %d bytes beyond the dictionary", first)
	}
	if again > 64<<10 { // runtime noise aside, nothing is reallocated
		t.Errorf("decoding again allocated %d bytes", again)
	}
}

// withCheckID rewrites the check ID in every stream header and footer of a
// single-stream file, fixing their CRC32s.
func withCheckID(data []byte, id byte) []byte {
	b := append([]byte(nil), data...)
	b[7] = id
	binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[6:8]))
	f := b[len(b)-12:]
	f[9] = id
	binary.LittleEndian.PutUint32(f, crc32.ChecksumIEEE(f[4:10]))
	return b
}

// TestUnknownCheck: a check ID xz does not define (but whose size is
// known) decodes with one warning per stream, as xz does.
func TestUnknownCheck(t *testing.T) {
	var want fixture
	for _, fx := range fixtures(t) {
		if fx.name == "tiny-arm64-crc32.xz" {
			want = fx
		}
	}
	data := withCheckID(testutil.Fixture(t, want.name), 0x02) // 4-byte check, like CRC32
	for _, threads := range []int{1, 2} {
		var warnings []string
		sum, n, err := decode(t, bytes.NewReader(data), Config{Threads: threads, Warn: func(s string) { warnings = append(warnings, s) }}, plain)
		if err != nil || sum != want.sum || n != want.size {
			t.Fatalf("threads %d: %v", threads, err)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], "not verified") {
			t.Fatalf("warnings %q", warnings)
		}
	}
	// Reserved bits in the stream flags are unsupported.
	_, _, err := decode(t, bytes.NewReader(withCheckID(testutil.Fixture(t, "empty.xz"), 0x11)), Config{}, plain)
	if !errors.Is(err, archive.ErrUnsupported) {
		t.Fatalf("reserved flag bits: %v", err)
	}
}
