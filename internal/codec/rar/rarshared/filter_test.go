package rarshared

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// patternData returns n bytes of deterministic, mildly compressible data.
func patternData(n int, seed uint32) []byte {
	b := make([]byte, n)
	x := seed | 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x%23) + 'a'
	}
	return b
}

// refE8 is a byte-at-a-time reference of E8, as unrar writes the RAR 3 VM
// standard filter (wrap false) and the RAR 5 filter (wrap true).
func refE8(buf []byte, offset uint32, e9, wrap bool) {
	const fileSize = 0x1000000
	cmp2 := byte(0xe8)
	if e9 {
		cmp2 = 0xe9
	}
	for i := 0; i+4 < len(buf); {
		c := buf[i]
		i++
		if c != 0xe8 && c != cmp2 {
			continue
		}
		off := uint32(i) + offset
		if wrap {
			off %= fileSize
		}
		addr := binary.LittleEndian.Uint32(buf[i:])
		if addr&0x80000000 != 0 {
			if (addr+off)&0x80000000 == 0 {
				binary.LittleEndian.PutUint32(buf[i:], addr+fileSize)
			}
		} else if (addr-fileSize)&0x80000000 != 0 {
			binary.LittleEndian.PutUint32(buf[i:], addr-off)
		}
		i += 4
	}
}

// TestE8Reference cross-checks the IndexByte scan of E8 with the byte
// loop, below and past 16 MiB where RAR 3 and RAR 5 part.
func TestE8Reference(t *testing.T) {
	for _, wrap := range []bool{false, true} {
		for _, offset := range []uint32{12345, 0x1000000 - 3, 0x3000010} {
			for _, e9 := range []bool{false, true} {
				for _, n := range []int{0, 4, 5, 6, 9, 100, 5000} {
					src := patternData(n, uint32(n))
					for i := 0; i < n; i += 7 {
						src[i] = 0xe8 + byte(i%2)
						if i+4 < n && i%3 == 0 {
							// A small positive address, changed by the
							// position (and so by the wrap).
							binary.LittleEndian.PutUint32(src[i+1:], 0x00123456)
						}
					}
					if n > 3 {
						src[n-3] = 0xe8
					}
					a, b := bytes.Clone(src), bytes.Clone(src)
					refE8(a, offset, e9, wrap)
					E8(b, offset, e9, wrap)
					if !bytes.Equal(a, b) {
						t.Fatalf("wrap=%v offset=%#x e9=%v n=%d: differs from the reference", wrap, offset, e9, n)
					}
				}
			}
		}
	}
}

// TestE8Wrap shows the one difference between the generations: past
// 16 MiB, RAR 5 takes the position modulo 16 MiB and RAR 3 does not.
func TestE8Wrap(t *testing.T) {
	in := []byte{0xe8, 0x00, 0x00, 0x20, 0x00, 0}
	rar3, rar5 := bytes.Clone(in), bytes.Clone(in)
	E8(rar3, 0x1000000, false, false)
	E8(rar5, 0x1000000, false, true)
	// Address 0x200000 minus the position 0x1000001 (RAR 3) or 1 (RAR 5).
	addr := uint32(0x200000)
	if got := binary.LittleEndian.Uint32(rar3[1:]); got != addr-0x1000001 {
		t.Errorf("RAR 3: %#x", got)
	}
	if got := binary.LittleEndian.Uint32(rar5[1:]); got != addr-1 {
		t.Errorf("RAR 5: %#x", got)
	}
}

// refUndelta is the plain reading of the DELTA filter.
func refUndelta(dst, src []byte, ch int) {
	s := 0
	for c := 0; c < ch; c++ {
		var prev byte
		for d := c; d < len(src); d += ch {
			prev -= src[s]
			s++
			dst[d] = prev
		}
	}
}

// TestUndelta checks Undelta against refUndelta for lengths that do and
// do not divide by the channel count.
func TestUndelta(t *testing.T) {
	src := patternData(3001, 9)
	for _, ch := range []int{1, 2, 3, 4, 7, 32, 1024, 5000} {
		for _, n := range []int{0, 1, 2, 5, 64, 1000, 3001} {
			want, got := make([]byte, n), make([]byte, n+8)
			refUndelta(want, src[:n], ch)
			Undelta(got, src[:n], ch)
			if !bytes.Equal(want, got[:n]) {
				t.Fatalf("channels %d, length %d: differs", ch, n)
			}
		}
	}
}

func BenchmarkFilters(b *testing.B) {
	data := patternData(1<<20, 1)
	for i := 0; i < len(data); i += 97 {
		data[i] = 0xe8
	}
	dst := make([]byte, len(data))
	b.Run("e8e9", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			E8(data, 0, true, true)
		}
	})
	b.Run("delta4", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			Undelta(dst, data, 4)
		}
	})
}
