package zstd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/iotest"

	kzstd "github.com/klauspost/compress/zstd"

	"github.com/unpack-dev/unpack/internal/archive"
)

// sample returns n bytes of a kind: text-like words, binary records,
// random, zeros, or a mix of them with long repeats far apart.
func sample(kind string, n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]byte, 0, n+64)
	words := make([]string, 500)
	for i := range words {
		b := make([]byte, 2+r.IntN(8))
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		words[i] = string(b)
	}
	for len(out) < n {
		switch kind {
		case "text":
			out = append(out, words[r.IntN(len(words))]...)
			out = append(out, " \n"[r.IntN(2)])
		case "binary":
			out = append(out, byte(r.IntN(4)), byte(r.IntN(300)), 0xEF, 0xBE, byte(len(out)), byte(len(out)>>8), 0, 0)
		case "random":
			out = append(out, byte(r.Uint32()))
		case "zeros":
			out = append(out, 0)
		default:
			switch k := r.IntN(10); {
			case k < 3 && len(out) > 1<<12:
				// a repeat of earlier output, far or near
				src := r.IntN(len(out))
				l := min(len(out)-src, 4+r.IntN(2000))
				out = append(out, out[src:src+l]...)
			case k < 5:
				for j := r.IntN(100); j > 0; j-- {
					out = append(out, byte(r.Uint32()))
				}
			case k < 6:
				l := 1 + r.IntN(300)
				for j := 0; j < l; j++ {
					out = append(out, byte(len(out)%(1+k)))
				}
			default:
				out = append(out, words[r.IntN(len(words))]...)
				out = append(out, ' ')
			}
		}
	}
	return out[:n]
}

// decodeAll decodes one frame with ours, through Read (chunk > 0) or
// WriteTo (chunk 0).
func decodeAll(t testing.TB, d *Decoder, in io.Reader, chunk int) ([]byte, error) {
	t.Helper()
	if err := d.Reset(in); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if chunk == 0 {
		_, err := d.WriteTo(&out)
		return out.Bytes(), err
	}
	buf := make([]byte, chunk)
	for {
		n, err := d.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
	}
}

// check decodes comp with ours in several ways, every block in two passes
// and every block fused, and compares with want.
func check(t *testing.T, name string, comp, want []byte) {
	t.Helper()
	defer func(f int) { fusedMaxFar = f }(fusedMaxFar)
	for _, fusedMaxFar = range []int{0, 257} {
		checkOnce(t, fmt.Sprintf("%s fusedMaxFar %d", name, fusedMaxFar), comp, want)
	}
}

func checkOnce(t *testing.T, name string, comp, want []byte) {
	t.Helper()
	d := NewDecoder(Options{})
	for _, chunk := range []int{0, 1 << 16, 777} {
		got, err := decodeAll(t, d, bytes.NewReader(comp), chunk)
		if err != nil {
			t.Fatalf("%s chunk %d: %v", name, chunk, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s chunk %d: output differs (%d bytes, want %d) at %d", name, chunk, len(got), len(want), firstDiff(got, want))
		}
	}
	got, err := decodeAll(t, d, iotest.OneByteReader(bytes.NewReader(comp)), 0)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s one-byte reads: %v", name, err)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestKlauspostEncoded decodes what klauspost's encoder writes at each
// level and several windows.
func TestKlauspostEncoded(t *testing.T) {
	for _, kind := range []string{"text", "binary", "random", "zeros", "mix"} {
		raw := sample(kind, 1<<20, 1)
		for _, lvl := range []kzstd.EncoderLevel{kzstd.SpeedFastest, kzstd.SpeedDefault, kzstd.SpeedBetterCompression, kzstd.SpeedBestCompression} {
			for _, win := range []int{1 << 10, 64 << 10, 8 << 20} {
				for _, crc := range []bool{false, true} {
					e, err := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(lvl), kzstd.WithWindowSize(win), kzstd.WithEncoderCRC(crc), kzstd.WithEncoderConcurrency(1))
					if err != nil {
						t.Fatal(err)
					}
					check(t, fmt.Sprintf("%s/%v/%d/%v", kind, lvl, win, crc), e.EncodeAll(raw, nil), raw)
				}
			}
		}
	}
}

// TestZstdCLI decodes what the zstd command writes with several options.
func TestZstdCLI(t *testing.T) {
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("no zstd command")
	}
	dir := t.TempDir()
	for _, kind := range []string{"text", "binary", "mix"} {
		raw := sample(kind, 2<<20, 2)
		src := filepath.Join(dir, kind)
		if err := os.WriteFile(src, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"-1"}, {"-3"}, {"-19"}, {"--ultra", "-22", "--long=27"}, {"-B4096", "--no-check"}, {"-3", "--no-content-size"}} {
			if testing.Short() && len(args) > 1 {
				continue
			}
			cmd := exec.Command("zstd", append(append([]string{"-q", "-c"}, args...), src)...)
			comp, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			check(t, fmt.Sprintf("%s %v", kind, args), comp, raw)
		}
	}
}

// TestFixtures decodes the single-frame zstdframe fixtures.
func TestFixtures(t *testing.T) {
	files, _ := filepath.Glob("../zstdframe/testdata/*.zst")
	k, _ := kzstd.NewReader(nil)
	defer k.Close()
	for _, f := range files {
		comp, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := k.DecodeAll(comp, nil)
		if err != nil || len(comp) < 4 || comp[0] != 0x28 {
			continue // skippable frames first: zstdframe's
		}
		d := NewDecoder(Options{})
		got, err := decodeAll(t, d, bytes.NewReader(comp), 0)
		if err != nil {
			// multi-frame files: ours stops after the first frame
			if len(got) == 0 || !bytes.HasPrefix(want, got) {
				t.Errorf("%s: %v", f, err)
			}
			continue
		}
		if !bytes.HasPrefix(want, got) {
			t.Errorf("%s: output differs", f)
		}
	}
}

// TestErrors checks the error categories of bad frames.
func TestErrors(t *testing.T) {
	e, _ := kzstd.NewWriter(nil, kzstd.WithEncoderCRC(true), kzstd.WithWindowSize(1<<20))
	good := e.EncodeAll(sample("mix", 1<<20, 3), nil)
	d := NewDecoder(Options{MaxWindow: 1 << 16})
	if _, err := decodeAll(t, d, bytes.NewReader(good), 0); !errors.Is(err, archive.ErrLimit) {
		t.Errorf("window over the limit: %v, want ErrLimit", err)
	}
	d = NewDecoder(Options{})
	bad := bytes.Clone(good)
	bad[len(bad)-1] ^= 1
	if _, err := decodeAll(t, d, bytes.NewReader(bad), 0); err != errChecksum {
		t.Errorf("changed checksum: %v", err)
	}
	d = NewDecoder(Options{IgnoreChecksum: true})
	if _, err := decodeAll(t, d, bytes.NewReader(bad), 0); err != nil {
		t.Errorf("changed checksum, ignored: %v", err)
	}
	for cut := 1; cut < len(good); cut += len(good) / 50 {
		if _, err := decodeAll(t, d, bytes.NewReader(good[:cut]), 0); !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
	dict := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x01, 0x00, 0x07}
	if _, err := decodeAll(t, d, bytes.NewReader(dict), 0); !errors.Is(err, archive.ErrUnsupported) {
		t.Errorf("dictionary: %v", err)
	}
}

// TestZeroSequences: a sequence count of 0 in its 2-byte form ends
// the block as the 1-byte form does (zstd's golden zeroSeq_2B.zst).
func TestZeroSequences(t *testing.T) {
	for _, count := range [][]byte{{0}, {0x80, 0}} {
		block := append([]byte{0x18, 'a', 'b', 'c'}, count...)
		h := 1 | 2<<1 | len(block)<<3
		frame := append([]byte{0x28, 0xB5, 0x2F, 0xFD, 0x20, 3, byte(h), byte(h >> 8), byte(h >> 16)}, block...)
		got, err := decodeAll(t, NewDecoder(Options{}), bytes.NewReader(frame), 0)
		if err != nil || string(got) != "abc" {
			t.Errorf("count %x: %q, %v", count, got, err)
		}
	}
}

// TestContentSizeShort: a block that decodes to more than the frame's
// declared content has left is refused before it is written (the buffer
// holds only the declared content).
func TestContentSizeShort(t *testing.T) {
	e, _ := kzstd.NewWriter(nil, kzstd.WithSingleSegment(true))
	comp := e.EncodeAll(bytes.Repeat(sample("text", 100, 1), 10), nil)
	if comp[4]>>6 != 1 {
		t.Fatalf("frame header %x: want a 2-byte content size", comp[4])
	}
	comp[5], comp[6] = 44, 0 // 300 bytes
	if _, err := decodeAll(t, NewDecoder(Options{}), bytes.NewReader(comp), 0); err != errBlockSize {
		t.Errorf("content size 300 for 1000: %v, want errBlockSize", err)
	}
}
