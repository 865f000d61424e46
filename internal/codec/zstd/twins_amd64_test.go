//go:build amd64 && gc && !purego

package zstd

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// randomTables fills ts with valid tables of random distributions, or
// RLE tables, and returns it.
func randomTables(r *rand.Rand) *fseTables {
	ts := new(fseTables)
	for f := range 3 {
		if r.IntN(4) == 0 {
			in := []byte{byte(r.IntN(maxSym[f] + 1))}
			if _, err := ts.read(f, 1, in); err != nil {
				panic(err)
			}
			continue
		}
		log := 5 + uint(r.IntN(int(maxLog[f])-4))
		size := 1 << log
		n := 2 + r.IntN(maxSym[f])
		norm := make([]int16, n)
		left := size
		for s := range norm {
			switch {
			case left == 0:
			case s == n-1:
				norm[s] = int16(left)
				left = 0
			case r.IntN(5) == 0:
				norm[s] = -1
				left--
			default:
				c := 1 + r.IntN(max(1, left/2))
				norm[s] = int16(c)
				left -= c
			}
		}
		if left != 0 || !buildTable(ts.t[f][:size], f, norm, log) {
			ts.n[f] = copy(ts.t[f][:], predef[f])
			continue
		}
		ts.n[f] = size
	}
	return ts
}

// TestDecodeLoopTwins runs decodeLoopBMI2 and decodeLoopGeneric on random
// bitstreams and tables: same sequences, same state after.
func TestDecodeLoopTwins(t *testing.T) {
	if !useBMI2 {
		t.Skip("no BMI2")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		ts := randomTables(r)
		in := make([]byte, pad+1+r.IntN(400))
		for j := range in {
			in[j] = byte(r.Uint32())
		}
		in[len(in)-1] |= 1
		start := pad + r.IntN(len(in)-pad)
		n := 1 + r.IntN(200)
		hist := r.IntN(1 << 20)
		var c [2]seqCtx
		var seqs [2][]seq
		for k, loop := range []func(*seqCtx, *fseTables, []byte, []seq){decodeLoopBMI2, decodeLoopGeneric} {
			c[k] = seqCtx{ptr: len(in) - 8, floor: min(start, len(in)-8), avail: 56,
				llS: uint64(i % ts.n[0]), mlS: uint64(i % ts.n[2]), ofS: uint64(i % ts.n[1]),
				rep: [3]uint64{1, 4, 8}, hist: hist, window: 1 << 20}
			seqs[k] = make([]seq, n)
			loop(&c[k], ts, in, seqs[k])
		}
		c[0].floor, c[0].end = c[1].floor, c[1].end
		if c[0] != c[1] {
			t.Fatalf("case %d: state %+v, generic %+v", i, c[0], c[1])
		}
		if c[0].bad == 0 {
			for j := range seqs[0] {
				if seqs[0][j] != seqs[1][j] {
					t.Fatalf("case %d: sequence %d: %+v, generic %+v", i, j, seqs[0][j], seqs[1][j])
				}
			}
		}
	}
}

// TestExecuteTwins runs executeAsm and executeGeneric on random sequences,
// half of them in a ring's first lap with sources in its last.
func TestExecuteTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 4000 {
		pos, wrap, reach := 1+r.IntN(5000), 0, 0
		if i%2 == 1 {
			pos, wrap, reach = r.IntN(300), 12000+r.IntN(7000), 3000
		}
		lits := make([]byte, r.IntN(3000), 3000+slack)
		for j := range lits {
			lits[j] = byte(r.Uint32())
		}
		var seqs []seq
		op, lp := 0, 0
		for len(seqs) < r.IntN(300) && op < 6000 {
			ll := 0
			if r.IntN(3) > 0 && lp < len(lits) {
				ll = r.IntN(min(40, len(lits)-lp) + 1)
			}
			lp += ll
			op += ll
			ml := 3 + r.IntN(70)
			if r.IntN(10) == 0 {
				ml += r.IntN(2000)
			}
			mo := 1 + r.IntN(min(pos+op+reach, 1<<12))
			if r.IntN(3) == 0 {
				mo = 1 + r.IntN(min(pos+op+reach, 20))
			}
			seqs = append(seqs, seq{uint32(ll), uint32(ml), uint32(mo), uint32(op)})
			op += ml
		}
		out := op + len(lits) - lp
		var bufs [2][]byte
		for k, exec := range []func([]byte, int, []seq, []byte, int){executeAsm, executeGeneric} {
			b := make([]byte, max(pos+out, wrap)+slack)
			for j := range b {
				b[j] = byte(j * 7)
			}
			exec(b, pos, seqs, lits, wrap)
			bufs[k] = b[:pos+out]
		}
		if !bytes.Equal(bufs[0], bufs[1]) {
			t.Fatalf("case %d: outputs differ at %d", i, firstDiff(bufs[0], bufs[1]))
		}
	}
}

// TestFusedTwins runs fusedBMI2 and fusedLoopGeneric on random bitstreams
// and tables, half of them in a ring's first lap with history in its
// last: same state after, same output.
func TestFusedTwins(t *testing.T) {
	if !useBMI2 {
		t.Skip("no BMI2")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 6000 {
		ts := randomTables(r)
		in := make([]byte, pad+1+r.IntN(400))
		for j := range in {
			in[j] = byte(r.Uint32())
		}
		in[len(in)-1] |= 1
		start := pad + r.IntN(len(in)-pad)
		n := 1 + r.IntN(200)
		lits := make([]byte, r.IntN(1<<17), 1<<17+slack)
		for j := range lits {
			lits[j] = byte(j * 13)
		}
		outEnd := r.IntN(1 << 18)
		pos, hist, wrap := r.IntN(1<<16), 0, 0
		hist = r.IntN(pos + 1)
		if i%2 == 1 {
			hist = pos + r.IntN(1<<16)
			wrap = pos + outEnd + slack + hist - pos
		}
		var c [2]seqCtx
		var bufs [2][]byte
		for k, loop := range []func(*seqCtx, *fseTables, []byte, int, []byte, int, []byte, int){fusedBMI2, fusedLoopGeneric} {
			c[k] = seqCtx{ptr: len(in) - 8, floor: min(start, len(in)-8), avail: 56,
				llS: uint64(i % ts.n[0]), mlS: uint64(i % ts.n[2]), ofS: uint64(i % ts.n[1]),
				rep: [3]uint64{1, 4, 8}, hist: hist, window: 1 << 20, litEnd: len(lits), outEnd: outEnd}
			b := make([]byte, max(pos+outEnd, wrap)+slack)
			for j := range b {
				b[j] = byte(j * 7)
			}
			loop(&c[k], ts, in, n, b, pos, lits, wrap)
			bufs[k] = b[:pos+c[k].op]
		}
		c[0].floor, c[0].end = c[1].floor, c[1].end
		if c[0] != c[1] {
			t.Fatalf("case %d: state %+v, generic %+v", i, c[0], c[1])
		}
		if !bytes.Equal(bufs[0], bufs[1]) {
			t.Fatalf("case %d: outputs differ at %d", i, firstDiff(bufs[0], bufs[1]))
		}
	}
}
