package verify

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"
)

// BenchmarkHashBeside measures whether hashing beside decoding, on a
// second goroutine with double buffering, beats hashing inline after each
// Read. The "decoder" is compress/flate over 32 MiB of compressible bytes
// (about the speed of RAR 5's LZ decoder) and the hash BLAKE2sp, the
// costliest of the formats' checksums. It reports wall time (ns/op) and the
// process CPU time per decode (cpu-ms/op). The finding is recorded in
// docs/BENCHMARKS.md under "Checksums".
func BenchmarkHashBeside(b *testing.B) {
	const size = 32 << 20
	raw := make([]byte, size)
	for i := range raw {
		raw[i] = byte(i*i>>9) ^ byte(i>>13)
	}
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, 6)
	fw.Write(raw)
	fw.Close()
	comp := z.Bytes()
	h := New(BLAKE2sp)
	h.Write(raw)
	want := h.Sum(nil)
	const chunk = 256 << 10

	run := func(b *testing.B, decode func(io.Reader) []byte) {
		src := bytes.NewReader(comp)
		fr := flate.NewReader(src)
		b.SetBytes(size)
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			src.Reset(comp)
			fr.(flate.Resetter).Reset(src, nil)
			if got := decode(fr); !bytes.Equal(got, want) {
				b.Fatal("digest differs")
			}
		}
		if c0 > 0 {
			b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		}
	}
	b.Run("inline", func(b *testing.B) {
		buf := make([]byte, chunk)
		run(b, func(r io.Reader) []byte {
			h.Reset()
			for {
				n, err := io.ReadFull(r, buf)
				h.Write(buf[:n])
				if err != nil {
					return h.Sum(nil)
				}
			}
		})
	})
	b.Run("beside", func(b *testing.B) {
		bufs := [2][]byte{make([]byte, chunk), make([]byte, chunk)}
		run(b, func(r io.Reader) []byte {
			h.Reset()
			full := make(chan int, 1) // length of the buffer handed to the hasher
			free := make(chan int, 2) // buffers the decoder may fill
			done := make(chan []byte)
			free <- 0
			free <- 1
			go func() {
				i := 0
				for n := range full {
					h.Write(bufs[i][:n])
					free <- i
					i ^= 1
				}
				done <- h.Sum(nil)
			}()
			for {
				i := <-free
				n, err := io.ReadFull(r, bufs[i])
				full <- n
				if err != nil {
					close(full)
					return <-done
				}
			}
		})
	})
}
