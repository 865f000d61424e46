package xz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"
)

// testBlock is a block for buildXZ: its content, whether its header
// carries both sizes and whether every LZMA2 chunk resets the dictionary
// (valid, but not decodable in place: parallel decoding falls back to a
// window).
type testBlock struct {
	data   []byte
	sized  bool
	resets bool
}

func putVLI(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// buildXZ writes a CRC32-checked stream whose blocks hold their content as
// uncompressed LZMA2 chunks (4 KiB dictionary).
func buildXZ(blocks []testBlock) []byte {
	out := append([]byte(nil), headerMagic...)
	flags := []byte{0, 1}
	out = append(out, flags...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(flags))
	type rec struct{ unpadded, size uint64 }
	var recs []rec
	for _, b := range blocks {
		var lz []byte
		for i, ctrl := 0, byte(1); i < len(b.data); i = i + 60000 {
			n := min(60000, len(b.data)-i)
			lz = append(lz, ctrl, byte((n-1)>>8), byte(n-1))
			lz = append(lz, b.data[i:i+n]...)
			if !b.resets {
				ctrl = 2
			}
		}
		lz = append(lz, 0)
		h := []byte{0, 0}
		if b.sized {
			h[1] = 0xC0
			h = putVLI(h, uint64(len(lz)))
			h = putVLI(h, uint64(len(b.data)))
		}
		h = append(h, idLZMA2, 1, 0) // filter LZMA2, 1 property byte, 4 KiB
		for len(h)%4 != 0 {
			h = append(h, 0)
		}
		h[0] = byte((len(h)+4)/4 - 1)
		h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h))
		out = append(out, h...)
		out = append(out, lz...)
		for pad := (len(h) + len(lz)) % 4; pad != 0 && pad < 4; pad++ {
			out = append(out, 0)
		}
		out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(b.data))
		recs = append(recs, rec{uint64(len(h)) + uint64(len(lz)) + 4, uint64(len(b.data))})
	}
	idx := []byte{0}
	idx = putVLI(idx, uint64(len(recs)))
	for _, r := range recs {
		idx = putVLI(idx, r.unpadded)
		idx = putVLI(idx, r.size)
	}
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	out = append(out, idx...)
	foot := binary.LittleEndian.AppendUint32(nil, uint32(len(idx)/4-1))
	foot = append(foot, flags...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(foot))
	out = append(out, foot...)
	return append(out, footerMagic...)
}

// TestMixedBlocks decodes streams mixing blocks with and without sizes, with
// memory limits that let one, two or all blocks be in flight, so parallel
// decoding hands over to streaming and waits for room.
func TestMixedBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for iter := range 40 {
		var blocks []testBlock
		var want []byte
		for range 1 + r.IntN(12) {
			d := make([]byte, r.IntN(100000))
			for i := range d {
				d[i] = byte(r.IntN(16))
			}
			blocks = append(blocks, testBlock{d, r.IntN(4) != 0, r.IntN(3) == 0})
			want = append(want, d...)
		}
		file := buildXZ(blocks)
		for _, limit := range []int64{250 << 10, 500 << 10, 1 << 30} {
			for _, threads := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("%d/limit=%d/threads=%d", iter, limit, threads), func(t *testing.T) {
					z, err := NewReader(bytes.NewReader(file), Config{Threads: threads, MemLimit: limit})
					if err != nil {
						t.Fatal(err)
					}
					defer z.Close()
					got, err := io.ReadAll(z)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("got %d bytes, want %d", len(got), len(want))
					}
				})
			}
		}
	}
}

// TestSizeExceeded: a block that decodes to more than the uncompressed
// size its header declares hands out no byte past that size, only
// ErrBlockSize: through Read (in one call or byte by byte) and WriteTo,
// decoded in the stream or in parallel (which gives none of the block).
func TestSizeExceeded(t *testing.T) {
	file := buildXZ([]testBlock{{data: []byte("0123456789abcdef"), sized: true}})
	h := file[12:]
	h = h[:(int(h[0])+1)*4]
	if h[1] != 0xC0 || h[3] != 16 {
		t.Fatalf("block header % x", h)
	}
	h[3] = 6
	binary.LittleEndian.PutUint32(h[len(h)-4:], crc32.ChecksumIEEE(h[:len(h)-4]))
	for _, threads := range []int{1, 2} {
		for _, chunk := range []int{1 << 20, 1, 0} {
			z, err := NewReader(bytes.NewReader(file), Config{Threads: threads, MemLimit: 64 << 20})
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			if chunk == 0 {
				var b bytes.Buffer
				_, err = z.WriteTo(&b)
				got = b.Bytes()
			} else {
				buf := make([]byte, chunk)
				for {
					var n int
					n, err = z.Read(buf)
					got = append(got, buf[:n]...)
					if err != nil {
						break
					}
				}
			}
			z.Close()
			if !errors.Is(err, ErrBlockSize) {
				t.Errorf("threads %d, chunk %d: error %v, want ErrBlockSize", threads, chunk, err)
			}
			if want := "012345"; string(got) != want && (threads == 1 || len(got) != 0) {
				t.Errorf("threads %d, chunk %d: handed out %q, want the declared %q", threads, chunk, got, want)
			}
		}
	}
}
