package gzip

import (
	"bufio"
	"bytes"
	"compress/flate"
	stdgzip "compress/gzip"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/inflate"
	"github.com/unpack-dev/unpack/internal/verify"
)

// setSizes makes the parallel decoder's pieces small for a test: part
// compressed bytes each, the switch after sw bytes, caps of output.
func setSizes(t testing.TB, part int, sw int64, soft, hard int) {
	t.Helper()
	p, o, s, sc, hc := partSize, overrun, switchAt, softCap, hardCap
	partSize, overrun, switchAt, softCap, hardCap = part, max(part/4, 1), sw, soft, hard
	t.Cleanup(func() { partSize, overrun, switchAt, softCap, hardCap = p, o, s, sc, hc })
}

// noSteal has the reading goroutine wait for the workers' pieces rather
// than decode those they have not started (steal), for a test that counts
// them.
func noSteal(t testing.TB) {
	t.Helper()
	steal = false
	t.Cleanup(func() { steal = true })
}

// testData returns inputs of several kinds: text that matches far back,
// random bytes (stored blocks), short-period runs, and a mix.
func testData(n int) map[string][]byte {
	r := rand.New(rand.NewPCG(7, 8))
	words := make([]string, 800)
	for i := range words {
		w := make([]byte, 2+r.IntN(8))
		for j := range w {
			w[j] = "etaoinshrdlucmfwyp"[r.IntN(18)]
		}
		words[i] = string(w)
	}
	var text bytes.Buffer
	for text.Len() < n {
		text.WriteString(words[r.IntN(len(words))])
		if r.IntN(9) == 0 {
			text.WriteByte('\n')
		} else {
			text.WriteByte(' ')
		}
	}
	random := make([]byte, n)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var mixed bytes.Buffer
	for mixed.Len() < n {
		switch r.IntN(4) {
		case 0:
			mixed.Write(random[:r.IntN(5000)])
		case 1:
			mixed.Write(bytes.Repeat([]byte{byte(r.IntN(256))}, r.IntN(3000)))
		default:
			k := r.IntN(n - 20000)
			mixed.Write(text.Bytes()[k : k+r.IntN(20000)])
		}
	}
	return map[string][]byte{
		"text":   text.Bytes()[:n],
		"random": random,
		"runs":   bytes.Repeat([]byte("abcabcabd"), n/9),
		"mixed":  mixed.Bytes()[:n],
	}
}

// compressors are encoders of different block layouts.
var compressors = map[string]func(w io.Writer) io.WriteCloser{
	"std1":  func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 1); return z },
	"std6":  func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 6); return z },
	"std9":  func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 9); return z },
	"huff":  func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, stdgzip.HuffmanOnly); return z },
	"store": func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 0); return z },
	"k1":    func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 1); return z },
	"k5":    func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 5); return z },
	"k9":    func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 9); return z },
}

func compress(t testing.TB, c func(io.Writer) io.WriteCloser, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := c(&b)
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// decodeWith decodes gz with a Config, and returns what the parallel
// decoder did. It decodes through Read, then through WriteTo, and fails
// when the two differ.
func decodeWith(gz []byte, cfg Config) ([]byte, parStats, error) {
	z, err := NewReaderConfig(bytes.NewReader(gz), cfg)
	if err != nil {
		return nil, parStats{}, err
	}
	defer z.Close()
	b, err := io.ReadAll(z)
	z2, err2 := NewReaderConfig(bytes.NewReader(gz), cfg)
	if err2 != nil {
		return nil, parStats{}, fmt.Errorf("second NewReaderConfig: %v", err2)
	}
	defer z2.Close()
	var w bytes.Buffer
	n, err2 := z2.WriteTo(&w)
	if n != int64(w.Len()) {
		return nil, parStats{}, fmt.Errorf("WriteTo: %d bytes, wrote %d", n, w.Len())
	}
	if d := sameFailure(b, w.Bytes(), err, err2); d != "" {
		return nil, parStats{}, fmt.Errorf("Read and WriteTo: %s", d)
	}
	return b, z.stats, err
}

// failWriter takes ok bytes, then fails: with err, or with a short write
// when err is nil.
type failWriter struct {
	ok  int
	err error
}

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) <= w.ok {
		w.ok -= len(p)
		return len(p), nil
	}
	n := w.ok
	w.ok = 0
	return n, w.err
}

// TestWriteToWriterErrors checks that WriteTo, sequential and parallel,
// returns the writer's error, or io.ErrShortWrite for a short write
// without one, and counts the bytes written.
func TestWriteToWriterErrors(t *testing.T) {
	setSizes(t, 4<<10, 4<<10, 256<<10, 300<<10)
	gz := bigMember(t)
	boom := errors.New("boom")
	for _, threads := range []int{1, 2} {
		for _, fw := range []failWriter{{ok: 1000, err: boom}, {ok: 200 << 10, err: boom}, {ok: 100 << 10}} {
			z, err := NewReaderConfig(bytes.NewReader(gz), Config{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			w := fw
			n, err := z.WriteTo(&w)
			want := fw.err
			if want == nil {
				want = io.ErrShortWrite
			}
			if err != want || n != int64(fw.ok) {
				t.Errorf("threads %d, writer %+v: %d, %v; want %d, %v", threads, fw, n, err, fw.ok, want)
			}
			z.Close()
		}
	}
}

// TestParallelDifferential decodes inputs of every kind and encoder in
// parallel with pieces of many sizes against the sequential decode.
func TestParallelDifferential(t *testing.T) {
	n := 600 << 10
	if testing.Short() {
		n = 200 << 10
	}
	data := testData(n)
	for dname, raw := range data {
		for cname, c := range compressors {
			gz := compress(t, c, raw)
			for _, part := range []int{97, 1000, 4 << 10, 33 << 10, 200 << 10} {
				for _, threads := range []int{2, 3} {
					t.Run(fmt.Sprintf("%s/%s/%d/%d", dname, cname, part, threads), func(t *testing.T) {
						setSizes(t, part, int64(part/3), 256<<10, 300<<10)
						got, st, err := decodeWith(gz, Config{Threads: threads})
						if err != nil {
							t.Fatal(err)
						}
						t.Logf("%+v", st)
						if !bytes.Equal(got, raw) {
							t.Fatalf("output differs: %d bytes, want %d", len(got), len(raw))
						}
					})
				}
			}
		}
	}
}

// sameFailure reports whether two decodes of one input failed alike: both
// not, or both with the same kind of error, and gave out the same bytes
// or one a prefix of the other's (a decoder may stop earlier inside the
// block where the error is).
func sameFailure(seq, par []byte, seqErr, parErr error) string {
	if (seqErr == nil) != (parErr == nil) {
		return fmt.Sprintf("errors %v and %v", seqErr, parErr)
	}
	if seqErr == nil {
		if !bytes.Equal(seq, par) {
			return "outputs differ"
		}
		return ""
	}
	var sm, pm *verify.MismatchError
	if errors.Is(seqErr, ErrTruncated) != errors.Is(parErr, ErrTruncated) ||
		errors.Is(seqErr, ErrSize) != errors.Is(parErr, ErrSize) ||
		errors.As(seqErr, &sm) != errors.As(parErr, &pm) ||
		archive.Classify(seqErr) != archive.Classify(parErr) {
		return fmt.Sprintf("errors %v and %v", seqErr, parErr)
	}
	if !bytes.HasPrefix(seq, par) && !bytes.HasPrefix(par, seq) {
		return "outputs differ before the error"
	}
	return ""
}

// bigMember is a member of several blocks of text and random bytes.
func bigMember(t testing.TB) []byte {
	raw := testData(300 << 10)
	return compress(t, compressors["std6"], append(raw["mixed"][:150<<10], raw["text"][:150<<10]...))
}

// TestParallelTruncated cuts a member at many places: the parallel decode
// fails as the sequential one does (ErrTruncated), never with other data.
func TestParallelTruncated(t *testing.T) {
	setSizes(t, 3000, 2000, 256<<10, 300<<10)
	gz := bigMember(t)
	step := len(gz) / 97
	if testing.Short() {
		step = len(gz) / 23
	}
	for n := 1; n < len(gz); n += step {
		seq, _, seqErr := decodeWith(gz[:n], Config{Threads: 1})
		par, _, parErr := decodeWith(gz[:n], Config{Threads: 2})
		if msg := sameFailure(seq, par, seqErr, parErr); msg != "" {
			t.Fatalf("cut at %d of %d: %s", n, len(gz), msg)
		}
		if parErr == nil {
			t.Fatalf("cut at %d of %d: no error", n, len(gz))
		}
	}
}

// TestParallelBitFlips flips bits across a member, the trailer's CRC and
// ISIZE included: the parallel decode reports what the sequential one does
// (a CRC mismatch, ErrSize, a corrupt stream).
func TestParallelBitFlips(t *testing.T) {
	setSizes(t, 3000, 2000, 256<<10, 300<<10)
	gz := bigMember(t)
	rng := rand.New(rand.NewPCG(21, 22))
	n := 120
	if testing.Short() {
		n = 30
	}
	positions := []int{len(gz) - 8, len(gz) - 5, len(gz) - 4, len(gz) - 1}
	for range n {
		positions = append(positions, 10+rng.IntN(len(gz)-10))
	}
	for _, i := range positions {
		bad := bytes.Clone(gz)
		bad[i] ^= 1 << rng.IntN(8)
		seq, _, seqErr := decodeWith(bad, Config{Threads: 1})
		par, _, parErr := decodeWith(bad, Config{Threads: 2})
		if msg := sameFailure(seq, par, seqErr, parErr); msg != "" {
			t.Fatalf("bit flipped at %d of %d: %s", i, len(gz), msg)
		}
	}
}

// TestParallelMembers decodes several large members, empty ones, zero
// padding and trailing data: the output, and the trailing data found, as
// the sequential decode's; the members share one allocation.
func TestParallelMembers(t *testing.T) {
	setSizes(t, 4000, 3000, 256<<10, 300<<10)
	raw := testData(200 << 10)
	var gz []byte
	for _, k := range []string{"text", "random", "mixed"} {
		gz = append(gz, compress(t, compressors["k5"], raw[k])...)
		gz = append(gz, compress(t, compressors["std1"], nil)...)
	}
	for name, tail := range map[string][]byte{"none": nil, "zeros": make([]byte, 5000), "junk": []byte("not gzip at all")} {
		in := append(bytes.Clone(gz), tail...)
		zs, _ := NewReaderConfig(bytes.NewReader(in), Config{Threads: 1})
		seq, seqErr := io.ReadAll(zs)
		zp, _ := NewReaderConfig(bytes.NewReader(in), Config{Threads: 2})
		par, parErr := io.ReadAll(zp)
		zp.Close()
		if msg := sameFailure(seq, par, seqErr, parErr); msg != "" || seqErr != nil {
			t.Fatalf("%s: %s (%v)", name, msg, seqErr)
		}
		so, sn := zs.Trailing()
		po, pn := zp.Trailing()
		if so != po || sn != pn {
			t.Errorf("%s: trailing %d+%d, want %d+%d", name, po, pn, so, sn)
		}
		// Which pieces the workers decode depends on the timing (steal):
		// some piece of each member is decoded in parallel.
		if zp.stats.members != 3 || zp.stats.used+zp.stats.streams < 3 || zp.stats.slabs != 1 {
			t.Errorf("%s: %+v, want 3 members in parallel in one allocation", name, zp.stats)
		}
		if zp.Verified() != int64(len(par)) {
			t.Errorf("%s: %d bytes verified of %d", name, zp.Verified(), len(par))
		}
	}
}

// TestParallelPaths checks that the sizes make every path happen:
// pieces used, with markers resolved or with the window handed over,
// stored blocks found, sequential bridges, pieces the reader decodes
// the rest of when their workers hand them over.
func TestParallelPaths(t *testing.T) {
	raw := testData(1500 << 10)
	// Output whose matches reach back a few bytes only: a piece's
	// markers end within its first 32 KiB (inflate.Clean), and it is
	// decoded in plain bytes from there.
	var local bytes.Buffer
	r := rand.New(rand.NewPCG(3, 4))
	for local.Len() < 1500<<10 {
		b := make([]byte, 40+r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(64))
		}
		for range 3 {
			local.Write(b)
		}
	}
	raw["local"] = local.Bytes()
	for _, tc := range []struct {
		name    string
		gz      []byte
		part    int
		noHints bool
	}{
		{"markers", compress(t, compressors["std6"], raw["text"]), 64 << 10, true},
		{"hinted", compress(t, compressors["std6"], raw["text"]), 64 << 10, false},
		{"handed-plain", compress(t, compressors["std6"], raw["local"]), 64 << 10, false},
		{"stored", compress(t, compressors["store"], raw["mixed"]), 300 << 10, true},
		{"bridged", compress(t, compressors["k9"], raw["mixed"]), 3000, true},
	} {
		setSizes(t, tc.part, int64(tc.part), 4<<20, 5<<20)
		noSteal(t)
		want := map[string]string{"markers": "text", "hinted": "text", "handed-plain": "local"}[tc.name]
		if want == "" {
			want = "mixed"
		}
		// Where a worker is when the reader reaches its piece depends on
		// the timing: the hand-overs are looked for over several runs.
		tries := 1
		if !tc.noHints {
			tries = 20
		}
		var st parStats
		ok := false
		for range tries {
			hints = !tc.noHints
			got, s, err := decodeWith(tc.gz, Config{Threads: 2})
			hints = true
			if err != nil || !bytes.Equal(got, raw[want]) {
				t.Fatalf("%s: %v", tc.name, err)
			}
			st = s
			ok = st.members == 1 && st.used >= 2
			switch tc.name {
			case "markers":
				// Pieces of 150 KiB of output or more, all of it
				// marked: resolved in two parts at once.
				ok = ok && st.marked > 0 && st.splits > 0
			case "hinted":
				// A worker stops decoding with markers where the
				// reader reaches its piece, which decodes the rest.
				ok = ok && st.handed > 0 && st.streams > 0
			case "handed-plain":
				// Pieces whose markers end early: a worker stops
				// decoding plain bytes where the reader reaches it.
				ok = ok && st.handedP > 0 && st.streams > 0
			case "bridged":
				ok = st.bridges > 0
			}
			if ok {
				break
			}
		}
		if !ok {
			t.Errorf("%s: %+v", tc.name, st)
		}
		t.Logf("%s: %+v", tc.name, st)
	}
}

// TestParallelBuffered decodes from a bufio.Reader, whose buffered bytes
// at the switch end the first piece (dispatch): the output is the same
// whatever the buffer's size.
func TestParallelBuffered(t *testing.T) {
	raw := testData(1500 << 10)["text"]
	gz := compress(t, compressors["std6"], raw)
	setSizes(t, 64<<10, 64<<10, 4<<20, 5<<20)
	for _, size := range []int{16, 4 << 10, 48<<10 + 3, 64 << 10, 1 << 20} {
		z, err := NewReaderConfig(bufio.NewReaderSize(bytes.NewReader(gz), size), Config{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		z.Close()
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("bufio of %d: %v, output equal %v", size, err, bytes.Equal(got, raw))
		}
		if z.stats.members != 1 {
			t.Errorf("bufio of %d: %+v", size, z.stats)
		}
	}
}

// TestDefaultSizesInPlace checks that at the default sizes a piece's
// 16-bit buffer holds the marker decoder's ring, so that pieces are
// decoded in place rather than copied out of a ring (see newParallel).
func TestDefaultSizesInPlace(t *testing.T) {
	if out := min(4*(partSize+overrun), hardCap); out < inflate.MarkerRingLen {
		t.Errorf("16-bit buffers of %d symbols, the ring needs %d", out, inflate.MarkerRingLen)
	}
}

// TestParallelInPlace decodes with the default sizes, where the workers'
// pieces are decoded in place into their 16-bit buffers (they hold the
// marker decoder's ring), all of them with markers (no hints).
func TestParallelInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("10 MiB")
	}
	raw := testData(10 << 20)["text"]
	gz := compress(t, compressors["std6"], raw)
	noSteal(t)
	hints = false
	defer func() { hints = true }()
	got, st, err := decodeWith(gz, Config{Threads: 2})
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("%v, output equal %v", err, bytes.Equal(got, raw))
	}
	if st.used < 1 || st.marked == 0 || st.splits == 0 {
		t.Errorf("%+v: want a worker's piece used, marked and resolved in two parts", st)
	}
}

// TestParallelCaps makes pieces stop at the output caps: highly
// compressible input, where a piece's output would be large.
func TestParallelCaps(t *testing.T) {
	setSizes(t, 2000, 1000, 20000, 30000)
	raw := bytes.Repeat([]byte("abcdefgh"), 1<<17)
	for i := 0; i < len(raw); i += 7777 {
		raw[i] = byte(i)
	}
	gz := compress(t, compressors["std9"], raw)
	got, st, err := decodeWith(gz, Config{Threads: 2})
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("%v (%+v)", err, st)
	}
	t.Logf("%+v", st)
}

// TestParallelClose stops a parallel decode in the middle: the workers
// end, the slab is unmapped, and reads fail.
func TestParallelClose(t *testing.T) {
	setSizes(t, 3000, 2000, 256<<10, 300<<10)
	gz := bigMember(t)
	before := runtime.NumGoroutine()
	z, err := NewReaderConfig(bytes.NewReader(gz), Config{Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(z, make([]byte, 100<<10)); err != nil {
		t.Fatal(err)
	}
	if z.par == nil {
		t.Fatal("not decoding in parallel")
	}
	z.Close()
	if _, err := z.Read(make([]byte, 10)); err != errClosed {
		t.Errorf("read after close: %v", err)
	}
	if z.slab.b != nil {
		t.Error("the slab is still mapped after Close")
	}
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
	// Reset after a parallel decode starts over.
	if err := z.Reset(bytes.NewReader(gz)); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(z); err != nil || !bytes.Equal(got, oracle(t, gz)) {
		t.Errorf("after Reset: %v", err)
	}
	// Mapped again for the new stream, unmapped at its end.
	if z.stats.slabs != 2 || z.slab.b != nil {
		t.Errorf("%+v, slab of %d bytes at the end", z.stats, len(z.slab.b))
	}
	z.Close()
}

// TestParallelConfig: one thread, or a memory limit that fits none, keeps
// the sequential decoder.
func TestParallelConfig(t *testing.T) {
	setSizes(t, 3000, 2000, 256<<10, 300<<10)
	gz := bigMember(t)
	for _, cfg := range []Config{{Threads: 1}, {Threads: 4, MemLimit: MemoryUse(2) - 1}} {
		got, st, err := decodeWith(gz, cfg)
		if err != nil || !bytes.Equal(got, oracle(t, gz)) || st.members != 0 {
			t.Errorf("%+v: %v, %+v", cfg, err, st)
		}
	}
	if MemoryUse(1) != 0 || MemoryUse(3) <= MemoryUse(2) {
		t.Errorf("MemoryUse: %d %d %d", MemoryUse(1), MemoryUse(2), MemoryUse(3))
	}
	z, err := NewReaderConfig(bytes.NewReader(gz), Config{Threads: 4, MemLimit: MemoryUse(3)})
	if err != nil || z.threads != 3 {
		t.Errorf("threads %d under MemoryUse(3): %v", z.threads, err)
	}
	// The memory made for the decode is within the estimate, the
	// buffers that may grow past it aside.
	if _, err := io.Copy(io.Discard, z); err != nil || z.stats.members != 1 {
		t.Fatalf("%v, %+v", err, z.stats)
	}
	if made, grown := int64(z.stats.slabBytes), int64(jobsFor(3))*3*int64(hardCap); made > MemoryUse(3)-grown {
		t.Errorf("slab of %d bytes, MemoryUse(3) counts %d", made, MemoryUse(3)-grown)
	}
}

// TestParallelAfter: Config.After moves the switch to parallel decoding;
// a member whose input ends before it stays sequential.
func TestParallelAfter(t *testing.T) {
	setSizes(t, 3000, 2000, 256<<10, 300<<10)
	gz := bigMember(t)
	want := oracle(t, gz)
	for _, c := range []struct {
		after   int64
		members int
	}{{0, 1}, {int64(len(gz)) / 2, 1}, {int64(len(gz)), 0}} {
		got, st, err := decodeWith(gz, Config{Threads: 2, After: c.after})
		if err != nil || !bytes.Equal(got, want) || st.members != c.members {
			t.Errorf("After %d: %v, %+v, want %d members in parallel", c.after, err, st, c.members)
		}
	}
	// The parallel decode starts where After says, not at switchAt.
	_, late, _ := decodeWith(gz, Config{Threads: 2, After: int64(len(gz)) / 2})
	_, early, _ := decodeWith(gz, Config{Threads: 2})
	if late.used+late.bridges+late.streams >= early.used+early.bridges+early.streams {
		t.Errorf("After %d: %+v, at switchAt: %+v", len(gz)/2, late, early)
	}
}

// TestSequential: after Sequential, a member that has not gone parallel
// yet stays on the reading goroutine, with the same output.
func TestSequential(t *testing.T) {
	setSizes(t, 3000, 2000, 256<<10, 300<<10)
	gz := bigMember(t)
	for _, seq := range []bool{false, true} {
		z, err := NewReaderConfig(bytes.NewReader(gz), Config{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 512)
		if _, err := io.ReadFull(z, head); err != nil {
			t.Fatal(err)
		}
		if seq {
			z.Sequential()
		}
		rest, err := io.ReadAll(z)
		z.Close()
		want := 0
		if !seq {
			want = 1
		}
		if err != nil || !bytes.Equal(append(head, rest...), oracle(t, gz)) || z.stats.members != want {
			t.Errorf("Sequential %v: %v, %+v", seq, err, z.stats)
		}
	}
}

// FuzzParallelGzip decodes arbitrary input sequentially and in parallel
// with tiny pieces: the same output, or the same failure.
func FuzzParallelGzip(f *testing.F) {
	for _, gz := range fixtures(f) {
		f.Add(gz)
	}
	raw := testData(20 << 10)
	for _, k := range []string{"text", "mixed"} {
		for _, c := range []string{"std1", "std6", "huff", "k9"} {
			f.Add(compress(f, compressors[c], raw[k]))
		}
	}
	setSizes(f, 200, 150, 1<<16, 1<<17)
	f.Fuzz(func(t *testing.T, gz []byte) {
		seq, _, seqErr := decodeWith(gz, Config{Threads: 1})
		par, _, parErr := decodeWith(gz, Config{Threads: 2})
		if msg := sameFailure(seq, par, seqErr, parErr); msg != "" {
			t.Fatal(msg)
		}
	})
}

// TestParallelCleanHighRatio: runs of one byte reference no window, so a
// piece's output turns clean (plain decoding takes over) after far more
// output than its input's size guessed for the buffer.
func TestParallelCleanHighRatio(t *testing.T) {
	// Pieces of 48 KiB against blocks of about 26 KiB: a piece's first
	// block ends within it and its overrun.
	setSizes(t, 48<<10, 32<<10, 4<<20, 5<<20)
	rng := rand.New(rand.NewPCG(31, 32))
	var raw []byte
	for len(raw) < 10<<20 {
		raw = append(raw, bytes.Repeat([]byte{byte(rng.Uint32())}, 50+rng.IntN(150))...)
	}
	gz := compress(t, compressors["std6"], raw)
	noSteal(t)
	for _, h := range []bool{false, true} {
		hints = h
		got, st, err := decodeWith(gz, Config{Threads: 2})
		hints = true
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("hints %v: %v (%+v)", h, err, st)
		}
		if st.used < 2 {
			t.Errorf("hints %v: %+v, want pieces used", h, st)
		}
	}
}

// TestSymbols checks the 16-bit view of a buffer: its length, and that
// every element is its own (writes do not overlap).
func TestSymbols(t *testing.T) {
	for _, n := range []int{1, 1000, 1 << 20, 3<<20 + 1} {
		s := symbols(make([]byte, 2*n+1))
		if len(s) != n || cap(s) != n {
			t.Fatalf("symbols(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			s[i] = uint16(i * 7)
		}
		for i, v := range s {
			if v != uint16(i*7) {
				t.Fatalf("symbols(%d)[%d] = %d", n, i, v)
			}
		}
	}
}

// TestLookup checks the unrolled resolution against one symbol at a time,
// for lengths around its step, and that it writes nothing past the
// symbols.
func TestLookup(t *testing.T) {
	lut := new([1 << 16]byte)
	for i := range lut {
		lut[i] = byte(i*7 + i>>8)
	}
	for n := range 50 {
		marks := make([]uint16, n)
		for i := range marks {
			marks[i] = uint16(uint32(i)*2654435761>>7) | uint16(i&1)<<15
		}
		out := make([]byte, n+4)
		for i := range out {
			out[i] = 0xAA
		}
		lookup(out, marks, lut)
		for i, v := range marks {
			if out[i] != lut[v] {
				t.Fatalf("n %d: out[%d] = %#x, want %#x", n, i, out[i], lut[v])
			}
		}
		for i := n; i < len(out); i++ {
			if out[i] != 0xAA {
				t.Fatalf("n %d: out[%d] written", n, i)
			}
		}
		// In place, as resolveMarks does: the bytes over the first half
		// of the symbols' memory.
		j := &job{marks: symbols(make([]byte, 2*n))}
		copy(j.marks, marks)
		lookup(j.marked(), j.marks, lut)
		for i, v := range marks {
			if got := j.marked()[i]; got != lut[v] {
				t.Fatalf("n %d in place: out[%d] = %#x, want %#x", n, i, got, lut[v])
			}
		}
	}
}

// TestPastMarks checks where a piece's output after its marks goes: the
// 16-bit buffer's memory past the marks, none of the marks' own (which
// their resolution in place writes), and a spill buffer, kept, once that
// is too short.
func TestPastMarks(t *testing.T) {
	const n, w = 4096, 64
	for _, k := range []int{0, 1, 1000, n - w - 40, n - w - 8} {
		mem := make([]byte, 2*n)
		j := &job{mbuf: symbols(mem)}
		// As MarkerDecoder.Decode returns them: past the window, up to a
		// ring's end short of the buffer's.
		j.marks = j.mbuf[w : w+k : n-8]
		for i := range j.marks {
			j.marks[i] = uint16(i) | 0x8000
		}
		past := j.pastMarks()
		want := min(align(2*(w+k)), 2*n)
		if len(past) != 2*n-want || len(past) > 0 && &past[0] != &mem[want] {
			t.Fatalf("%d marks: %d bytes past them, want %d from byte %d", k, len(past), 2*n-want, want)
		}
		for i := range past {
			past[i] = 0xAA
		}
		for i, v := range j.marks {
			if v != uint16(i)|0x8000 {
				t.Fatalf("%d marks: mark %d overwritten", k, i)
			}
		}
	}
	j := &job{mbuf: symbols(make([]byte, 200))}
	j.marks = j.mbuf[:0]
	if past := j.pastMarks(); len(past) != 200 {
		t.Errorf("no marks: %d bytes past them, want all 200", len(past))
	}
	j.marks = symbols(make([]byte, 20))
	if past := j.pastMarks(); past != nil {
		t.Errorf("marks in other memory: %d bytes past them, want none", len(past))
	}

	// growData keeps the bytes used, and the spill buffer for later.
	j.marks = j.mbuf[:0]
	j.data = j.pastMarks()[:100]
	for i := range j.data {
		j.data[i] = byte(i)
	}
	j.data = j.growData(100, 150)
	j.data = j.growData(150, 1000)
	if len(j.data) < 1000 || &j.data[0] != &j.spill[0] {
		t.Fatalf("grown to %d bytes, want 1000 in spill", len(j.data))
	}
	for i := range 100 {
		if j.data[i] != byte(i) {
			t.Fatalf("byte %d lost growing", i)
		}
	}
	allocs := testing.AllocsPerRun(10, func() {
		j.data = j.pastMarks()
		j.data = j.growData(50, 900)
	})
	if allocs != 0 {
		t.Errorf("%v allocations growing into a spill buffer long enough, want 0", allocs)
	}
}

// TestHandOverPlain checks a worker decoding plain bytes that the reading
// goroutine reaches: it stops at a block boundary, with the CRC-32 of the
// output before it, and decoding from there gives the rest.
func TestHandOverPlain(t *testing.T) {
	raw := testData(1 << 20)["text"]
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, 6)
	fw.Write(raw)
	fw.Close()
	src := buf.Bytes()
	var stop atomic.Bool
	w := newWorker(&stop, make([]byte, workerMem))
	j := &job{mbuf: symbols(make([]byte, 4<<20)), buf: src, own: len(src)}
	j.marks, j.start = j.mbuf[:0], 0
	j.reached.Store(true)
	w.decodePlain(j, 0, unbounded, &hint{win: new([inflate.MarkerWindow]byte)})
	n := j.nplain
	if !j.handed || j.final || n == 0 || n >= len(raw) || j.end <= 0 {
		t.Fatalf("handed %v, final %v, %d bytes to bit %d: want a part before a boundary", j.handed, j.final, n, j.end)
	}
	if !bytes.Equal(j.plain(), raw[:n]) || j.crcP != crc32.ChecksumIEEE(raw[:n]) {
		t.Fatalf("output or CRC of the %d bytes before the hand-over differ", n)
	}
	w.inf.ResetAt(bytes.NewReader(src[j.end/8:]), uint(j.end%8), raw[:n], -1, 0)
	rest, err := io.ReadAll(w.inf)
	if err != nil || !bytes.Equal(rest, raw[n:]) {
		t.Fatalf("decoding on from bit %d: %v, %d bytes, want %d", j.end, err, len(rest), len(raw)-n)
	}
}
