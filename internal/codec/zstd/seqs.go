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
	in     []byte // the block, pad bytes before it
	start  int    // where the sequences' bitstream starts in in; it ends at len(in)
	seqs   []seq  // decodeSeqs fills it: one per sequence
	tabs   *fseTables
	rep    [3]uint32 // the repeat offsets, updated
	lits   int       // literals the block has
	hist   int       // bytes of history before the block, at most the window
	window int
	maxOut int // the block's maximum decoded size
	out    int // set: the block's decoded size
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
	if n == 0 {
		return 0, used, nil // in its 2- or 3-byte form too
	}
	if len(in) <= used || in[used]&3 != 0 {
		return 0, 0, errSeqHeader
	}
	modes := in[used]
	used++
	for f, shift := range [3]uint{6, 4, 2} {
		k, err := d.tables.read(f, modes>>shift&3, in[used:])
		if err != nil {
			return 0, 0, err
		}
		used += k
	}
	return n, used, nil
}

// seqCtx is the state of the sequence loop, shared by decodeLoopGeneric
// and the assembly (which knows its layout). The bitstream is read
// backwards 8 bytes at a time: c = in[ptr:ptr+8] little-endian, of which
// the low avail bits are still to read (fewer than 0 once the stream is
// overread); ptr never goes below floor.
type seqCtx struct {
	ptr, floor, avail int
	llS, mlS, ofS     uint64
	rep               [3]uint64
	litUsed           int
	hist, window      int // the history before the block; the window
	op                int // the block's output so far
	end               int // scratch of the assembly
	bad               int // set when a sequence is out of bounds: badOffset…
	litEnd, outEnd    int // fusedLoop: the block's literals, its maximum size
}

// newSeqCtx starts the sequence loop on s's bitstream: its first window
// and the three initial states.
func newSeqCtx(s *seqState) (seqCtx, error) {
	in := s.in
	end := len(in)
	if end <= s.start || in[end-1] == 0 {
		return seqCtx{}, errBitstream
	}
	c := seqCtx{ptr: end - 8, floor: min(s.start, end-8), avail: 55 + bits.Len8(in[end-1]),
		rep:  [3]uint64{uint64(s.rep[0]), uint64(s.rep[1]), uint64(s.rep[2])},
		hist: s.hist, window: s.window}
	v := binary.LittleEndian.Uint64(in[c.ptr:])
	get := func(nb int) uint64 {
		c.avail -= nb
		return v >> (c.avail & 63) & (1<<nb - 1)
	}
	c.llS = get(bits.Len(uint(s.tabs.n[fieldLL])) - 1)
	c.ofS = get(bits.Len(uint(s.tabs.n[fieldOF])) - 1)
	c.mlS = get(bits.Len(uint(s.tabs.n[fieldML])) - 1)
	return c, nil
}

// endSeqs checks the loop's end: no bad sequence, the bitstream used
// exactly, the literals and the block's size within bounds; it sets s.out
// and s.rep.
func endSeqs(s *seqState, c *seqCtx) error {
	switch c.bad {
	case badOffset:
		return errOffset
	case badLits:
		return errLitLen
	case badSize:
		return errBlockSize
	}
	end := len(s.in)
	if (end-8-c.ptr)*8+64-c.avail != (end-s.start)*8 {
		return errBitstream
	}
	if c.litUsed > s.lits {
		return errLitLen
	}
	s.out = c.op + s.lits - c.litUsed
	if s.out > s.maxOut {
		return errBlockSize
	}
	s.rep = [3]uint32{uint32(c.rep[0]), uint32(c.rep[1]), uint32(c.rep[2])}
	return nil
}

// What stopped a sequence loop early (seqCtx.bad).
const (
	badOffset = 1 + iota // a match offset out of reach
	badLits              // more literals used than the block has
	badSize              // more output than the block's maximum
)

// decodeSeqs decodes s.seqs from the bitstream (RFC 8878 §3.1.1.3.2.2),
// resolving repeat offsets and checking every sequence against the
// literals, the history and the block's maximum size.
func decodeSeqs(s *seqState) error {
	c, err := newSeqCtx(s)
	if err != nil {
		return err
	}
	decodeLoop(&c, s.tabs, s.in, s.seqs)
	return endSeqs(s, &c)
}

// fusedSeqs decodes the block's n sequences as decodeSeqs does, and writes
// each at once to buf[pos:] from lits, as execute does, with the literals
// left after them (s.seqs is not used).
func fusedSeqs(s *seqState, n int, buf []byte, pos int, lits []byte, wrap int) error {
	c, err := newSeqCtx(s)
	if err != nil {
		return err
	}
	c.litEnd, c.outEnd = s.lits, s.maxOut
	fusedLoop(&c, s.tabs, s.in, n, buf, pos, lits, wrap)
	if err := endSeqs(s, &c); err != nil {
		return err
	}
	copy(buf[pos+c.op:pos+s.out], lits[c.litUsed:])
	return nil
}

// seqBits is the Go twins' sequence reader: the bitstream read backwards
// from its end, the three FSE states, the repeat offsets, and the table
// entries of the sequence last decoded (for the states' next step).
type seqBits struct {
	in                []byte
	v                 uint64
	ptr, floor, avail int
	llS, mlS, ofS     uint64
	le, me, oe        uint64
	rep0, rep1, rep2  uint64
	tabs              *fseTables
}

// loadBits takes up the loop from c's state.
func loadBits(c *seqCtx, tabs *fseTables, in []byte) seqBits {
	return seqBits{in: in, ptr: c.ptr, floor: c.floor, avail: c.avail,
		llS: c.llS & 511, mlS: c.mlS & 511, ofS: c.ofS & 511,
		rep0: c.rep[0], rep1: c.rep[1], rep2: c.rep[2], tabs: tabs}
}

// save leaves the loop's state in c for the caller.
func (b *seqBits) save(c *seqCtx) {
	c.ptr, c.avail = b.ptr, b.avail
	c.llS, c.mlS, c.ofS = b.llS, b.mlS, b.ofS
	c.rep = [3]uint64{b.rep0, b.rep1, b.rep2}
}

func (b *seqBits) get(nb uint64) uint64 {
	b.avail -= int(nb)
	return b.v >> (b.avail & 63) & (1<<nb - 1)
}

// refill moves the 64-bit window back over the bits read, never before
// the bitstream's start.
func (b *seqBits) refill() {
	if k := (64 - b.avail) >> 3; b.ptr-k >= b.floor {
		b.ptr -= k
		b.avail += k * 8
	} else {
		b.avail += (b.ptr - b.floor) * 8
		b.ptr = b.floor
	}
	b.v = binary.LittleEndian.Uint64(b.in[b.ptr:])
}

// next decodes one sequence: its literal length, match length and match
// offset, with the repeat offsets updated. Its refill points are the
// assembly's.
func (b *seqBits) next() (ll, ml, mo uint64) {
	b.refill()
	t := b.tabs
	b.le, b.oe, b.me = t.t[fieldLL][b.llS], t.t[fieldOF][b.ofS], t.t[fieldML][b.mlS]
	ofv := b.oe>>32 + b.get(b.oe>>8&0xff)
	if b.avail < 32 {
		b.refill()
	}
	ml = b.me>>32 + b.get(b.me>>8&0xff)
	ll = b.le>>32 + b.get(b.le>>8&0xff)
	if ofv > 3 {
		mo = ofv - 3
		b.rep0, b.rep1, b.rep2 = mo, b.rep0, b.rep1
		return ll, ml, mo
	}
	if ll == 0 {
		ofv++
	}
	switch ofv {
	case 1:
		mo = b.rep0
	case 2:
		mo = b.rep1
		b.rep0, b.rep1 = mo, b.rep0
	case 3:
		mo = b.rep2
		b.rep0, b.rep1, b.rep2 = mo, b.rep0, b.rep1
	default:
		mo = b.rep0 - 1
		b.rep0, b.rep1, b.rep2 = mo, b.rep0, b.rep1
	}
	return ll, ml, mo
}

// step moves the three states on from the sequence last decoded.
func (b *seqBits) step() {
	if b.avail < 26 {
		b.refill()
	}
	b.llS = (b.le>>16&0xffff + b.get(b.le&0xff)) & 511
	b.mlS = (b.me>>16&0xffff + b.get(b.me&0xff)) & 511
	b.ofS = (b.oe>>16&0xffff + b.get(b.oe&0xff)) & 511
}

// decodeLoopGeneric decodes the sequences from c's state on; it stops at
// the first offset out of reach, setting c.bad.
func decodeLoopGeneric(c *seqCtx, tabs *fseTables, in []byte, seqs []seq) {
	b := loadBits(c, tabs, in)
	op, litUsed := c.op, c.litUsed
	for i := range seqs {
		ll, ml, mo := b.next()
		op += int(ll)
		litUsed += int(ll)
		if mo-1 >= uint64(min(op+c.hist, c.window)) {
			c.bad = badOffset
			break
		}
		seqs[i] = seq{uint32(ll), uint32(ml), uint32(mo), uint32(op)}
		op += int(ml)
		if i == len(seqs)-1 {
			break
		}
		b.step()
	}
	b.save(c)
	c.op, c.litUsed = op, litUsed
}

// fusedLoopGeneric decodes n sequences from c's state on, as
// decodeLoopGeneric does, and executes each at once into buf[pos:], as
// executeGeneric does, after checking its literals against c.litEnd and its
// end against c.outEnd. It stops at the first sequence out of bounds,
// setting c.bad.
func fusedLoopGeneric(c *seqCtx, tabs *fseTables, in []byte, n int, buf []byte, pos int, lits []byte, wrap int) {
	b := loadBits(c, tabs, in)
	op, litUsed := c.op, c.litUsed
	for i := range n {
		ll, ml, mo := b.next()
		if litUsed+int(ll) > c.litEnd {
			c.bad = badLits
			break
		}
		if mo-1 >= uint64(min(op+int(ll)+c.hist, c.window)) {
			c.bad = badOffset
			break
		}
		if op+int(ll)+int(ml) > c.outEnd {
			c.bad = badSize
			break
		}
		copySeq(buf, pos+op, lits[litUsed:litUsed+int(ll)], int(ml), int(mo), wrap)
		op += int(ll + ml)
		litUsed += int(ll)
		if i == n-1 {
			break
		}
		b.step()
	}
	b.save(c)
	c.op, c.litUsed = op, litUsed
}

// executeGeneric writes the block's output at buf[pos:]: each sequence's
// literals, then its match copied from its offset back, then the literals
// left. A match source before the ring's start is in its last lap, which
// ended at wrap. decodeSeqs has checked every length and offset.
func executeGeneric(buf []byte, pos int, seqs []seq, lits []byte, wrap int) {
	lp := 0
	for _, s := range seqs {
		ll := int(s.ll)
		copySeq(buf, pos, lits[lp:lp+ll], int(s.ml), int(s.off), wrap)
		pos += ll + int(s.ml)
		lp += ll
	}
	copy(buf[pos:], lits[lp:])
}

// copySeq writes one sequence at buf[pos:]: its literals, then its match of
// ml bytes from mo back, in the ring's last lap (which ended at wrap) when
// before its start.
func copySeq(buf []byte, pos int, lits []byte, ml, mo, wrap int) {
	pos += copy(buf[pos:pos+len(lits)], lits)
	src := pos - mo
	if src < 0 {
		src += wrap
		n := copy(buf[pos:pos+min(ml, wrap-src)], buf[src:wrap])
		matchCopy(buf, pos+n, 0, ml-n)
	} else {
		matchCopy(buf, pos, src, ml)
	}
}

// matchCopy copies n bytes from buf[src:] to buf[pos:], src < pos, byte
// after byte as the format has it (an overlap repeats the pattern).
func matchCopy(buf []byte, pos, src, n int) {
	for done := 0; done < n; {
		done += copy(buf[pos+done:pos+n], buf[src:pos+done])
	}
}
