package rarcrypt

import (
	"bytes"
	"encoding/hex"
	"io"
	"testing"
	"testing/iotest"
)

// TestCipher15KnownAnswer: the first 32 bytes of the RAR 1.5 key stream
// for the password "test". An archive of 32 zero bytes encrypted with
// them was read back as zeros by unar 1.10 (XADMaster's independent
// XADRAR15CryptHandle), and as other bytes with any other password.
func TestCipher15KnownAnswer(t *testing.T) {
	want, _ := hex.DecodeString("baa45a258e6f99cfef40329ee86c5a0345d1b91a546d83de469e2d43a4077d2f")
	got := make([]byte, len(want))
	NewCipher15("test").XORKeyStream(got, got)
	if !bytes.Equal(got, want) {
		t.Fatalf("key stream %x, want %x", got, want)
	}
	// Decrypting is the same operation, whatever the read sizes.
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"plain": func(r io.Reader) io.Reader { return r }, "onebyte": iotest.OneByteReader, "half": iotest.HalfReader,
	} {
		plain, err := io.ReadAll(NewReader15(wrap(bytes.NewReader(want)), "test"))
		if err != nil || !bytes.Equal(plain, make([]byte, len(want))) {
			t.Fatalf("%s: %x, %v", name, plain, err)
		}
	}
}

func BenchmarkReader15(b *testing.B) {
	data := make([]byte, 1<<20)
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader15(bytes.NewReader(data), "password")
		for {
			if _, err := r.Read(buf); err != nil {
				break
			}
		}
	}
}
