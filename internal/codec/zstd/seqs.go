package zstd

import (
	"encoding/binary"
	"math/bits"
)

// seq is one decoded sequence: its literals, its match length and offset,
// and where in the block's output the match starts (for loading its
// source ahead).
type seq struct {
	ll, ml, off, mpos uint32
}

// seqState is what decodeSeqs reads and sets for one block.
type seqState struct {
	in         []byte // the block, pad bytes before it
	start      int    // where the sequences' bitstream starts in in; it ends at len(in)
	seqs       []seq  // filled: one per sequence
	ll, of, ml []uint64
	rep        [3]uint32 // the repeat offsets, updated
	lits       int       // literals the block has
	hist       int       // bytes of history before the block, at most the window
	window     int
	maxOut     int // the block's maximum decoded size
	out        int // set: the block's decoded size
}

// seqHeader reads the sequences section header (RFC 8878 §3.1.1.3.2.1) and
// the table descriptions; it returns the number of sequences and the bytes
// used.
func (d *Decoder) seqHeader(in []byte) (int, int, error) {
	if len(in) < 1 {
		return 0, 0, errSeqHeader
	}
	var n, used int
	switch b0 := int(in[0]); {
	case b0 == 0:
		return 0, 1, nil
	case b0 < 128:
		n, used = b0, 1
	case b0 < 255:
		if len(in) < 2 {
			return 0, 0, errSeqHeader
		}
		n, used = (b0-128)<<8|int(in[1]), 2
	default:
		if len(in) < 3 {
			return 0, 0, errSeqHeader
		}
		n, used = int(in[1])|int(in[2])<<8+0x7F00, 3
	}
	if len(in) <= used || in[used]&3 != 0 {
		return 0, 0, errSeqHeader
	}
	modes := in[used]
	used++
	for f, shift := range [3]uint{6, 4, 2} {
		k, err := d.tables[f].read(f, modes>>shift&3, in[used:])
		if err != nil {
			return 0, 0, err
		}
		used += k
	}
	return n, used, nil
}

// decodeSeqsGeneric decodes s.seqs from the bitstream (RFC 8878
// §3.1.1.3.2.2), resolving repeat offsets and checking every sequence
// against the literals, the history and the block's maximum size.
func decodeSeqsGeneric(s *seqState) error {
	in := s.in
	end := len(in)
	if end <= s.start || in[end-1] == 0 {
		return errBitstream
	}
	floor := min(s.start, end-8)
	off := end - 8
	n := uint(9 - bits.Len8(in[end-1]))
	c := binary.LittleEndian.Uint64(in[off:])
	get := func(nb uint) uint32 {
		v := uint32(c << (n & 63) >> 1 >> ((63 - nb) & 63))
		n += nb
		return v
	}
	refill := func() {
		if k := int(n >> 3); off-k >= floor {
			off -= k
			n &= 7
		} else {
			n -= uint(off-floor) * 8
			off = floor
		}
		c = binary.LittleEndian.Uint64(in[off:])
	}
	llT, ofT, mlT := s.ll, s.of, s.ml
	llS := get(uint(bits.Len(uint(len(llT))) - 1))
	ofS := get(uint(bits.Len(uint(len(ofT))) - 1))
	mlS := get(uint(bits.Len(uint(len(mlT))) - 1))
	rep0, rep1, rep2 := s.rep[0], s.rep[1], s.rep[2]
	op, litUsed := 0, 0
	hist, window := s.hist, s.window
	seqs := s.seqs
	for i := range seqs {
		refill()
		le, oe, me := llT[llS&uint32(len(llT)-1)], ofT[ofS&uint32(len(ofT)-1)], mlT[mlS&uint32(len(mlT)-1)]
		llb, ofb, mlb := uint(le>>8&0xff), uint(oe>>8&0xff), uint(me>>8&0xff)
		var ofv, ml, ll uint32
		if ofb+mlb+llb <= 30 {
			ofv = uint32(oe>>32) + get(ofb)
			ml = uint32(me>>32) + get(mlb)
			ll = uint32(le>>32) + get(llb)
		} else {
			ofv = uint32(oe>>32) + get(ofb)
			refill()
			ml = uint32(me>>32) + get(mlb)
			ll = uint32(le>>32) + get(llb)
			refill()
		}
		var mo uint32
		switch {
		case ofv > 3:
			mo = ofv - 3
			rep0, rep1, rep2 = mo, rep0, rep1
		default:
			idx := ofv
			if ll == 0 {
				idx++
			}
			switch idx {
			case 1:
				mo = rep0
			case 2:
				mo = rep1
				rep0, rep1 = mo, rep0
			case 3:
				mo = rep2
				rep0, rep1, rep2 = mo, rep0, rep1
			default:
				mo = rep0 - 1
				rep0, rep1, rep2 = mo, rep0, rep1
			}
		}
		op += int(ll)
		litUsed += int(ll)
		if uint(mo)-1 >= uint(min(op+hist, window)) {
			return errOffset
		}
		seqs[i] = seq{ll, ml, mo, uint32(op)}
		op += int(ml)
		if i == len(seqs)-1 {
			break
		}
		llS = uint32(le>>16&0xffff) + get(uint(le&0xff))
		mlS = uint32(me>>16&0xffff) + get(uint(me&0xff))
		ofS = uint32(oe>>16&0xffff) + get(uint(oe&0xff))
	}
	if (end-8-off)*8+int(n) != (end-s.start)*8 {
		return errBitstream
	}
	if litUsed > s.lits {
		return errLitLen
	}
	s.out = op + s.lits - litUsed
	if s.out > s.maxOut {
		return errBlockSize
	}
	s.rep = [3]uint32{rep0, rep1, rep2}
	return nil
}

// executeGeneric writes the block's output at buf[pos:]: each sequence's
// literals, then its match copied from its offset back, then the literals
// left. decodeSeqs has checked every length and offset.
func executeGeneric(buf []byte, pos int, seqs []seq, lits []byte) {
	lp := 0
	for _, s := range seqs {
		ll, ml, mo := int(s.ll), int(s.ml), int(s.off)
		copy(buf[pos:pos+ll], lits[lp:lp+ll])
		pos += ll
		lp += ll
		src := pos - mo
		for done := 0; done < ml; {
			done += copy(buf[pos+done:pos+ml], buf[src:pos+done])
		}
		pos += ml
	}
	copy(buf[pos:], lits[lp:])
}
