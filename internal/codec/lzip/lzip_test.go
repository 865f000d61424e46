package lzip

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzma"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/testutil/streamcorpus"
	"github.com/unpack-dev/unpack/internal/verify"
)

type sum struct {
	sha  string
	size int64
}

// readSums reads testdata/sums.txt written by scripts/testdata/lzma.sh.
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
	{"text-lzip.lz", "text"},
	{"small-lzip.lz", "small"},
	{"bin-lzip0.lz", "bin"},
	{"two-members-lzip.lz", "both"},
	{"split-lzip.lz", "both"},
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
		if got, n, err := testutil.HashAll(&reused); err != nil || got != want.sha || n != want.size {
			t.Fatalf("%s reused: got %s %d %v", f.file, got, n, err)
		}
	}
}

// isCorrupt reports whether err is of the corrupt-data category, which a
// checksum mismatch is part of.
func isCorrupt(err error) bool {
	return errors.Is(err, archive.ErrCorrupt) || errors.Is(err, archive.ErrChecksum)
}

// decodeErr decodes data fully and returns the error that ended it.
func decodeErr(data []byte, limit int64) error {
	r, err := NewReader(bytes.NewReader(data), limit)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, r)
	return err
}

func TestTruncatedAndFlipped(t *testing.T) {
	data, err := os.ReadFile("testdata/two-members-lzip.lz")
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n += len(data)/89 + 1 {
		if err := decodeErr(data[:n], 0); !errors.Is(err, archive.ErrCorrupt) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
	// Flips are caught by the CRC, the sizes or the LZMA decoder, except
	// after the last member's trailer (there are none here).
	bad := make([]byte, len(data))
	for i := 0; i < len(data); i += len(data)/73 + 1 {
		copy(bad, data)
		bad[i] ^= 0x10
		err := decodeErr(bad, 64<<20)
		if !isCorrupt(err) && !errors.Is(err, archive.ErrLimit) &&
			!errors.Is(err, archive.ErrUnsupported) {
			t.Fatalf("flip at %d: %v", i, err)
		}
	}
}

func TestTrailer(t *testing.T) {
	data, err := os.ReadFile("testdata/text-lzip.lz")
	if err != nil {
		t.Fatal(err)
	}
	n := len(data)
	crc := func(b []byte) { b[n-20] ^= 1 }
	size := func(b []byte) { b[n-16] ^= 1 }
	member := func(b []byte) { b[n-8] ^= 1 }
	for name, tc := range map[string]struct {
		edit func([]byte)
		want error
	}{
		"crc":    {crc, verify.ErrChecksum},
		"size":   {size, ErrDataSize},
		"member": {member, ErrMemberSize},
	} {
		b := bytes.Clone(data)
		tc.edit(b)
		if err := decodeErr(b, 0); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", name, err, tc.want)
		}
	}
	// Trailing data is ignored, unless it is a member's magic.
	if err := decodeErr(append(bytes.Clone(data), "garbage"...), 0); err != nil {
		t.Errorf("trailing garbage: %v", err)
	}
	if err := decodeErr(append(bytes.Clone(data), "LZIP"...), 0); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("trailing magic: %v", err)
	}
}

func TestMemLimit(t *testing.T) {
	data, err := os.ReadFile("testdata/text-lzip.lz")
	if err != nil {
		t.Fatal(err)
	}
	err = decodeErr(data, 4096)
	var le *lzma.LimitError
	if !errors.Is(err, archive.ErrLimit) || !errors.As(err, &le) || le.Need != 96<<10 || le.Limit != 4096 {
		t.Fatalf("got %v, want a limit error naming the size", err)
	}
}

// TestCorpus runs the .lz and .tar.lz files of the shared corpus.
func TestCorpus(t *testing.T) {
	streamcorpus.Rows(t, "lz", func(t *testing.T, row testutil.Row, data []byte) {
		r, err := NewReader(bytes.NewReader(data), archive.DefaultMemLimit)
		streamcorpus.Check(t, row, r, err)
	})
}

// TestReuseAllocs checks that decoding another stream with a reused Reader
// allocates nothing.
func TestReuseAllocs(t *testing.T) {
	data, err := os.ReadFile("testdata/two-members-lzip.lz")
	if err != nil {
		t.Fatal(err)
	}
	var z Reader
	br := bytes.NewReader(data)
	buf := make([]byte, 32<<10)
	run := func() {
		br.Reset(data)
		if err := z.Reset(br, 0); err != nil {
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
		t.Errorf("%v allocations per stream", allocs)
	}
}

// TestEmpty decodes the member lzip 1.23 writes for empty input.
func TestEmpty(t *testing.T) {
	empty := []byte{0x4c, 0x5a, 0x49, 0x50, 0x01, 0x0c, 0x00, 0x83, 0xff, 0xfb, 0xff, 0xff, 0xc0,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x24, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}
	r, err := NewReader(bytes.NewReader(empty), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(r); err != nil || len(got) != 0 {
		t.Fatalf("got %q, %v", got, err)
	}
	if err := decodeErr(nil, 0); !errors.Is(err, ErrMagic) {
		t.Errorf("no input: %v", err)
	}
}
