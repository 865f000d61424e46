package chm

import (
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/unpack-dev/unpack/internal/codec/lzx"
)

// A CHM writer for the tests: section 1 in stored LZX blocks, one per
// reset interval, with E8 translation when asked, a reset table listing
// every frame's compressed offset, and a one-chunk directory.

type chmFile struct {
	name string
	data []byte
}

type chmSpec struct {
	frames int   // per reset interval
	e8     int32 // translation size; 0: off
	// table edits the reset table (header and entries) before it is
	// written.
	table func(rt []byte)
	// content edits the compressed section.
	content func(c []byte)
}

// e8Encode applies the encoder's E8 translation to one frame of a
// stream, pos its offset in the stream (the reset interval).
func e8Encode(b []byte, pos int64, size int32) {
	for i := 0; i < len(b)-10; {
		if b[i] != 0xE8 {
			i++
			continue
		}
		cur := int32(pos + int64(i))
		rel := int32(binary.LittleEndian.Uint32(b[i+1:]))
		if rel >= -cur && rel < size-cur {
			binary.LittleEndian.PutUint32(b[i+1:], uint32(rel+cur))
		} else if rel >= size-cur && rel < size {
			binary.LittleEndian.PutUint32(b[i+1:], uint32(rel-size))
		}
		i += 5
	}
}

// lzxStored codes the uncompressed section u as stored blocks, one per
// reset interval, and returns it with each frame's compressed offset.
func lzxStored(u []byte, frames int, e8 int32) ([]byte, []uint64) {
	var c []byte
	var offs []uint64
	ilen := frames * lzx.FrameSize
	for lo := 0; lo < len(u); lo += ilen {
		iv := append([]byte(nil), u[lo:min(lo+ilen, len(u))]...)
		if e8 != 0 {
			for f := 0; f < len(iv); f += lzx.FrameSize {
				e8Encode(iv[f:min(f+lzx.FrameSize, len(iv))], int64(f), e8)
			}
		}
		start := len(c)
		// Header bits, most significant first in 16-bit little-endian
		// words: translation flag (and size), block type 3, 24-bit size,
		// then padding to the word.
		var acc uint64
		var n uint
		put := func(v uint64, k uint) { acc = acc<<k | v; n += k }
		if e8 != 0 {
			put(1, 1)
			put(uint64(uint32(e8)), 32)
		} else {
			put(0, 1)
		}
		put(3, 3)
		put(uint64(len(iv)), 24)
		put(0, (16-n%16)%16)
		for k := n; k > 0; k -= 16 {
			c = binary.LittleEndian.AppendUint16(c, uint16(acc>>(k-16)))
		}
		for range 3 {
			c = binary.LittleEndian.AppendUint32(c, 1)
		}
		data := len(c)
		c = append(c, iv...)
		if len(iv)&1 != 0 {
			c = append(c, 0)
		}
		for f := 0; f < len(iv); f += lzx.FrameSize {
			if f == 0 {
				offs = append(offs, uint64(start))
			} else {
				offs = append(offs, uint64(data+f))
			}
		}
	}
	return c, offs
}

func encintOf(v uint64) []byte {
	b := []byte{byte(v & 0x7F)}
	for v >>= 7; v > 0; v >>= 7 {
		b = append([]byte{byte(v&0x7F) | 0x80}, b...)
	}
	return b
}

// buildCHM writes a CHM holding files in section 1, in order.
func buildCHM(t testing.TB, files []chmFile, spec chmSpec) []byte {
	t.Helper()
	var u []byte
	type ent struct {
		name           string
		sec, off, size uint64
	}
	var ents []ent
	for _, f := range files {
		ents = append(ents, ent{f.name, 1, uint64(len(u)), uint64(len(f.data))})
		u = append(u, f.data...)
	}
	content, offs := lzxStored(u, spec.frames, spec.e8)
	if spec.content != nil {
		spec.content(content)
	}
	control := make([]byte, 0x1C)
	binary.LittleEndian.PutUint32(control, 6)
	copy(control[4:], "LZXC")
	binary.LittleEndian.PutUint32(control[8:], 2)
	binary.LittleEndian.PutUint32(control[0x0C:], uint32(spec.frames))
	binary.LittleEndian.PutUint32(control[0x10:], 2) // 64 KiB window
	binary.LittleEndian.PutUint32(control[0x14:], 1)
	rt := make([]byte, 0x28+8*len(offs))
	binary.LittleEndian.PutUint32(rt, 2)
	binary.LittleEndian.PutUint32(rt[4:], uint32(len(offs)))
	binary.LittleEndian.PutUint32(rt[8:], 8)
	binary.LittleEndian.PutUint32(rt[0x0C:], 0x28)
	binary.LittleEndian.PutUint64(rt[0x10:], uint64(len(u)))
	binary.LittleEndian.PutUint64(rt[0x18:], uint64(len(content)))
	binary.LittleEndian.PutUint64(rt[0x20:], lzx.FrameSize)
	for i, o := range offs {
		binary.LittleEndian.PutUint64(rt[0x28+8*i:], o)
	}
	if spec.table != nil {
		spec.table(rt)
	}
	var s0 []byte
	for _, p := range []struct {
		name string
		b    []byte
	}{{nameControl, control}, {nameReset, rt}, {nameContent, content}} {
		ents = append(ents, ent{p.name, 0, uint64(len(s0)), uint64(len(p.b))})
		s0 = append(s0, p.b...)
	}
	const chunk = 1 << 16
	var list []byte
	for _, e := range ents {
		list = append(list, encintOf(uint64(len(e.name)))...)
		list = append(list, e.name...)
		for _, v := range []uint64{e.sec, e.off, e.size} {
			list = append(list, encintOf(v)...)
		}
	}
	if len(list) > chunk-0x14 {
		t.Fatal("directory too large")
	}
	pmgl := make([]byte, chunk)
	copy(pmgl, "PMGL")
	binary.LittleEndian.PutUint32(pmgl[4:], uint32(chunk-0x14-len(list)))
	copy(pmgl[0x14:], list)
	itsp := make([]byte, 0x54)
	copy(itsp, "ITSP")
	binary.LittleEndian.PutUint32(itsp[4:], 1)
	binary.LittleEndian.PutUint32(itsp[8:], 0x54)
	binary.LittleEndian.PutUint32(itsp[0x10:], chunk)
	binary.LittleEndian.PutUint32(itsp[0x2C:], 1)
	h := make([]byte, 0x60)
	copy(h, "ITSF")
	binary.LittleEndian.PutUint32(h[4:], 3)
	binary.LittleEndian.PutUint32(h[8:], 0x60)
	dirLen := uint64(len(itsp) + len(pmgl))
	binary.LittleEndian.PutUint64(h[0x48:], 0x60)
	binary.LittleEndian.PutUint64(h[0x50:], dirLen)
	binary.LittleEndian.PutUint64(h[0x58:], 0x60+dirLen)
	out := append(h, itsp...)
	out = append(out, pmgl...)
	return append(out, s0...)
}

// testFiles returns n files of random sizes up to max, with x86-like
// calls (E8 and an operand) among text.
func testFiles(n, max int, seed int64) []chmFile {
	r := rand.New(rand.NewSource(seed))
	var fs []chmFile
	for i := range n {
		var b []byte
		size := r.Intn(max)
		for len(b) < size {
			if r.Intn(3) == 0 {
				b = append(b, 0xE8)
				b = binary.LittleEndian.AppendUint32(b, uint32(r.Intn(200000)-100000))
			} else {
				b = append(b, "<p>help page text "...)
			}
		}
		fs = append(fs, chmFile{name: "/f" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".html", data: b[:size]})
	}
	return fs
}
