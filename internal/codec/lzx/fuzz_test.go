package lzx

import (
	"encoding/binary"
	"testing"
)

// FuzzLZX decodes arbitrary input as a stream of frames. The first byte
// picks the variant and window; each frame is a 2-byte output size, a
// 2-byte compressed size and the compressed bytes (at most 8 frames, to
// keep each run short).
func FuzzLZX(f *testing.F) {
	frame := func(seed []byte, out int, src []byte) []byte {
		seed = binary.LittleEndian.AppendUint16(seed, uint16(out))
		seed = binary.LittleEndian.AppendUint16(seed, uint16(len(src)))
		return append(seed, src...)
	}
	data := testData(3*FrameSize+100, 9)
	for _, bits := range []int{15, 17} {
		seed := []byte{byte(bits - MinWindowBits)}
		for i, fr := range encodeCAB(data, bits, 12000000, 9) {
			seed = frame(seed, min(FrameSize, len(data)-i*FrameSize)-1, fr)
		}
		f.Add(seed)
	}
	blobs, chunk := readWIM(f, "testdata/lzx-32k.wim")
	for _, bl := range blobs[:1] {
		seed := []byte{0x80}
		for _, c := range bl.chunks[:min(3, len(bl.chunks))] {
			if len(c.data) < c.size && chunk == 1<<15 {
				seed = frame(seed, c.size-1, c.data)
			}
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 1 {
			return
		}
		v := CAB
		if in[0]&0x80 != 0 {
			v = WIM
		}
		bits := MinWindowBits + int(in[0]&0x7F)%(MaxWindowBits-MinWindowBits+1)
		d, err := NewDecoder(bits, v)
		if err != nil {
			t.Fatal(err)
		}
		in = in[1:]
		out := make([]byte, max(1<<bits, 1<<16))
		for k := 0; k < 8 && len(in) >= 4; k++ {
			n := int(binary.LittleEndian.Uint16(in)) + 1
			m := min(int(binary.LittleEndian.Uint16(in[2:])), len(in)-4)
			src := in[4 : 4+m]
			in = in[4+m:]
			used, err := d.Decode(out[:n], src)
			if err != nil {
				return
			}
			if used > len(src) {
				t.Fatalf("used %d of %d bytes", used, len(src))
			}
		}
	})
}

func BenchmarkDecodeCAB(b *testing.B) {
	data := testData(1<<20, 11)
	frames := encodeCAB(data, 21, 12000000, 11)
	d, _ := NewDecoder(21, CAB)
	out := make([]byte, FrameSize)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d.Reset()
		for i, f := range frames {
			if _, err := d.Decode(out[:min(FrameSize, len(data)-i*FrameSize)], f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkDecodeWIM(b *testing.B) {
	blobs, chunk := readWIM(b, "testdata/lzx-32k.wim")
	d, _ := NewDecoder(bitsOf(chunk), WIM)
	var size int64
	for _, bl := range blobs {
		size += int64(bl.size)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, bl := range blobs {
			if _, err := decodeWIMBlob(d, bl); err != nil {
				b.Fatal(err)
			}
		}
	}
}
