package zstd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"
)

// FuzzDecoder decodes arbitrary frames with ours and with klauspost's
// decoder as the oracle: where klauspost decodes a frame, ours must give
// the same bytes (ours may refuse more: it checks offsets against the
// window as libzstd does).
func FuzzDecoder(f *testing.F) {
	files, _ := filepath.Glob("../zstdframe/testdata/*.zst")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 1<<16 {
			f.Add(b)
		}
	}
	for _, kind := range []string{"text", "binary", "mix"} {
		raw := sample(kind, 20000, 9)
		for _, lvl := range []kzstd.EncoderLevel{kzstd.SpeedFastest, kzstd.SpeedBestCompression} {
			e, _ := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(lvl), kzstd.WithWindowSize(1<<10), kzstd.WithEncoderCRC(true))
			f.Add(e.EncodeAll(raw, nil))
		}
	}
	k, err := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1), kzstd.WithDecoderMaxWindow(1<<20), kzstd.WithDecoderMaxMemory(1<<24))
	if err != nil {
		f.Fatal(err)
	}
	d := NewDecoder(Options{MaxWindow: 1 << 20})
	defer func(f int) { fusedMaxFar = f }(fusedMaxFar)
	f.Fuzz(func(t *testing.T, in []byte) {
		// every block in two passes, then every block fused
		for _, fusedMaxFar = range []int{0, 257} {
			if err := d.Reset(bytes.NewReader(in)); err != nil {
				return
			}
			var out bytes.Buffer
			if _, err := d.WriteTo(&limitWriter{w: &out, n: 1 << 22}); err != nil {
				continue // refused, or cut short by the limit
			}
			got := out.Bytes()
			// ours read one whole frame: the oracle gets that frame alone
			want, kerr := k.DecodeAll(in[:len(in)-remaining(d)], nil)
			if kerr == nil && !bytes.Equal(got, want) {
				t.Fatalf("fusedMaxFar %d: output differs from klauspost's (%d vs %d bytes)", fusedMaxFar, len(got), len(want))
			}
		}
	})
}

// remaining is how many input bytes d's reader still holds.
func remaining(d *Decoder) int {
	if r, ok := d.r.(*bytes.Reader); ok {
		return r.Len()
	}
	return 0
}

// limitWriter fails past n bytes, bounding what a fuzz input may expand to.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, io.ErrShortWrite
	}
	l.n -= len(p)
	return l.w.Write(p)
}
