package formats

import (
	"bytes"
	"io"
	"os/exec"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestStreamSteadyStateAllocs guards each stream decoder's steady state:
// after the first MiB, reading on allocates (almost) nothing.
func TestStreamSteadyStateAllocs(t *testing.T) {
	testutil.StartsProcess(t)
	if testing.Short() {
		t.Skip("compresses 4 MiB with the reference tools")
	}
	raw := benchText()[:4<<20]
	for _, tc := range []struct {
		f    archive.Format
		tool []string
		max  float64 // allocations per 32 KiB read
	}{
		{archive.Gzip, []string{"gzip", "-6", "-c"}, 0},
		{archive.Zstd, []string{"zstd", "-q", "-3", "-c"}, 1},
		{archive.LZ4, []string{"lz4", "-q", "-c"}, 0},
		{archive.Brotli, []string{"brotli", "-q", "5", "-c"}, 0},
	} {
		t.Run(string(tc.f), func(t *testing.T) {
			cmd := exec.Command(tc.tool[0], tc.tool[1:]...)
			cmd.Stdin = bytes.NewReader(raw)
			packed, err := cmd.Output()
			if err != nil {
				t.Skipf("%s: %v", tc.tool[0], err)
			}
			r, err := streams[tc.f](bytes.NewReader(packed), &archive.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := r.(io.Closer); ok {
				defer c.Close()
			}
			buf := make([]byte, 32<<10)
			if _, err := io.ReadFull(r, make([]byte, 1<<20)); err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(40, func() {
				if _, err := io.ReadFull(r, buf); err != nil {
					t.Fatal(err)
				}
			})
			if allocs > tc.max {
				t.Errorf("%v allocations per 32 KiB read, want at most %v", allocs, tc.max)
			}
		})
	}
}
