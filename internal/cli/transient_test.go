package cli

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// failOnce returns iotest.ErrTimeout once, after at bytes, then reads on.
type failOnce struct {
	r      io.Reader
	at, n  int
	failed bool
}

func (f *failOnce) Read(p []byte) (int, error) {
	if !f.failed && f.n >= f.at {
		f.failed = true
		return 0, iotest.ErrTimeout
	}
	if len(p) > 4096 {
		p = p[:4096]
	}
	n, err := f.r.Read(p)
	f.n += n
	return n, err
}

// TestTransientReadError: a read error on standard input, even one that
// would go away on retry, is not retried. The entry in flight fails as an
// I/O error (exit 1, the error named, not "corrupt data"), nothing is left
// half-written, and the run stops rather than guess where the stream is.
func TestTransientReadError(t *testing.T) {
	var entries []tarEntry
	for _, n := range []string{"a", "b", "c", "d"} {
		entries = append(entries, tarEntry{name: n + ".bin", body: strings.Repeat(n+" is for data ", 20000)})
	}
	plain := makeTar(t, entries)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"tar", plain},
		{"tar.gz", gz(t, plain)},
		{"tar.zst", zst(t, plain)},
	} {
		for _, at := range []int{0, len(tc.data) / 2} {
			dest := filepath.Join(t.TempDir(), "out")
			code, _, stderr := run(t, &failOnce{r: bytes.NewReader(tc.data), at: at}, "x", "-", "-o", dest)
			if code != ExitError || !strings.Contains(stderr, "timeout") || strings.Contains(stderr, "corrupt") {
				t.Errorf("%s, error at %d: exit %d\n%s", tc.name, at, code, stderr)
			}
			leftovers(t, dest)
		}
	}
}
