package verify

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// blake2spLengths are lengths around every cut-off of BLAKE2sp: the 64-byte
// block, the 512-byte stripe, the 449 bytes that must follow a compressed
// stripe and the 960-byte buffer.
var blake2spLengths = func() []int {
	var ls []int
	for n := range 140 {
		ls = append(ls, n)
	}
	for _, base := range []int{192, 256, 448, 449, 512, 960, 961, 1024, 1472, 1536, 2048, 4096, 8192} {
		for d := -3; d <= 3; d++ {
			ls = append(ls, base+d)
		}
	}
	return ls
}()

// TestBLAKE2spBlocksCrossCheck compares the stripe compressors directly from
// random chaining values, with counters that carry into the high word, over
// misalignments 0..63.
func TestBLAKE2spBlocksCrossCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	buf := make([]byte, 4*blake2spStripe+64)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	counters := []uint64{0, 64, 1 << 32, 1<<32 - 64, 1<<32 - 128, 1<<64 - 128, rng.Uint64()}
	for _, fast := range impls() {
		if fast == generic {
			continue
		}
		t.Run(fast.name, func(t *testing.T) {
			for align := range 64 {
				for stripes := 1; stripes <= 4; stripes++ {
					for _, ctr := range counters {
						var h1 [8][blake2spDegree]uint32
						for w := range h1 {
							for l := range h1[w] {
								h1[w][l] = rng.Uint32()
							}
						}
						h2 := h1
						p := buf[align : align+stripes*blake2spStripe]
						blake2spBlocksGeneric(&h1, p, ctr)
						restore := fast.set()
						blake2spBlocks(&h2, p, ctr)
						restore()
						if h1 != h2 {
							t.Fatalf("align %d stripes %d counter %#x: state differs from generic", align, stripes, ctr)
						}
					}
				}
			}
		})
	}
}

// TestBLAKE2spCrossCheck compares whole digests of the assembly and generic
// paths at every cut-off length, misalignment 0..63, keyed and unkeyed, with
// one-shot and randomly split writes.
func TestBLAKE2spCrossCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	buf := make([]byte, 8192+3+64)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for _, fast := range impls() {
		if fast == generic {
			continue
		}
		t.Run(fast.name, func(t *testing.T) {
			for _, key := range [][]byte{nil, seqBytes(32), seqBytes(1)} {
				asm, _ := NewBLAKE2sp(key)
				gen, _ := NewBLAKE2sp(key)
				for _, n := range blake2spLengths {
					for align := range 64 {
						if n > 1024 && align%7 != 0 {
							continue
						}
						p := buf[align : align+n]
						gen.Reset()
						gen.Write(p)
						want := gen.Sum(nil)
						restore := fast.set()
						asm.Reset()
						writeSplit(asm, p, nil)
						got1 := asm.Sum(nil)
						asm.Reset()
						writeSplit(asm, p, rng)
						got2 := asm.Sum(nil)
						restore()
						if !bytes.Equal(got1, want) || !bytes.Equal(got2, want) {
							t.Fatalf("key %d len %d align %d: %x / split %x, generic %x", len(key), n, align, got1, got2, want)
						}
					}
				}
			}
		})
	}
}

// TestBLAKE2spSumKeepsState checks that Sum does not disturb the stream.
func TestBLAKE2spSumKeepsState(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		data := pattern(5000)
		whole := New(BLAKE2sp)
		whole.Write(data)
		h := New(BLAKE2sp)
		for i := 0; i < len(data); i += 333 {
			h.Write(data[i:min(i+333, len(data))])
			h.Sum(nil)
		}
		if !bytes.Equal(h.Sum(nil), whole.Sum(nil)) {
			t.Fatal("interleaved Sum changed the digest")
		}
	})
}

// TestZeroAllocs checks that Write and Sum into a large enough slice do not
// allocate for any kind.
func TestZeroAllocs(t *testing.T) {
	data := pattern(10000)
	sum := make([]byte, 0, 64)
	for k := CRC32; k <= CRC16; k++ {
		h := New(k)
		if allocs := testing.AllocsPerRun(10, func() {
			h.Reset()
			h.Write(data[:1])
			h.Write(data[1:])
			sum = h.Sum(sum[:0])
		}); allocs != 0 {
			t.Errorf("%v: %v allocations per run", k, allocs)
		}
	}
}
