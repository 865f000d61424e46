package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/udf"
)

// TestShareRuns: spans up to maxGap apart join into one run, further apart
// they do not; the shares cover every span's bytes once, each part names
// exactly the spans it meets and counts only their bytes, and the shares
// are about even.
func TestShareRuns(t *testing.T) {
	spans := []archive.Span{
		{Off: 0, Len: 1000, Entry: 0},
		{Off: 1000, Len: 500, Entry: 1},                // back to back
		{Off: 2048, Len: 3000, Entry: 2},               // sector padding between
		{Off: 2048 + 3000 + maxGap, Len: 10, Entry: 3}, // maxGap: still one run
		{Off: 1 << 20, Len: 7000, Entry: 4},            // far: a run of its own
		{Off: 1<<20 + 8192, Len: 0, Entry: 5},          // empty: nothing
		{Off: 1<<20 + 8192, Len: 100, Entry: 6},
	}
	var data int64
	for _, sp := range spans {
		data += sp.Len
	}
	if got := shareRuns(spans, 1); len(got) != 1 || len(got[0]) != 2 {
		t.Fatalf("1 thread: %+v, want one share of two runs", got)
	}
	for threads := 1; threads <= 5; threads++ {
		shares := shareRuns(spans, threads)
		if len(shares) > threads {
			t.Fatalf("%d threads: %d shares", threads, len(shares))
		}
		covered := make([]int64, len(spans))
		var sum, read, most int64
		for _, sh := range shares {
			var n int64
			for _, q := range sh {
				var d int64
				for k, sp := range spans {
					lo, hi := max(sp.Off, q.off), min(sp.Off+sp.Len, q.off+q.n)
					meets := sp.Len > 0 && lo < hi
					if listed := k >= q.lo && k < q.hi; meets != listed && sp.Len > 0 {
						t.Errorf("%d threads: part %+v: span %d meets %v, listed %v", threads, q, k, meets, listed)
					}
					if meets {
						d += hi - lo
						covered[k] += hi - lo
					}
				}
				if d != q.data {
					t.Errorf("%d threads: part %+v counts %d bytes of data, holds %d", threads, q, q.data, d)
				}
				sum += q.data
				n += q.n
			}
			read += n
			most = max(most, n)
		}
		for k, sp := range spans {
			if covered[k] != sp.Len {
				t.Errorf("%d threads: span %d covered %d of %d bytes", threads, k, covered[k], sp.Len)
			}
		}
		if sum != data {
			t.Errorf("%d threads: %d bytes of data, want %d", threads, sum, data)
		}
		if most > read/int64(len(shares))+2 && len(shares) == threads {
			t.Errorf("%d threads: a share of %d bytes of %d", threads, most, read)
		}
	}
}

// spanSource is a storedReader over an in-memory image whose bytes from
// bad on fail to read.
type spanSource struct {
	spans []archive.Span
	img   []byte
	bad   int64
	opens int
}

func (s *spanSource) StoredSpans() []archive.Span { return s.spans }

func (s *spanSource) OpenSpan(off, n int64) io.ReadCloser {
	s.opens++
	return io.NopCloser(&badReader{s: s, off: off, end: off + n})
}

type badReader struct {
	s        *spanSource
	off, end int64
}

var errBadSector = errors.New("bad sector")

func (b *badReader) Read(p []byte) (int, error) {
	if b.off >= b.end {
		return 0, io.EOF
	}
	if b.off >= b.s.bad {
		return 0, &archive.IOError{Stage: "source", Err: errBadSector}
	}
	n := copy(p, b.s.img[b.off:min(b.end, b.s.bad)])
	b.off += int64(n)
	return n, nil
}

// TestReadStoredFailure: a read error in one run leaves every entry of
// that run (and only those) to the per-entry path, and counts none of its
// bytes as output; the other run's entries are read and counted.
func TestReadStoredFailure(t *testing.T) {
	img := make([]byte, 4<<20)
	s := &spanSource{img: img, bad: 3 << 20, spans: []archive.Span{
		{Off: 0, Len: 1000, Entry: 1},
		{Off: 2048, Len: 1000, Entry: 2},
		{Off: 2 << 20, Len: 1 << 20, Entry: 3}, // the bad byte is in its run
		{Off: 3 << 20, Len: 1000, Entry: 4},
	}}
	r := &runner{f: &Factory{Context: context.Background()}}
	r.lim = &limits{}
	ok := r.readStored(s, 6, 1)
	want := []bool{false, true, true, false, false, false}
	for i := range want {
		if ok[i] != want[i] {
			t.Fatalf("read whole: %v, want %v", ok, want)
		}
	}
	if s.opens != 2 {
		t.Errorf("%d runs opened, want 2", s.opens)
	}
	if n := r.lim.out.Load(); n != 2000 || r.out.Load() != 2000 {
		t.Errorf("output counted %d (progress %d), want 2000", n, r.out.Load())
	}
}

// TestVerifyRuns: `t` on two threads reads a Rock Ridge image in runs, with
// the same result as entry by entry: a clean image passes (--max-size
// exactly its files' bytes: the gaps between them are not counted), a cut
// one names the files it cuts as entry by entry.
func TestVerifyRuns(t *testing.T) {
	b, err := os.ReadFile(rangeImage)
	if err != nil {
		t.Fatal(err)
	}
	code, stderr := runOut(t, io.Discard, "t", "--threads", "2", "--json", rangeImage)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The files' bytes, from the listing.
	var total int64
	out := &strings.Builder{}
	if code, stderr := runOut(t, out, "l", "--json", rangeImage); code != ExitOK {
		t.Fatalf("l: exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		var e struct {
			Type string
			Size int64
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "file" {
			total += e.Size
		}
	}
	if total == 0 {
		t.Fatalf("no file sizes in %s", out)
	}
	for _, limit := range []int64{total, total - 1} {
		code, stderr := runOut(t, io.Discard, "t", "--threads", "2", "--max-size", strconv.FormatInt(limit, 10), rangeImage)
		if want := map[bool]ExitCode{true: ExitOK, false: ExitUnsupported}[limit == total]; code != want {
			t.Errorf("--max-size %d of %d: exit %d, want %d: %s", limit, total, code, want, stderr)
		}
	}
	cut := filepath.Join(t.TempDir(), "cut.iso")
	if err := os.WriteFile(cut, b[:len(b)-40<<10], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr = runOut(t, io.Discard, "t", "--threads", "2", cut)
	_, one := runOut(t, io.Discard, "t", "-v", "--threads", "2", cut) // -v: entry by entry
	if _, single := runOut(t, io.Discard, "t", "--threads", "1", cut); single != stderr {
		t.Errorf("cut image, one thread:\n%s\ntwo:\n%s", single, stderr)
	}
	if code != ExitCorrupt || !strings.Contains(stderr, "random.bin: iso9660: image cut short") || stderr != one {
		t.Errorf("cut image: exit %d: %s\nentry by entry: %s", code, stderr, one)
	}
}

// TestVerifyRunsUDF: `t` reads a UDF image's files in runs too (the UDF
// reader is a storedReader), with the result entry by entry gives: a clean
// image passes, --max-size exactly its files' bytes passes and one less
// does not, a cut one names the files it cuts as entry by entry does.
func TestVerifyRunsUDF(t *testing.T) {
	var _ storedReader = (*udf.Reader)(nil)
	const image = "../codec/udf/testdata/bridge.iso"
	b, err := os.ReadFile(image)
	if err != nil {
		t.Fatal(err)
	}
	if code, stderr := runOut(t, io.Discard, "t", "--threads", "2", image); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const total = 80401 // the files' bytes (l)
	for _, limit := range []int64{total, total - 1} {
		code, stderr := runOut(t, io.Discard, "t", "--threads", "2", "--max-size", strconv.FormatInt(limit, 10), image)
		if want := map[bool]ExitCode{true: ExitOK, false: ExitUnsupported}[limit == total]; code != want {
			t.Errorf("--max-size %d of %d: exit %d, want %d: %s", limit, total, code, want, stderr)
		}
	}
	cut := filepath.Join(t.TempDir(), "cut.iso")
	if err := os.WriteFile(cut, b[:len(b)-40<<10], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := runOut(t, io.Discard, "t", "--threads", "2", cut)
	_, one := runOut(t, io.Discard, "t", "-v", "--threads", "2", cut) // -v: entry by entry
	if _, single := runOut(t, io.Discard, "t", "--threads", "1", cut); single != stderr {
		t.Errorf("cut image, one thread:\n%s\ntwo:\n%s", single, stderr)
	}
	if code != ExitCorrupt || stderr != one ||
		!strings.Contains(stderr, "long text with spaces.txt: udf: image cut short") || !strings.Contains(stderr, "random.bin: udf: image cut short") {
		t.Errorf("cut image: exit %d: %s\nentry by entry: %s", code, stderr, one)
	}
}
