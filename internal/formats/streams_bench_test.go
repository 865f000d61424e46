package formats

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// benchText is 16 MiB of text like scripts/bench.sh's text workload.
func benchText() []byte {
	r := rand.New(rand.NewPCG(3, 4))
	words := make([]string, 3000)
	for i := range words {
		w := make([]byte, 2+r.IntN(8))
		for j := range w {
			w[j] = "etaoinshrdlucmfwypvbgkjqxz"[r.IntN(26)]
		}
		words[i] = string(w)
	}
	var b bytes.Buffer
	for b.Len() < 16<<20 {
		for k := 4 + r.IntN(12); k > 0; k-- {
			if r.IntN(10) < 7 {
				b.WriteString(words[r.IntN(200)])
			} else {
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkStreams decodes benchText compressed by each reference tool
// through the format's StreamOpener, as the CLI does.
func BenchmarkStreams(b *testing.B) {
	testutil.StartsProcess(b)
	raw := benchText()
	for _, tc := range []struct {
		f    archive.Format
		tool []string
	}{
		{archive.Gzip, []string{"gzip", "-6", "-c"}},
		{archive.Zstd, []string{"zstd", "-q", "-19", "-c"}},
		{archive.LZ4, []string{"lz4", "-q", "-9", "-c"}},
		{archive.Brotli, []string{"brotli", "-q", "9", "-c"}},
	} {
		b.Run(string(tc.f), func(b *testing.B) {
			cmd := exec.Command(tc.tool[0], tc.tool[1:]...)
			cmd.Stdin = bytes.NewReader(raw)
			packed, err := cmd.Output()
			if err != nil {
				b.Skipf("%s: %v", tc.tool[0], err)
			}
			buf := make([]byte, 1<<20)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := streams[tc.f](bytes.NewReader(packed), &archive.Options{})
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(io.Discard, r, buf)
				if err != nil || n != int64(len(raw)) {
					b.Fatal(n, err)
				}
				if c, ok := r.(io.Closer); ok {
					c.Close()
				}
			}
		})
	}
}
