package rarcrypt

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// chunked hands out the bytes of r in reads whose sizes (1 to 256) cycle
// through sizes: the short reads an archive's input may give.
type chunked struct {
	r     io.Reader
	sizes []byte
	i     int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.sizes) > 0 {
		if n := int(c.sizes[c.i%len(c.sizes)]) + 1; n < len(p) {
			p = p[:n]
		}
		c.i++
	}
	return c.r.Read(p)
}

// readAllBy reads r to its end or first error, asking for reads whose
// sizes (1 to 64) cycle through sizes backwards. A reader that gives
// nothing, and no error, many times over fails the test.
func readAllBy(t *testing.T, r io.Reader, sizes []byte) ([]byte, error) {
	var out []byte
	buf := make([]byte, 64)
	for i, idle := 0, 0; ; i++ {
		p := buf
		if len(sizes) > 0 {
			p = buf[:int(sizes[len(sizes)-1-i%len(sizes)])%64+1]
		}
		n, err := r.Read(p)
		out = append(out, p[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if idle = idle + 1; n > 0 {
			idle = 0
		}
		if idle > 100 {
			t.Fatal("no progress: 100 reads of nothing")
		}
	}
}

// FuzzReaders decrypts arbitrary bytes with each of the RAR ciphers'
// readers, in reads of the sizes sizes gives, and checks them against the
// block or key-stream functions (for AES, the standard library's CBC)
// applied to the whole input: the same bytes, never more than the input,
// and a partial last block of a block cipher an error of its own.
func FuzzReaders(f *testing.F) {
	// The known-answer and round-trip vectors of the package's tests.
	ks15, _ := hex.DecodeString("baa45a258e6f99cfef40329ee86c5a0345d1b91a546d83de469e2d43a4077d2f")
	f.Add(ks15, []byte{0})
	f.Add(bytes.Repeat([]byte("RAR 2.0 cipher!!"), 8), []byte{6, 15, 200})
	f.Add(bytes.Repeat([]byte("0123456789abcdef"), 5)[:77], []byte{16, 1})
	f.Add([]byte{}, []byte{})

	key5 := bytes.Repeat([]byte{3}, 32)
	iv := bytes.Repeat([]byte{5}, 16)
	k3 := Key3{Key: [16]byte(bytes.Repeat([]byte{7}, 16)), IV: [16]byte(iv)}
	f.Fuzz(func(t *testing.T, data, sizes []byte) {
		whole := len(data) &^ 15
		src := func() io.Reader { return &chunked{r: bytes.NewReader(data), sizes: sizes} }
		// check compares what a block cipher's reader gave with want (the
		// whole blocks): all of it, or on a partial last block a prefix
		// and an error that isPartial accepts.
		check := func(name string, got []byte, err error, want []byte, isPartial func(error) bool) {
			t.Helper()
			if len(data) == whole {
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s: %d bytes of %d, %v", name, len(got), len(want), err)
				}
				return
			}
			if !isPartial(err) || !bytes.HasPrefix(want, got) {
				t.Fatalf("%s: partial block: %d bytes of %d, %v", name, len(got), len(want), err)
			}
		}

		// RAR 5 (AES-256) and RAR 3 (AES-128) CBC.
		for _, key := range [][]byte{key5, k3.Key[:]} {
			b, _ := aes.NewCipher(key)
			want := bytes.Clone(data[:whole])
			cipher.NewCBCDecrypter(b, iv).CryptBlocks(want, want)
			r, err := NewReader(src(), key, iv)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAllBy(t, r, sizes)
			check("AES CBC", got, err, want, func(err error) bool { return errors.Is(err, ErrBlockSize) })
			if len(key) == 16 {
				got, err = readAllBy(t, NewReader3(src(), k3), sizes)
				check("Reader3", got, err, want, func(err error) bool { return errors.Is(err, archive.ErrCorrupt) })
			}
		}

		// RAR 2.0: its block cipher one block at a time.
		want := bytes.Clone(data[:whole])
		c := NewCipher20("password")
		for i := 0; i < whole; i += 16 {
			c.DecryptBlock(want[i : i+16])
		}
		got, err := readAllBy(t, NewReader20(src(), "password"), sizes)
		check("Reader20", got, err, want, func(err error) bool { return errors.Is(err, archive.ErrCorrupt) })

		// RAR 1.5: a stream cipher, every byte.
		want = make([]byte, len(data))
		NewCipher15("test").XORKeyStream(want, data)
		got, err = readAllBy(t, NewReader15(src(), "test"), sizes)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Reader15: %d bytes of %d, %v", len(got), len(want), err)
		}
	})
}
