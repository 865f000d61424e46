package lzhdec_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/codec/lzhdec"
)

// FuzzLZHDecoder decodes arbitrary input with every method: no panic, no
// hang, never more than the size asked for.
func FuzzLZHDecoder(f *testing.F) {
	for _, s := range streams(f) {
		f.Add(byte(s.m), s.data)
	}
	f.Fuzz(func(t *testing.T, m byte, data []byte) {
		method := lzhdec.Method(m%12 + 1)
		size := int64(len(data))*8 + 100
		z, err := lzhdec.NewReader(bytes.NewReader(data), method, size)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, z)
		if n > size {
			t.Fatalf("%d bytes of %d", n, size)
		}
	})
}
