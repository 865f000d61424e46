package formats

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

const streamDir = "testdata/streams"

// decodeAll opens p (or data from stdin when p is "-") and returns the
// entries' contents by name.
func decodeAll(t testing.TB, p string, stdin io.Reader, oo OpenOptions) (map[string][]byte, *Archive, error) {
	oo.Stdin = stdin
	a, err := Open(p, &archive.Options{}, oo)
	if err != nil {
		return nil, nil, err
	}
	defer a.Close()
	got := map[string][]byte{}
	for {
		e, err := a.Next()
		if err == io.EOF {
			return got, a, nil
		}
		if err != nil {
			return got, a, err
		}
		b, err := io.ReadAll(a)
		if err != nil {
			return got, a, err
		}
		if e.Type == archive.TypeFile {
			got[e.Name] = b
		}
	}
}

func streamFixtures(t testing.TB) []string {
	var out []string
	m, _ := filepath.Glob(filepath.Join(streamDir, "*"))
	for _, p := range m {
		if filepath.Base(p) != "plain.txt" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Skip("no fixtures (scripts/testdata/streams.sh)")
	}
	return out
}

func TestStreams(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join(streamDir, "plain.txt"))
	if err != nil {
		t.Skip(err)
	}
	for _, p := range streamFixtures(t) {
		base := filepath.Base(p)
		t.Run(base, func(t *testing.T) {
			oo := OpenOptions{}
			if strings.HasSuffix(p, ".br") {
				oo.Format = archive.Brotli
			}
			got, a, err := decodeAll(t, p, nil, oo)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(base, "t.tar") {
				if !a.Tar || !bytes.Equal(got["t/plain.txt"], plain) || string(got["t/second.txt"]) != "second\n" {
					t.Fatalf("tar in stream: tar=%v, %d entries", a.Tar, len(got))
				}
				return
			}
			want := plain
			if strings.HasPrefix(base, "twice") {
				want = append(append([]byte{}, plain...), plain...)
			}
			name := archive.StreamEntryName(p, a.Format)
			if !bytes.Equal(got[name], want) {
				t.Fatalf("%s: %d bytes, want %d", name, len(got[name]), len(want))
			}
			// The same through a non-seekable, one-byte-at-a-time stdin.
			data, _ := os.ReadFile(p)
			got2, _, err := decodeAll(t, "-", iotest.OneByteReader(bytes.NewReader(data)), oo)
			if err != nil || !bytes.Equal(got2["stdin.out"], want) {
				t.Fatalf("stdin: %d bytes, %v", len(got2["stdin.out"]), err)
			}
		})
	}
}

// TestStreamsCorrupt flips bits and truncates every fixture: each run must
// end with an error of a category (or, rarely, success when the flip hit
// something unchecked), never a panic or a hang, and truncation must fail.
func TestStreamsCorrupt(t *testing.T) {
	for _, p := range streamFixtures(t) {
		data, _ := os.ReadFile(p)
		oo := OpenOptions{}
		if strings.HasSuffix(p, ".br") {
			oo.Format = archive.Brotli
		}
		for i := 0; i < 24; i++ {
			pos := (i*7919 + 13) % len(data)
			bad := append([]byte{}, data...)
			bad[pos] ^= 1 << (i % 8)
			checkFails(t, p, bad, oo, false)
		}
		for _, cut := range []int{1, 5, len(data) / 3, len(data) - 1} {
			checkFails(t, p, data[:cut], oo, true)
		}
	}
}

func checkFails(t *testing.T, p string, data []byte, oo OpenOptions, mustFail bool) {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, _, err := decodeAll(t, "-", bytes.NewReader(data), oo); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			// Legacy lz4 and .Z have no end marker a cut can miss.
			if mustFail && !strings.Contains(p, "legacy") && !strings.HasSuffix(p, ".Z") {
				t.Errorf("%s (%d bytes): truncated input accepted", p, len(data))
			}
			return
		}
		if !archive.Categorized(err) {
			t.Errorf("%s: uncategorised error %v", p, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: hang", p)
	}
}

func TestNotArchive(t *testing.T) {
	_, _, err := decodeAll(t, "-", strings.NewReader("plain words, no magic"), OpenOptions{})
	if !errors.Is(err, archive.ErrNotArchive) {
		t.Errorf("err = %v", err)
	}
}

func FuzzStreams(f *testing.F) {
	for _, p := range streamFixtures(f) {
		data, _ := os.ReadFile(p)
		if len(data) < 20000 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeAll(t, "-", bytes.NewReader(data), OpenOptions{})
	})
}

func BenchmarkGzip(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(streamDir, "t.tar.gz"))
	if err != nil {
		b.Skip(err)
	}
	plain, _, _ := decodeAll(b, "-", bytes.NewReader(data), OpenOptions{Raw: true})
	b.SetBytes(int64(len(plain["stdin.out"])))
	b.ReportAllocs()
	for b.Loop() {
		decodeAll(b, "-", bytes.NewReader(data), OpenOptions{Raw: true})
	}
}
