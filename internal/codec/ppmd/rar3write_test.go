package ppmd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"strconv"
	"testing"
)

// A RAR 3.x (format 2.9) archive writer whose one file is one PPMd
// variant H block, for benchmarks and tests: no tool here writes RAR. It
// is test code; nothing of the product encodes.
//
// The block is RAR's stream (unrar's Unpack29 and ModelPPM::DecodeInit,
// 7-Zip's Rar3Decoder): a flags byte whose top bit marks a PPMd block,
// bit 5 a model reset (then the memory byte, MB-1), bit 6 an escape
// character byte, bits 0-4 the order-1 (orders past 16 coded as
// 16+(o-16)/3); then RAR's carry-less range coder (Subbotin's, as in
// Shkarin's PPMd var.H Coder.hpp) over the symbols. A literal escape
// character is written as escape, 1; the file ends with escape, 2.
//
// The encoder drives this package's model with the decoder's updates
// (rescale, updateModel, the SEE contexts), choosing by the symbol where
// the decoder chooses by the code (7-Zip's Ppmd7Enc.c has the same
// shape), so that it cannot drift from the decoder; an independent
// decoder (unar, 7-Zip's Rar3Decoder) checks the output.

// rarEncoder is RAR's carry-less range encoder.
type rarEncoder struct {
	low, rng uint32
	out      []byte
}

func (e *rarEncoder) init() { e.low, e.rng = 0, 0xFFFFFFFF }

func (e *rarEncoder) normalize() {
	for {
		if e.low^(e.low+e.rng) >= rcTop {
			if e.rng >= rcBot {
				return
			}
			e.rng = -e.low & (rcBot - 1)
		}
		e.out = append(e.out, byte(e.low>>24))
		e.rng <<= 8
		e.low <<= 8
	}
}

// encode codes [start, start+size) of total.
func (e *rarEncoder) encode(start, size, total uint32) {
	e.rng /= total
	e.low += start * e.rng
	e.rng *= size
	e.normalize()
}

// encodeBit codes a binary choice of probability size0/2^14 for 0, a
// symbol of total 2^14 (ariShiftEncodeSymbol(TOT_BITS)).
func (e *rarEncoder) encodeBit(size0, bit uint32) {
	r := e.rng >> 14
	if bit == 0 {
		e.rng = r * size0
	} else {
		e.low += r * size0
		e.rng = r * (binScale - size0)
	}
	e.normalize()
}

func (e *rarEncoder) flush() {
	for i := 0; i < 4; i++ {
		e.out = append(e.out, byte(e.low>>24))
		e.low <<= 8
	}
}

// encNext is the decoder's step after a symbol found in minCtx without
// escapes: the successor, or the model update.
func (m *ModelH) encNext() {
	if succ := le32(state(m.heap, m.found)[2:]); m.orderFall == 0 && succ > m.text {
		m.minCtx, m.maxCtx = succ, succ
	} else {
		m.updateModelGeneric()
	}
}

// encodeSymbol codes sym in the model's state, as decode and
// decodeEscapedGeneric decode it.
func (m *ModelH) encodeSymbol(e *rarEncoder, sym byte) {
	heap := m.heap
	var mask [256]bool // masked symbols
	c := m.minCtx
	ctx := unit(heap, c)
	if ns := le16(ctx[0:]); ns != 1 {
		s := le32(ctx[4:])
		summ := le16(ctx[2:])
		st := stateArr(heap, s)
		hi := uint32(st[1])
		if st[0] == sym {
			// Update1_0.
			e.encode(0, hi, summ)
			ps := b2u(2*hi > summ)
			m.prevSuccess = ps
			m.runLength += int32(ps)
			put16(ctx[2:], summ+4)
			hi += 4
			st[1] = byte(hi)
			m.found = s
			if hi > maxFreq {
				m.rescale()
			}
			m.encNext()
			return
		}
		m.prevSuccess = 0
		for i := uint32(1); i < ns; i++ {
			rec := st[i*6 : i*6+6]
			f := uint32(rec[1])
			if rec[0] != sym {
				hi += f
				continue
			}
			// Update1.
			e.encode(hi, f, summ)
			f += 4
			rec[1] = byte(f)
			put16(ctx[2:], summ+4)
			m.found = s + i*6
			if prev := st[i*6-6 : i*6]; f > uint32(prev[1]) {
				var tmp [6]byte
				copy(tmp[:], rec)
				copy(rec, prev)
				copy(prev, tmp[:])
				m.found -= 6
				if f > maxFreq {
					m.rescale()
				}
			}
			m.encNext()
			return
		}
		m.hiBitsFlag = uint32(hb2Flag[*at(heap, m.found)])
		e.encode(hi, summ-hi, summ)
		for i := uint32(0); i < ns; i++ {
			mask[st[i*6]] = true
		}
	} else {
		freq := ctx[3]
		s0 := ctx[2]
		m.hiBitsFlag = uint32(hb2Flag[*at(heap, m.found)])
		prob := &m.binSumm[(freq-1)&127][(m.prevSuccess+
			uint32(ns2BSIndx[byte(le16(unit(heap, le32(ctx[8:]))[0:])-1)])+
			m.hiBitsFlag+2*uint32(hb2Flag[s0])+
			uint32((m.runLength>>26)&0x20))&63]
		if s0 == sym {
			// UpdateBin.
			e.encodeBit(uint32(*prob), 0)
			*prob = *prob + 1<<intBits - getMean(*prob)
			m.found = c + 2
			if freq < 128 {
				ctx[3] = freq + 1
			}
			m.prevSuccess = 1
			m.runLength++
			m.encNext()
			return
		}
		e.encodeBit(uint32(*prob), 1)
		*prob -= getMean(*prob)
		m.initEsc = uint32(expEscape[*prob>>10])
		mask[s0] = true
		m.prevSuccess = 0
	}
	// The escapes to shorter contexts (decodeEscapedGeneric).
	mc := m.minCtx
	for {
		numMasked := le16(unit(heap, mc)[0:])
		ctx := unit(heap, mc)
		for {
			m.orderFall++
			suf := le32(ctx[8:])
			if suf == 0 {
				panic("ppmd: encoder: symbol not in the order-0 context")
			}
			mc = suf
			if ctx = unit(heap, mc); le16(ctx[0:]) != numMasked {
				break
			}
		}
		m.minCtx = mc
		ns := le16(ctx[0:])
		s := le32(ctx[4:])
		st := stateArr(heap, s)
		hi, at, found := uint32(0), uint32(0), -1
		for i := uint32(0); i < ns; i++ {
			if mask[st[i*6]] {
				continue
			}
			if st[i*6] == sym {
				at, found = hi, int(i)
			}
			hi += uint32(st[i*6+1])
		}
		se, escFreq := &m.dummy, uint32(1)
		if ns != 256 {
			nonMasked := ns - numMasked
			i := m.hiBitsFlag
			if nonMasked < le16(unit(heap, le32(ctx[8:]))[0:])-ns {
				i++
			}
			if le16(ctx[2:]) < 11*ns {
				i += 2
			}
			if numMasked > nonMasked {
				i += 4
			}
			se = &m.see[ns2Indx[byte(nonMasked-1)]][i&15]
			escFreq = se.mean()
		}
		total := escFreq + hi
		if found >= 0 {
			rec := state(heap, s+uint32(found)*6)
			f := uint32(rec[1])
			e.encode(at, f, total)
			se.update()
			// Update2.
			m.found = s + uint32(found)*6
			f += 4
			rec[1] = byte(f)
			put16(ctx[2:], le16(ctx[2:])+4)
			if f > maxFreq {
				m.rescale()
			}
			m.runLength = m.initRL
			m.updateModelGeneric()
			return
		}
		e.encode(hi, total-hi, total)
		se.summ += uint16(total)
		for i := uint32(0); i < ns; i++ {
			mask[st[i*6]] = true
		}
	}
}

// rar3Params are a PPMd block's model parameters: order 2..16 (or
// 16+3k), memory in MB 1..256, and the escape character.
type rar3Params struct {
	order, memMB int
	esc          byte
}

// header returns the block's first bytes: the flags (PPMd, reset,
// escape, order), the memory byte and the escape character.
func (p rar3Params) header() []byte {
	o := p.order
	if o > 16 {
		o = 16 + (o-16)/3
	}
	b := []byte{0x80 | 0x20 | byte(o-1), byte(p.memMB - 1)}
	if p.esc != 2 {
		b[0] |= 0x40
		b = append(b, p.esc)
	}
	return b
}

// leastUsed returns the byte of data that occurs least (the lowest on a
// tie), a good escape character.
func leastUsed(data []byte) byte {
	var n [256]int
	for _, c := range data {
		n[c]++
	}
	best := 0
	for i := range n {
		if n[i] < n[best] {
			best = i
		}
	}
	return byte(best)
}

// encodeRAR3PPM returns data as one RAR 3.x PPMd block ending in the
// end-of-file escape.
func encodeRAR3PPM(data []byte, p rar3Params) ([]byte, error) {
	m, err := NewH(p.order, p.memMB<<20)
	if err != nil {
		return nil, err
	}
	e := &rarEncoder{out: p.header()}
	e.out = append(make([]byte, 0, len(data)/3+64), e.out...)
	e.init()
	for _, c := range data {
		m.encodeSymbol(e, c)
		if c == p.esc {
			m.encodeSymbol(e, 1)
		}
	}
	m.encodeSymbol(e, p.esc)
	m.encodeSymbol(e, 2)
	e.flush()
	return e.out, nil
}

// rar3Archive wraps a packed file in a RAR 2.9 archive: marker, main
// header, one file header (UNP_VER 29, method 0x35 "best", a 4 MB
// window), the data, the end header.
func rar3Archive(name string, data, packed []byte) []byte {
	var a []byte
	a = append(a, "Rar!\x1a\x07\x00"...)
	block := func(h []byte) {
		crc := crc32.ChecksumIEEE(h[2:])
		binary.LittleEndian.PutUint16(h, uint16(crc))
		a = append(a, h...)
	}
	// Main header: no flags, 6 reserved bytes.
	block([]byte{0, 0, 0x73, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0})
	h := make([]byte, 32, 32+len(name))
	h[2] = 0x74
	binary.LittleEndian.PutUint16(h[3:], 0x8000|0xC0) // long block, 4 MB window
	binary.LittleEndian.PutUint16(h[5:], uint16(32+len(name)))
	binary.LittleEndian.PutUint32(h[7:], uint32(len(packed)))
	binary.LittleEndian.PutUint32(h[11:], uint32(len(data)))
	h[15] = 3 // Unix
	binary.LittleEndian.PutUint32(h[16:], crc32.ChecksumIEEE(data))
	binary.LittleEndian.PutUint32(h[20:], 0x5A210000) // 2025-01-01 00:00, DOS time
	h[24] = 29
	h[25] = 0x35
	binary.LittleEndian.PutUint16(h[26:], uint16(len(name)))
	binary.LittleEndian.PutUint32(h[28:], 0o100644)
	block(append(h, name...))
	a = append(a, packed...)
	block([]byte{0, 0, 0x7B, 0x00, 0x40, 7, 0})
	return a
}

// decodeRAR3PPM decodes a block encodeRAR3PPM wrote, with RAR's escape
// codes for a literal escape and the end of the file.
func decodeRAR3PPM(packed []byte) ([]byte, error) {
	if len(packed) < 2 || packed[0]&0xA0 != 0xA0 {
		return nil, errors.New("not a PPMd block with a reset")
	}
	order := int(packed[0]&0x1f) + 1
	if order > 16 {
		order = 16 + (order-16)*3
	}
	mem := (int(packed[1]) + 1) << 20
	esc, pos := 2, 2
	if packed[0]&0x40 != 0 {
		esc, pos = int(packed[2]), 3
	}
	m, err := NewH(order, mem)
	if err != nil {
		return nil, err
	}
	var rc RangeDecoder
	if err := rc.InitRAR(bytes.NewReader(packed[pos:])); err != nil {
		return nil, err
	}
	var out []byte
	for {
		c, err := m.DecodeSymbol(&rc)
		if err != nil {
			return out, err
		}
		if c != esc {
			out = append(out, byte(c))
			continue
		}
		next, err := m.DecodeSymbol(&rc)
		if err != nil {
			return out, err
		}
		switch next {
		case 1:
			out = append(out, byte(esc))
		case 2:
			return out, nil
		default:
			return out, fmt.Errorf("escape code %d", next)
		}
	}
}

// rar3Sample is a text with repeats, rare bytes and the default escape
// character, long enough for rescales, binary contexts and escapes of
// every order.
func rar3Sample(n int) []byte {
	var b bytes.Buffer
	words := []string{"the ", "archive ", "PPMd ", "model ", "escape ", "order ", "range ", "coder\n", "RAR ", "\x02", "\x01", "Ü", "0x35 "}
	x := uint32(1)
	for b.Len() < n {
		x = x*1103515245 + 12345
		w := words[(x>>16)%uint32(len(words))]
		b.WriteString(w)
		if x>>28 == 0 {
			fmt.Fprintf(&b, "%d", x)
		}
	}
	return b.Bytes()[:n]
}

// TestWriteRAR3 round-trips samples through the writer and this
// package's decoder. With UNPACK_RAR3_IN and UNPACK_RAR3_OUT set it
// writes UNPACK_RAR3_OUT, an archive of the file UNPACK_RAR3_IN
// (UNPACK_RAR3_ORDER, default 8, and UNPACK_RAR3_MEM in MB, default 128),
// checked the same way.
func TestWriteRAR3(t *testing.T) {
	in, out := os.Getenv("UNPACK_RAR3_IN"), os.Getenv("UNPACK_RAR3_OUT")
	if in != "" && out != "" {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		p := rar3Params{order: envInt(t, "UNPACK_RAR3_ORDER", 8), memMB: envInt(t, "UNPACK_RAR3_MEM", 128), esc: leastUsed(data)}
		packed, err := encodeRAR3PPM(data, p)
		if err != nil {
			t.Fatal(err)
		}
		checkRAR3(t, data, packed)
		name := []byte(in)
		if i := bytes.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if err := os.WriteFile(out, rar3Archive(string(name), data, packed), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, packed %d (order %d, %d MB, escape %#x)", out, len(data), len(packed), p.order, p.memMB, p.esc)
		return
	}
	for _, c := range []struct {
		n     int
		p     rar3Params
		small bool
	}{
		{0, rar3Params{6, 1, 2}, false},
		{1, rar3Params{2, 1, 2}, false},
		{5000, rar3Params{2, 1, 2}, false},
		{20000, rar3Params{8, 1, 2}, false},
		{60000, rar3Params{6, 16, 'Z'}, false},
		{300000, rar3Params{16, 1, 0xFF}, false}, // runs out of memory: restarts
		{100000, rar3Params{64, 2, 2}, false},
	} {
		t.Run(fmt.Sprintf("n%d-o%d-m%d-e%d", c.n, c.p.order, c.p.memMB, c.p.esc), func(t *testing.T) {
			data := rar3Sample(c.n)
			packed, err := encodeRAR3PPM(data, c.p)
			if err != nil {
				t.Fatal(err)
			}
			checkRAR3(t, data, packed)
			if c.n >= 20000 && len(packed) > c.n/2 {
				t.Errorf("packed %d of %d bytes: the model does not predict", len(packed), c.n)
			}
		})
	}
}

// checkRAR3 decodes packed and compares it with data.
func checkRAR3(t *testing.T, data, packed []byte) {
	t.Helper()
	got, err := decodeRAR3PPM(packed)
	if err != nil {
		t.Fatalf("decode after %d of %d bytes: %v", len(got), len(data), err)
	}
	if !bytes.Equal(got, data) {
		i := 0
		for i < len(got) && i < len(data) && got[i] == data[i] {
			i++
		}
		t.Fatalf("decoded %d bytes, want %d; first difference at %d", len(got), len(data), i)
	}
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}
