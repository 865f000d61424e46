package bzip2

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os/exec"
	"slices"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// A minimal bzip2 encoder for tests: it writes blocks that no current
// tool writes (randomised blocks, crafted BWT permutations) so the
// decoder can be checked against the reference bzip2 on them.

type bitWriter struct {
	out  []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) write(v uint64, n uint) {
	for n > 0 {
		k := min(n, 8)
		n -= k
		w.acc = w.acc<<k | (v>>n)&(1<<k-1)
		w.nacc += k
		for w.nacc >= 8 {
			w.out = append(w.out, byte(w.acc>>(w.nacc-8)))
			w.nacc -= 8
		}
	}
}

func (w *bitWriter) flush() []byte {
	if w.nacc > 0 {
		w.write(0, 8-w.nacc)
	}
	return w.out
}

// rle1Encode applies bzip2's first run-length stage.
func rle1Encode(data []byte) []byte {
	var out []byte
	for i := 0; i < len(data); {
		b, n := data[i], 1
		for i+n < len(data) && data[i+n] == b && n < 255+4 {
			n++
		}
		if n >= 4 {
			out = append(out, b, b, b, b, byte(n-4))
		} else {
			out = append(out, bytes.Repeat([]byte{b}, n)...)
		}
		i += n
	}
	return out
}

// randomise XORs the randomisation mask into x (its own inverse).
func randomise(x []byte) { derandomise(x) }

// bwt returns the last column of the sorted rotations of x and the row of
// x itself.
func bwt(x []byte) ([]byte, int) {
	n := len(x)
	xx := append(bytes.Clone(x), x...)
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	slices.SortStableFunc(rows, func(a, b int) int { return bytes.Compare(xx[a:a+n], xx[b:b+n]) })
	last := make([]byte, n)
	orig := -1
	for k, r := range rows {
		last[k] = xx[r+n-1]
		if r == 0 && orig < 0 {
			orig = k
		}
	}
	return last, orig
}

// writeBlock writes a block with BWT last column `last`, row origPtr,
// randomised flag and stored CRC, coded with two equal flat Huffman
// tables.
func writeBlock(w *bitWriter, last []byte, origPtr int, rand bool, crc uint32) {
	w.write(blockMagic, 48)
	w.write(uint64(crc), 32)
	r := uint64(0)
	if rand {
		r = 1
	}
	w.write(r, 1)
	w.write(uint64(origPtr), 24)
	var used [256]bool
	for _, b := range last {
		used[b] = true
	}
	var rows uint64
	for i := range 16 {
		for k := range 16 {
			if used[i*16+k] {
				rows |= 0x8000 >> i
			}
		}
	}
	w.write(rows, 16)
	var mtf []byte
	for i := range 16 {
		if rows&(0x8000>>i) == 0 {
			continue
		}
		var bits uint64
		for k := range 16 {
			if used[i*16+k] {
				bits |= 0x8000 >> k
				mtf = append(mtf, byte(i*16+k))
			}
		}
		w.write(bits, 16)
	}
	// MTF and RUNA/RUNB.
	var syms []int
	zeros := 0
	flush := func() {
		for zeros > 0 { // bijective base 2: RUNA = 1, RUNB = 2 (times 2^k)
			if zeros&1 == 1 {
				syms = append(syms, 0)
				zeros = (zeros - 1) / 2
			} else {
				syms = append(syms, 1)
				zeros = (zeros - 2) / 2
			}
		}
	}
	for _, b := range last {
		k := bytes.IndexByte(mtf, b)
		if k == 0 {
			zeros++
			continue
		}
		flush()
		copy(mtf[1:k+1], mtf[:k])
		mtf[0] = b
		syms = append(syms, k+1)
	}
	flush()
	alpha := len(used) // placeholder, set below
	alpha = 0
	for _, u := range used {
		if u {
			alpha++
		}
	}
	alpha += 2
	syms = append(syms, alpha-1)
	bitsPer := uint(1)
	for 1<<bitsPer < alpha {
		bitsPer++
	}
	nSel := (len(syms) + groupSize - 1) / groupSize
	w.write(2, 3)
	w.write(uint64(nSel), 15)
	for range nSel {
		w.write(0, 1)
	}
	for range 2 {
		w.write(uint64(bitsPer), 5)
		for range alpha {
			w.write(0, 1)
		}
	}
	for _, s := range syms {
		w.write(uint64(s), bitsPer)
	}
}

// encodeStream encodes data as one stream of one block.
func encodeStream(data []byte, rand bool) []byte {
	x := rle1Encode(data)
	if rand {
		randomise(x)
	}
	last, orig := bwt(x)
	crc := verify.UpdateCRC32BZIP2(0, data)
	w := &bitWriter{out: []byte("BZh9")}
	writeBlock(w, last, orig, rand, crc)
	w.write(eosMagic, 48)
	w.write(uint64(crc), 32) // one block: the combined CRC is its CRC
	return w.flush()
}

// haveBzip2 reports whether the reference bzip2 is installed and may run.
func haveBzip2(t testing.TB) bool {
	_, err := exec.LookPath("bzip2")
	return err == nil && testutil.ProcessesOK(t)
}

// referenceAccepts reports whether bzip2 -dc decodes comp.
func referenceAccepts(comp []byte) bool {
	_, ok := referenceDecode(comp)
	return ok
}

// referenceDecode runs bzip2 -dc on comp: its output and whether it
// succeeded.
func referenceDecode(comp []byte) ([]byte, bool) {
	cmd := exec.Command("bzip2", "-dc")
	cmd.Stdin = bytes.NewReader(comp)
	out, err := cmd.Output()
	return out, err == nil
}

func TestRandomisedBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	inputs := [][]byte{
		[]byte("a"),
		bytes.Repeat([]byte("abcabcabd"), 300),
		append(bytes.Repeat([]byte{'x'}, 1000), "yyyyzzzzzzzz"...),
	}
	noise := make([]byte, 3000)
	for i := range noise {
		noise[i] = "abcd"[r.IntN(4)]
	}
	inputs = append(inputs, noise)
	for i, data := range inputs {
		for _, rnd := range []bool{false, true} {
			comp := encodeStream(data, rnd)
			if haveBzip2(t) {
				if ref, ok := referenceDecode(comp); !ok || !bytes.Equal(ref, data) {
					t.Fatalf("input %d rand=%v: the test encoder is wrong (bzip2 -dc disagrees)", i, rnd)
				}
			}
			for _, threads := range []int{1, 2} {
				got, err := decodeAll(t, comp, threads, 1000, nil)
				if err != nil {
					t.Fatalf("input %d rand=%v threads=%d: %v", i, rnd, threads, err)
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("input %d rand=%v threads=%d: wrong output", i, rnd, threads)
				}
			}
		}
	}
}

// forwardWalk is the reference decoder's inverse BWT (forward links only)
// for any last column, including ones whose permutation has several
// cycles.
func forwardWalk(last []byte, origPtr int) []byte {
	var counts [256]int
	for _, b := range last {
		counts[b]++
	}
	var next [256]int
	sum := 0
	for b, c := range counts {
		next[b] = sum
		sum += c
	}
	fl := make([]int, len(last))
	for i, b := range last {
		fl[next[b]] = i
		next[b]++
	}
	out := make([]byte, len(last))
	p := fl[origPtr]
	for k := range out {
		out[k] = last[p]
		p = fl[p]
	}
	return out
}

// TestCraftedPermutation decodes blocks whose last column is not the BWT
// of any string, so the permutation splits into several cycles: the
// output must be the reference decoder's.
func TestCraftedPermutation(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	good, bad := 0, 0
	for i := range 40 {
		n := 1 + r.IntN(2000)
		last := make([]byte, n)
		for k := range last {
			last[k] = "abc"[r.IntN(3)]
		}
		orig := r.IntN(n)
		pre := forwardWalk(last, orig)
		// The reference undoes RLE1 on the walk; compute its output.
		var st rle1
		st.reset(pre)
		want := make([]byte, 0, n*2)
		buf := make([]byte, 100)
		for !st.done() && !st.bad {
			k := st.expand(buf)
			want = append(want, buf[:k]...)
		}
		crc := verify.UpdateCRC32BZIP2(0, want)
		w := &bitWriter{out: []byte("BZh9")}
		writeBlock(w, last, orig, false, crc)
		w.write(eosMagic, 48)
		w.write(uint64(crc), 32)
		comp := w.flush()
		if st.bad {
			// Ends after four equal bytes without a count: the
			// reference rejects it, and so must the decoder.
			if haveBzip2(t) && referenceAccepts(comp) {
				t.Fatalf("case %d: bzip2 -dc accepts a block with a missing run count", i)
			}
			for _, threads := range []int{1, 2} {
				if _, err := decodeAll(t, comp, threads, 1<<16, nil); !errors.Is(err, ErrBlock) {
					t.Fatalf("case %d threads=%d: missing run count: %v", i, threads, err)
				}
			}
			bad++
			continue
		}
		if haveBzip2(t) {
			if ref, ok := referenceDecode(comp); !ok || !bytes.Equal(ref, want) {
				t.Fatalf("case %d: bzip2 -dc disagrees with the reference walk", i)
			}
		}
		good++
		for _, threads := range []int{1, 2} {
			got, err := decodeAll(t, comp, threads, 1<<16, nil)
			if err != nil {
				t.Fatalf("case %d threads=%d: %v", i, threads, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("case %d threads=%d: wrong output", i, threads)
			}
		}
	}
	if good == 0 || bad == 0 {
		t.Fatalf("cases: %d decodable, %d with a missing run count; want both kinds", good, bad)
	}
}

// TestInverseBWT checks the walk in lanes against the reference walk on
// blocks around the lanes' cutoff and at the largest size: real BWTs (one
// cycle), random last columns (several cycles, so the walk falls back),
// one repeated byte (every row its own cycle) and origPtr on and off the
// marked rows.
func TestInverseBWT(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	d := new(blockDecoder)
	d.last = make([]byte, maxBlockSize+walkSlack)
	d.tt = make([]uint32, maxBlockSize)
	check := func(name string, last []byte, orig int) {
		t.Helper()
		d.counts = [256]int32{}
		for _, b := range last {
			d.counts[b]++
		}
		copy(d.last, last)
		pre := make([]byte, len(last))
		d.inverseBWT(pre, orig)
		if want := forwardWalk(last, orig); !bytes.Equal(pre, want) {
			t.Fatalf("%s (n=%d, origPtr=%d): wrong string", name, len(last), orig)
		}
	}
	for _, n := range []int{1, 2, walkMin - 1, walkMin, walkMin + 1, 3*walkMin + 7, 100000} {
		text := make([]byte, n)
		for k := range text {
			text[k] = "abcdefgh"[r.IntN(8)]
		}
		last, orig := bwt(text)
		check("bwt", last, orig)
		for k := range last {
			last[k] = byte(r.IntN(3))
		}
		for _, orig := range []int{0, n - 1, r.IntN(n), (n + walkSegs - 1) / walkSegs % n} {
			check("random", last, orig)
		}
		check("one byte", bytes.Repeat([]byte{'x'}, n), r.IntN(n))
	}
	last := make([]byte, maxBlockSize)
	for k := range last {
		last[k] = byte(r.IntN(256))
	}
	check("random, largest", last, r.IntN(maxBlockSize))
}
