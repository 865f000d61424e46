package cli

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestStreamOutputPath runs x -c and t over single streams whose decoders
// write from their own buffers (lz4, zst) and one copied through a buffer
// (gz): the output is exact, and --max-size and --max-ratio stop the
// stream with exit 5 before more than the limit reaches stdout.
func TestStreamOutputPath(t *testing.T) {
	testutil.StartsProcess(t)
	raw := bytes.Repeat([]byte("the stream output path, written without a copy\n"), 200_000) // ~9.4 MiB
	for _, tool := range [][]string{{"lz4", "-q", "-c"}, {"zstd", "-q", "-c"}, {"gzip", "-c"}} {
		t.Run(tool[0], func(t *testing.T) {
			if _, err := exec.LookPath(tool[0]); err != nil {
				t.Skip(err)
			}
			cmd := exec.Command(tool[0], tool[1:]...)
			cmd.Stdin = bytes.NewReader(raw)
			packed, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			arch := write(t, t.TempDir(), "s."+map[string]string{"lz4": "lz4", "zstd": "zst", "gzip": "gz"}[tool[0]], packed)
			code, out, stderr := run(t, nil, "x", "-c", arch)
			if code != ExitOK || out != string(raw) {
				t.Fatalf("x -c: exit %d, %d bytes of %d, %s", code, len(out), len(raw), stderr)
			}
			if code, _, stderr := run(t, nil, "t", arch); code != ExitOK {
				t.Fatalf("t: exit %d, %s", code, stderr)
			}
			for _, tc := range []struct {
				flags []string
				max   int
				msg   string
			}{
				{[]string{"--max-size", "1M"}, 1 << 20, "output exceeds 1.0 MiB"},
				{[]string{"--max-ratio", "2"}, 1<<20 + 2*len(packed), "decompression bomb"},
			} {
				code, out, stderr := run(t, nil, append([]string{"x", "-c", arch}, tc.flags...)...)
				if code != ExitUnsupported || !strings.Contains(stderr, tc.msg) {
					t.Errorf("%v: exit %d, %q", tc.flags, code, stderr)
				}
				if len(out) > tc.max || !strings.HasPrefix(string(raw), out) {
					t.Errorf("%v: %d bytes written, at most %d of the stream's", tc.flags, len(out), tc.max)
				}
			}
		})
	}
}
