package bzip2

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"github.com/unpack-dev/unpack/internal/testutil"
	"io"
	"testing"
)

// FuzzBzip2 decodes arbitrary input with one and with three threads: both
// must agree (same output, both fail or both succeed), never panic or
// hang, fail only with errors of the corrupt category, and agree with
// compress/bzip2 whenever both decoders succeed.
func FuzzBzip2(f *testing.F) {
	// Small seeds keep the fuzzer (and its minimisation) fast.
	small := testutil.Fixture(f, "small-bzip2.bz2")
	empty := testutil.Fixture(f, "empty-bzip2.bz2")
	f.Add(small)
	f.Add(empty)
	f.Add(append(bytes.Clone(small), empty...))
	f.Add([]byte("BZh9\x17\x72\x45\x38\x50\x90\x00\x00\x00\x00"))
	seq, _ := NewReader(bytes.NewReader(nil), Config{Threads: 1})
	par, _ := NewReader(bytes.NewReader(nil), Config{Threads: 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		out1, err1 := decodeWith(seq, data, 1)
		out3, err3 := decodeWith(par, data, 3)
		if (err1 == nil) != (err3 == nil) || !bytes.Equal(out1, out3) {
			t.Fatalf("threads 1 and 3 disagree: %v / %v, %d / %d bytes", err1, err3, len(out1), len(out3))
		}
		if err1 != nil {
			if !isCorrupt(err1) {
				t.Fatalf("error of the wrong category: %v", err1)
			}
			return
		}
		ref, err := io.ReadAll(io.LimitReader(stdbzip2.NewReader(bytes.NewReader(data)), int64(len(out1))+1))
		if err == nil && !bytes.Equal(ref, out1) {
			t.Fatalf("compress/bzip2 decodes %d bytes, we decode %d", len(ref), len(out1))
		}
	})
}

// decodeWith decodes data with z (or a new Reader when z is nil), keeping
// at most 4 MB of output.
func decodeWith(z *Reader, data []byte, threads int) ([]byte, error) {
	var err error
	if z == nil {
		z, err = NewReader(bytes.NewReader(data), Config{Threads: threads})
	} else {
		err = z.Reset(bytes.NewReader(data))
	}
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(z, 4<<20))
	if err == nil && len(out) == 4<<20 {
		// Drain the rest for the checksums, without keeping it.
		_, err = io.Copy(io.Discard, z)
	}
	return out, err
}

// FuzzInverseBWT checks the walk in lanes against the reference walk on
// blocks of walkMin to 5*walkMin symbols made from the input: the input
// itself repeated as a last column (mostly permutations of several
// cycles, where the lanes' segments do not link up) or the BWT of a text
// made from it (one cycle, unless the text is periodic).
func FuzzInverseBWT(f *testing.F) {
	f.Add([]byte("banana"), uint32(3), uint16(0), false)
	f.Add([]byte("the quick brown fox"), uint32(12345), uint16(777), true)
	f.Add([]byte{0, 1, 2, 255}, uint32(0), uint16(65535), true)
	d := new(blockDecoder)
	d.last = make([]byte, 5*walkMin+walkSlack)
	d.tt = make([]uint32, 5*walkMin)
	f.Fuzz(func(t *testing.T, seed []byte, orig uint32, extra uint16, real bool) {
		if len(seed) == 0 {
			return
		}
		n := walkMin + int(extra)%(4*walkMin)
		last := make([]byte, n)
		for i := range last {
			last[i] = seed[i%len(seed)] + byte(i/len(seed)%3)
		}
		o := int(orig % uint32(n))
		if real {
			last, o = bwt(last)
		}
		d.counts = [256]int32{}
		for _, b := range last {
			d.counts[b]++
		}
		copy(d.last, last)
		pre := make([]byte, n)
		d.inverseBWT(pre, o)
		if !bytes.Equal(pre, forwardWalk(last, o)) {
			t.Fatalf("n=%d origPtr=%d real=%v: wrong string", n, o, real)
		}
	})
}
