package rar4

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// fuzzSeeds returns the single-volume fixtures of testdata of at most max
// bytes.
func fuzzSeeds(tb testing.TB, max int) [][]byte {
	var out [][]byte
	for _, f := range fixtures(tb) {
		if b, err := os.ReadFile(f.path); err == nil && len(b) <= max && !strings.Contains(f.name, ".multi.") {
			out = append(out, b)
		}
	}
	return out
}

// packedSeeds29 returns the packed data of the compressed RAR 2.9 entries
// of the fixtures, for the decoder fuzz target.
func packedSeeds29(tb testing.TB) [][]byte {
	var out [][]byte
	for _, f := range fixtures(tb) {
		if f.password != "" {
			continue
		}
		data, err := os.ReadFile(f.path)
		if err != nil {
			tb.Fatal(err)
		}
		r, err := openBytes(data, nil)
		if err != nil {
			continue
		}
		rr := r.(*reader)
		for {
			e, err := rr.Next()
			if err != nil {
				break
			}
			if rr.stored || e.Type != archive.TypeFile || rr.hdr.unpVer != 29 {
				continue
			}
			b := make([]byte, rr.partLeft)
			n, _ := io.ReadFull(packedSrc{rr}, b)
			if n > 8192 {
				n = 8192
			}
			out = append(out, b[:n])
		}
		r.Close()
	}
	if len(out) == 0 {
		tb.Fatal("no RAR 2.9 entries in the fixtures")
	}
	return out
}

// FuzzReader opens arbitrary bytes as a RAR 4 archive and reads everything.
func FuzzReader(f *testing.F) {
	f.Add(buildArchive(synthFiles))
	for _, s := range fuzzSeeds(f, 64<<10) {
		f.Add(s)
	}
	buf := make([]byte, 32<<10)
	f.Fuzz(func(t *testing.T, data []byte) {
		// No password: each RAR 3 key derivation costs 2^18 SHA-1 rounds,
		// which would starve the fuzzer; decryption is tested elsewhere.
		r, err := openBytes(data, &archive.Options{})
		if err != nil {
			return
		}
		defer r.Close()
		total := 0
		for i := 0; i < 1000; i++ {
			e, err := r.Next()
			if err != nil {
				return
			}
			var got int64
			for total < 4<<20 {
				n, err := r.Read(buf)
				total += n
				got += int64(n)
				if err != nil {
					break
				}
			}
			// No byte past a file's declared size, error or not.
			if e.Type == archive.TypeFile && e.Size >= 0 && got > e.Size {
				t.Fatalf("%s: %d bytes, more than the %d it declares", e.Name, got, e.Size)
			}
		}
	})
}

// FuzzRAR29 decodes arbitrary bytes as a RAR 2.9 stream.
func FuzzRAR29(f *testing.F) {
	f.Add([]byte{0x00})
	f.Add([]byte{0x80, 0x20, 0x05, 0x00, 0x00, 0x00, 0x00})
	for _, s := range packedSeeds29(f) {
		f.Add(s)
	}
	var u unpacker
	u.limit = 64 << 20
	buf := make([]byte, 32<<10)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := u.init(bytes.NewReader(data), 29, false, -1, maxWin); err != nil {
			t.Fatal(err)
		}
		total := 0
		for total < 2<<20 {
			n, err := u.read(buf)
			total += n
			if err != nil {
				return
			}
		}
	})
}

// FuzzRARVMFilters runs the standard filters on arbitrary parameters and
// data, and parses arbitrary filter definitions.
func FuzzRARVMFilters(f *testing.F) {
	f.Add(byte(vmE8), uint32(0), uint32(0), []byte{0xe8, 1, 2, 3, 4, 5, 6, 7, 8}, []byte{0x80})
	f.Add(byte(vmDelta), uint32(3), uint32(0), bytes.Repeat([]byte{1, 2, 3}, 50), []byte{0x20, 0x12, 0x34})
	f.Add(byte(vmRGB), uint32(12), uint32(1), bytes.Repeat([]byte{9, 8, 7}, 40), []byte{0xf0, 0xff, 0xff})
	f.Add(byte(vmAudio), uint32(2), uint32(0), bytes.Repeat([]byte{200, 3}, 90), []byte{0x90, 0x00, 0x01})
	f.Add(byte(vmItanium), uint32(0), uint32(0), bytes.Repeat([]byte{0x10, 0x55}, 40), []byte{0x08})
	mem := make([]byte, 2*vmMemSize+4)
	var u unpacker
	u.init(bytes.NewReader(nil), 29, false, -1, maxWin)
	f.Fuzz(func(t *testing.T, kind byte, r0, r1 uint32, data, def []byte) {
		if len(data) > vmMemSize {
			data = data[:vmMemSize]
		}
		flt := filter29{length: len(data), kind: vmFilterKind(kind % 8)}
		flt.r[0], flt.r[1] = r0, r1
		copy(mem, data)
		out := runVMFilter(&flt, mem, r1)
		if len(out) > len(data) {
			t.Fatalf("filter output %d bytes, want %d", len(out), len(data))
		}
		d := u.dec.(*unpack29)
		if len(def) > 0 {
			d.filt.add(&u, def[0], def[1:])
		}
		u.filters = u.filters[:0]
		if len(d.filt.kinds) > 100 {
			d.filt.reset()
		}
	})
}
