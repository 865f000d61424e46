package rarcrypt

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha256"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// TestDeriveRAR5 checks the three derived values against PBKDF2 run to 2^n,
// 2^n+16 and 2^n+32 iterations (the RAR 5 values are the running XOR at
// those points).
func TestDeriveRAR5(t *testing.T) {
	salt := []byte("0123456789abcdef")
	for _, tc := range []struct {
		pw  string
		lg2 int
	}{{"password", 0}, {"", 3}, {"пароль", 5}, {"test", 10}} {
		k, err := DeriveRAR5(tc.pw, salt, tc.lg2)
		if err != nil {
			t.Fatal(err)
		}
		n := 1 << tc.lg2
		key, _ := pbkdf2.Key(sha256.New, tc.pw, salt, n, 32)
		hk, _ := pbkdf2.Key(sha256.New, tc.pw, salt, n+16, 32)
		pc, _ := pbkdf2.Key(sha256.New, tc.pw, salt, n+32, 32)
		var check [8]byte
		for i, b := range pc {
			check[i%8] ^= b
		}
		if !bytes.Equal(k.Key[:], key) || !bytes.Equal(k.HashKey[:], hk) || k.PswCheck != check {
			t.Errorf("%q 2^%d: derived values differ from PBKDF2", tc.pw, tc.lg2)
		}
		sum := sha256.Sum256(check[:])
		rec := append(check[:], sum[:4]...)
		if !RAR5CheckValid(rec) || !k.Matches(rec) {
			t.Errorf("%q: check record not accepted", tc.pw)
		}
		rec[9] ^= 1
		if RAR5CheckValid(rec) {
			t.Errorf("%q: damaged check record accepted", tc.pw)
		}
	}
	if _, err := DeriveRAR5("x", salt, RAR5MaxKDFLog2+1); !errors.Is(err, ErrKDFCount) {
		t.Errorf("count above the limit: %v", err)
	}
}

func TestKeyCache5(t *testing.T) {
	var c KeyCache5
	salt := bytes.Repeat([]byte{7}, 16)
	a, _ := c.Derive("pw", salt, 4)
	b, _ := c.Derive("pw", salt, 4)
	d, _ := c.Derive("pw2", salt, 4)
	if a != b || a == d {
		t.Fatal("cache did not key by password")
	}
	for i := 0; i < keyCacheMax+5; i++ {
		c.Derive(string(rune('a'+i)), salt, 0)
	}
	if len(c.m) > keyCacheMax {
		t.Fatalf("cache holds %d keys", len(c.m))
	}
}

func encrypt(key, iv, plain []byte) []byte {
	b, _ := aes.NewCipher(key)
	out := bytes.Clone(plain)
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(out, out)
	return out
}

func TestReader(t *testing.T) {
	key := bytes.Repeat([]byte{3}, 32)
	iv := bytes.Repeat([]byte{5}, 16)
	plain := make([]byte, 100*16)
	for i := range plain {
		plain[i] = byte(i * 7)
	}
	ct := encrypt(key, iv, plain)
	wraps := map[string]func(io.Reader) io.Reader{
		"plain": func(r io.Reader) io.Reader { return r }, "onebyte": iotest.OneByteReader,
		"half": iotest.HalfReader, "dataerr": iotest.DataErrReader,
	}
	var d Reader
	for name, w := range wraps {
		for _, size := range []int{1, 7, 16, 17, 100, 4096} {
			if err := d.Reset(w(bytes.NewReader(ct)), key, iv); err != nil {
				t.Fatal(err)
			}
			var got []byte
			buf := make([]byte, size)
			for {
				n, err := d.Read(buf)
				got = append(got, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s/%d: %v", name, size, err)
				}
			}
			if !bytes.Equal(got, plain) {
				t.Fatalf("%s/%d: wrong plaintext", name, size)
			}
		}
	}
	// A partial last block is an error, whatever the read size.
	for _, size := range []int{5, 64} {
		d.Reset(bytes.NewReader(ct[:len(ct)-3]), key, iv)
		_, err := io.CopyBuffer(io.Discard, &d, make([]byte, size))
		if !errors.Is(err, ErrBlockSize) {
			t.Fatalf("partial block, reads of %d: %v", size, err)
		}
	}
}

func BenchmarkReader(b *testing.B) {
	key := bytes.Repeat([]byte{3}, 32)
	iv := bytes.Repeat([]byte{5}, 16)
	ct := encrypt(key, iv, make([]byte, 1<<20))
	buf := make([]byte, 32<<10)
	var d Reader
	br := bytes.NewReader(ct)
	b.SetBytes(int64(len(ct)))
	b.ReportAllocs()
	for b.Loop() {
		br.Reset(ct)
		d.Reset(br, key, iv)
		for {
			if _, err := d.Read(buf); err != nil {
				break
			}
		}
	}
}

func BenchmarkDeriveRAR5(b *testing.B) {
	salt := make([]byte, 16)
	b.ReportAllocs()
	for b.Loop() {
		DeriveRAR5("password", salt, 15)
	}
}
