package formats

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// writeAll opens p as the CLI does for -c (Raw) or for extraction and
// writes the one entry's data with Archive.WriteTo.
func writeAll(t *testing.T, p string, w io.Writer, oo OpenOptions) (int64, error) {
	t.Helper()
	if strings.HasSuffix(p, ".br") {
		oo.Format = archive.Brotli
	}
	a, err := Open(p, &archive.Options{}, oo)
	if err != nil {
		return 0, err
	}
	defer a.Close()
	if _, err := a.Next(); err != nil {
		return 0, err
	}
	return a.WriteTo(w)
}

// TestStreamsWriteTo checks that every single stream written with
// Archive.WriteTo (the path of x -c) gives the bytes Read gives, raw and
// through the tar peek.
func TestStreamsWriteTo(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join(streamDir, "plain.txt"))
	if err != nil {
		t.Skip(err)
	}
	for _, p := range streamFixtures(t) {
		base := filepath.Base(p)
		if strings.HasPrefix(base, "t.tar") {
			continue
		}
		want := plain
		if strings.HasPrefix(base, "twice") {
			want = append(append([]byte{}, plain...), plain...)
		}
		for _, raw := range []bool{true, false} {
			var got bytes.Buffer
			n, err := writeAll(t, p, &got, OpenOptions{Raw: raw})
			if err != nil || n != int64(len(want)) || !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s raw=%v: %d bytes (%d written), %v", base, raw, got.Len(), n, err)
			}
		}
	}
}

// TestStreamsWriteToSinkError checks that an error of the sink's writer (a
// closed pipe, a full disk) comes back as it is, not taken for corrupt
// data, while a decoder's error is still classified.
func TestStreamsWriteToSinkError(t *testing.T) {
	errSink := errors.New("sink failed")
	for _, p := range streamFixtures(t) {
		if strings.HasPrefix(filepath.Base(p), "t.tar") {
			continue
		}
		_, err := writeAll(t, p, &testutil.FailWriter{N: 1000, Err: errSink}, OpenOptions{Raw: true})
		if !errors.Is(err, errSink) || archive.Categorized(err) {
			t.Errorf("%s: err = %v, want the sink's error unchanged", filepath.Base(p), err)
		}
	}
	// A truncated lz4 stream fails in the decoder: a categorised error.
	data, err := os.ReadFile(filepath.Join(streamDir, "plain.txt.lz4"))
	if err != nil {
		t.Skip(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.lz4")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := writeAll(t, cut, io.Discard, OpenOptions{Raw: true}); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("truncated: err = %v, want archive.ErrCorrupt", err)
	}
}

// TestStreamWriteToAllocs guards the steady state of the x -c path for the
// decoders that write from their own buffers: writing a whole stream
// allocates as much for 16 MiB as for 4 MiB (set-up only, nothing per
// block or per write).
func TestStreamWriteToAllocs(t *testing.T) {
	testutil.StartsProcess(t)
	if testing.Short() {
		t.Skip("compresses 16 MiB with the reference tools")
	}
	raw := benchText()
	for _, tool := range [][]string{{"lz4", "-q", "-c"}, {"zstd", "-q", "-3", "-c"}} {
		t.Run(tool[0], func(t *testing.T) {
			if _, err := exec.LookPath(tool[0]); err != nil {
				t.Skip(err)
			}
			allocs := func(n int) float64 {
				cmd := exec.Command(tool[0], tool[1:]...)
				cmd.Stdin = bytes.NewReader(raw[:n])
				packed, err := cmd.Output()
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(t.TempDir(), "s."+tool[0])
				if err := os.WriteFile(p, packed, 0o644); err != nil {
					t.Fatal(err)
				}
				return testing.AllocsPerRun(3, func() {
					if got, err := writeAll(t, p, io.Discard, OpenOptions{Raw: true}); err != nil || got != int64(n) {
						t.Fatal(got, err)
					}
				})
			}
			small, large := allocs(4<<20), allocs(16<<20)
			t.Logf("%v allocations for 4 MiB, %v for 16 MiB", small, large)
			if large > small+4 {
				t.Errorf("%v allocations for 4 MiB, %v for 16 MiB: allocations grow with the stream", small, large)
			}
		})
	}
}
