package brotli

import (
	"bytes"
	"io"
	"testing"

	ab "github.com/andybalholm/brotli"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// FuzzDecoder decodes arbitrary input, seeded with the fixtures: it must
// end in io.EOF or a categorized error without a panic, and agree with
// andybalholm/brotli. Output is cut at
// 1 MiB: a few bytes can declare meta-blocks of 16 MiB each, which
// would only slow the fuzzer down.
func FuzzDecoder(f *testing.F) {
	for name := range fixtures(f) {
		if data := testutil.Fixture(f, name); len(data) < 4096 {
			f.Add(data)
		}
	}
	f.Add(testutil.Fixture(f, "text-q11.br")[:2000])
	f.Add(testutil.Fixture(f, "mixed-q5.br")[:2000])
	// The start of a stream that takes the fast loop's held-back paths
	// (see heldStream).
	held, _ := heldStream(1, 10)
	f.Add(held[:3000])
	z := new(Reader)
	f.Fuzz(func(t *testing.T, data []byte) {
		z.SetConfig(Config{MemLimit: 1 << 22})
		var got []byte
		err := z.Reset(bytes.NewReader(data))
		if err == nil {
			got, err = io.ReadAll(io.LimitReader(z, 1<<20))
		}
		if err != nil && !archive.Categorized(err) {
			t.Fatalf("error of no category: %v", err)
		}
		// andybalholm/brotli, another decoder of the same format, gives
		// the same bytes as far as both go, and the same length where
		// both end without an error (the large-window extension, which
		// it does not read, is an error there).
		want, aerr := io.ReadAll(io.LimitReader(ab.NewReader(bytes.NewReader(data)), 1<<20))
		n := min(len(got), len(want))
		if !bytes.Equal(got[:n], want[:n]) || err == nil && aerr == nil && len(got) != len(want) {
			t.Fatalf("%d bytes (%v), andybalholm/brotli %d bytes (%v): they differ", len(got), err, len(want), aerr)
		}
	})
}
