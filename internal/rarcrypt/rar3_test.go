package rarcrypt

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha1"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

// TestDeriveKey3 checks determinism, salt and password sensitivity, and
// that the cache returns what a fresh derivation gives. (The derivation
// itself is checked end to end by the RAR 3 corpus archives in
// internal/codec/rar/rar4.)
func TestDeriveKey3(t *testing.T) {
	salt := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	a := DeriveKey3("test", salt)
	cache3Mu.Lock()
	clear(cache3)
	cache3Mu.Unlock()
	b := DeriveKey3("test", salt)
	if a != b {
		t.Fatal("cached and fresh keys differ")
	}
	if c := DeriveKey3("test", []byte{1, 2, 3, 4, 5, 6, 7, 9}); c == a {
		t.Fatal("salt ignored")
	}
	if c := DeriveKey3("tesT", salt); c == a {
		t.Fatal("password ignored")
	}
	if c := DeriveKey3("test", nil); c == a {
		t.Fatal("unsalted key equals salted key")
	}
}

func encrypt3(k Key3, plain []byte) []byte {
	b, _ := aes.NewCipher(k.Key[:])
	out := make([]byte, len(plain))
	cipher.NewCBCEncrypter(b, k.IV[:]).CryptBlocks(out, plain)
	return out
}

func TestReader3(t *testing.T) {
	k := DeriveKey3("pw", []byte("saltsalt"))
	plain := bytes.Repeat([]byte("0123456789abcdef"), 5000)
	ct := encrypt3(k, plain)
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"plain": func(r io.Reader) io.Reader { return r }, "onebyte": iotest.OneByteReader, "half": iotest.HalfReader,
	} {
		d := NewReader3(wrap(bytes.NewReader(ct)), k)
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%s: %v, equal=%v", name, err, bytes.Equal(got, plain))
		}
		// Reuse through Reset.
		d.Reset(wrap(bytes.NewReader(ct[:32])), k)
		if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, plain[:32]) {
			t.Fatalf("%s after Reset: %v", name, err)
		}
	}
	d := NewReader3(bytes.NewReader(ct[:33]), k)
	if _, err := io.ReadAll(d); !errors.Is(err, archive.ErrCorrupt) {
		t.Fatalf("partial block: %v", err)
	}
}

// decrypt20 mirrors DecryptBlock's inverse for the round trip test.
func TestCipher20RoundTrip(t *testing.T) {
	for _, pw := range []string{"", "a", "password", "a much longer password than sixteen bytes"} {
		enc, dec := NewCipher20(pw), NewCipher20(pw)
		plain := bytes.Repeat([]byte("RAR 2.0 cipher!!"), 64)
		buf := append([]byte(nil), plain...)
		for i := 0; i < len(buf); i += 16 {
			enc.encryptBlock(buf[i : i+16])
		}
		if bytes.Equal(buf, plain) {
			t.Fatalf("%q: encryption changed nothing", pw)
		}
		got, err := io.ReadAll(iotest.HalfReader(&Reader20{r: bytes.NewReader(buf), c: dec}))
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%q: round trip failed: %v", pw, err)
		}
	}
}

func BenchmarkReader3(b *testing.B) {
	k := DeriveKey3("pw", []byte("saltsalt"))
	ct := encrypt3(k, make([]byte, 1<<20))
	d := NewReader3(nil, k)
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(ct)))
	b.ReportAllocs()
	for b.Loop() {
		d.Reset(bytes.NewReader(ct), k)
		for {
			if _, err := d.Read(buf); err != nil {
				break
			}
		}
	}
}

// TestSHA1Rar checks the SHA-1 used for long passwords against crypto/sha1
// when the quirk is off, and that the quirk only matters for whole blocks
// hashed from the caller's buffer.
func TestSHA1Rar(t *testing.T) {
	for _, n := range []int{0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 200, 1000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + n)
		}
		var d sha1rar
		d.reset()
		d.write(data[:n/3], false)
		d.write(data[n/3:], false)
		if got, want := d.sum(), sha1.Sum(data); got != want {
			t.Fatalf("n=%d: %x, want %x", n, got, want)
		}
		// With the quirk, buffers shorter than 65 bytes stay untouched.
		cp := append([]byte(nil), data...)
		d.reset()
		d.write(cp, true)
		if n < 65 && !bytes.Equal(cp, data) {
			t.Fatalf("n=%d: quirk changed a short buffer", n)
		}
		if n >= 128 && bytes.Equal(cp, data) {
			t.Fatalf("n=%d: quirk left a long buffer unchanged", n)
		}
	}
	long := "a passphrase of thirty-two chars"
	if DeriveKey3(long, []byte("saltsalt")) == DeriveKey3(long, []byte("saltsalT")) {
		t.Fatal("long password: salt ignored")
	}
}
