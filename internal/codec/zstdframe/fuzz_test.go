package zstdframe

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// fuzzOutputLimit bounds how much a fuzz input may decode to (RLE blocks
// turn 4 bytes into 128 KiB).
const fuzzOutputLimit = 1 << 20

// fuzzSeedFrame is an empty frame with a checksum, to construct a Reader.
var fuzzSeedFrame = []byte{0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x00, 0x01, 0x00, 0x00, 0x99, 0xE9, 0xD8, 0x51}

func seedFuzz(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.zst")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 8<<10 {
			f.Add(data)
		}
	}
}

// FuzzWalker walks arbitrary input frame by frame: it must end (with
// io.EOF or an error), never panic, and never pass on more bytes than the
// input holds.
func FuzzWalker(f *testing.F) {
	seedFuzz(f)
	buf := make([]byte, 4096)
	f.Fuzz(func(t *testing.T, data []byte) {
		var w walker
		w.reset(bytes.NewReader(data))
		passed := 0
		for {
			if err := w.next(); err != nil {
				if err != io.EOF && w.err == nil {
					t.Fatalf("next: error %v not sticky", err)
				}
				break
			}
			for {
				n, err := w.Read(buf)
				passed += n
				if passed > len(data) {
					t.Fatalf("passed %d bytes of a %d-byte input", passed, len(data))
				}
				if err != nil {
					break
				}
			}
			if w.err != nil {
				break
			}
			if !w.atEnd() {
				t.Fatal("frame read to io.EOF but not at its end")
			}
		}
	})
}

// FuzzReader decodes arbitrary input, bounded, and compares with
// klauspost's decoder verifying its own checksums: when both finish, the
// outputs agree, and when one accepts the input the other must too.
func FuzzReader(f *testing.F) { fuzzReader(f) }

// FuzzReaderOwn is FuzzReader with every frame on our own decoder.
func FuzzReaderOwn(f *testing.F) {
	defer func(w int64) { ownMinWindow = w }(ownMinWindow)
	ownMinWindow = 0
	fuzzReader(f)
}

func fuzzReader(f *testing.F) {
	seedFuzz(f)
	ref, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<24))
	if err != nil {
		f.Fatal(err)
	}
	defer ref.Close()
	z, err := NewReader(bytes.NewReader(fuzzSeedFrame), Config{MaxWindow: 1 << 24})
	if err != nil {
		f.Fatal(err)
	}
	defer z.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []byte
		gotErr := z.Reset(bytes.NewReader(data))
		if gotErr == nil {
			got, gotErr = io.ReadAll(io.LimitReader(z, fuzzOutputLimit))
		}
		if err := ref.Reset(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		want, wantErr := io.ReadAll(io.LimitReader(ref, fuzzOutputLimit))
		if len(got) == fuzzOutputLimit || len(want) == fuzzOutputLimit {
			return // cut short: the two need not agree on where they stop
		}
		// WriteTo gives what Read gave, and fails where Read failed.
		var wt bytes.Buffer
		wtErr := z.Reset(bytes.NewReader(data))
		if wtErr == nil {
			_, wtErr = z.WriteTo(&limitWriter{w: &wt, n: fuzzOutputLimit})
		}
		if (wtErr == nil) != (gotErr == nil) || gotErr == nil && !bytes.Equal(wt.Bytes(), got) {
			t.Fatalf("WriteTo: %d bytes, %v; Read: %d bytes, %v", wt.Len(), wtErr, len(got), gotErr)
		}
		switch {
		case gotErr == nil && wantErr == nil:
			if !bytes.Equal(got, want) {
				t.Fatalf("output differs: %d bytes, reference %d", len(got), len(want))
			}
		case gotErr == nil && len(data) > 0:
			// Bytes after the last frame that are no frame end the stream
			// (with a warning, as gzip does); the reference rejects them:
			// it must read the frames before them as we did.
			off, n := z.Trailing()
			if n == 0 || off+n != int64(len(data)) {
				t.Fatalf("accepted what the reference rejects (%v)", wantErr)
			}
			if err := ref.Reset(bytes.NewReader(data[:off])); err != nil {
				t.Fatal(err)
			}
			want, err := io.ReadAll(io.LimitReader(ref, fuzzOutputLimit))
			if err != nil && off > 0 || !bytes.Equal(got, want) {
				t.Fatalf("trailing data at %d: %d bytes, the reference reads %d before it (%v)", off, len(got), len(want), err)
			}
		case gotErr != nil && wantErr == nil && !errors.Is(gotErr, ErrTruncated):
			// The reference reads an empty input as an empty stream; the
			// walker wants at least one frame.
			t.Fatalf("rejected what the reference accepts: %v", gotErr)
		}
	})
}

// limitWriter fails past n bytes, bounding what a fuzz input may expand to.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, errors.New("output limit")
	}
	l.n -= len(p)
	return l.w.Write(p)
}
