package zip

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// falseAccept searches for two wrong passwords that pass the ZipCrypto
// check byte of entry i of the archive b (one in 256 does).
func falseAccept(t *testing.T, b []byte, i int) (string, string) {
	t.Helper()
	r, err := NewReader(&archive.Input{R: bytes.NewReader(b), RA: bytes.NewReader(b), Size: int64(len(b))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := r.dir.files[i]
	p := newPipeline()
	p.cache.use(r.ra)
	start, err := p.localHeader(&p.cache, h)
	if err != nil {
		t.Fatal(err)
	}
	var hdr [zipCryptoHeaderLen]byte
	if _, err := r.ra.ReadAt(hdr[:], start); err != nil {
		t.Fatal(err)
	}
	var found []string
	for n := 0; n < 1<<16 && len(found) < 2; n++ {
		pw := "wrong" + strconv.Itoa(n)
		var z zipCrypto
		if _, err := z.open(&hdr, h, []string{pw}); err == nil {
			found = append(found, pw)
		}
	}
	if len(found) < 2 {
		t.Fatal("no wrong password passes the check byte")
	}
	return found[0], found[1]
}

// TestZipCryptoFalseAccept gives first a wrong candidate that passes an
// entry's check byte: on the seekable path its CRC mismatch sends the
// reader on to the right candidate, which alone is reported, and the
// output is right (sequentially and through Open).
func TestZipCryptoFalseAccept(t *testing.T) {
	sums := srcSums(t)
	for _, file := range []string{"infozip-zipcrypto.zip", "7zip-zipcrypto.zip", "infozip-zipcrypto-pipe.zip"} {
		t.Run(file, func(t *testing.T) {
			b := readFixture(t, file)
			r0, err := NewReader(&archive.Input{R: bytes.NewReader(b), RA: bytes.NewReader(b), Size: int64(len(b))}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, h := range r0.dir.files {
				if !h.encrypted() || h.usize == 0 {
					continue
				}
				wrong, wrong2 := falseAccept(t, b, i)
				for _, pws := range [][]string{{wrong, "secret"}, {wrong, "other", "secret"}} {
					var accepted []int
					opt := &archive.Options{Passwords: pws, PasswordAccepted: func(i int) { accepted = append(accepted, i) }}
					r, err := openBytes(b, opt)
					if err != nil {
						t.Fatal(err)
					}
					x, err := readAllVia(r, func(r io.Reader) io.Reader { return r })
					if err != nil {
						t.Fatalf("%s with %q: %v", h.name, pws, err)
					}
					if got, want := x.files[h.name], sums[h.name]; got != want {
						t.Errorf("%s: sha256 %s, want %s", h.name, got, want)
					}
					for _, a := range accepted {
						if pws[a] != "secret" {
							t.Errorf("%s: candidate %d (%q) reported as accepted", h.name, a+1, pws[a])
						}
					}
					// Open (random access) too.
					accepted = nil
					ra := r.(archive.RandomAccess)
					rc, err := ra.Open(i)
					if err != nil {
						t.Fatal(err)
					}
					s := sha256.New()
					_, err = io.Copy(s, rc)
					rc.Close()
					if err != nil || hex.EncodeToString(s.Sum(nil)) != sums[h.name] {
						t.Errorf("Open(%d) %s: %v", i, h.name, err)
					}
					if len(accepted) != 1 || pws[accepted[0]] != "secret" {
						t.Errorf("Open(%d): accepted %v", i, accepted)
					}
				}
				// With only wrong candidates, two passing the check byte, the
				// result is a password error.
				r, err := openBytes(b, &archive.Options{Passwords: []string{wrong, "other", wrong2}})
				if err != nil {
					t.Fatal(err)
				}
				rc, err := r.(archive.RandomAccess).Open(i)
				if err == nil {
					_, err = io.Copy(io.Discard, rc)
					rc.Close()
				}
				if !errors.Is(err, archive.ErrPassword) {
					t.Errorf("%s with %q, other, %q: got %v, want a password error", h.name, wrong, wrong2, err)
				}
				return // one entry per fixture is enough
			}
			t.Fatal("no encrypted entry")
		})
	}
}

// TestAESLaterCandidatePasses lists the right password twice: the second
// passes the AES verifier too, so the MAC and CRC decide before the data
// are given out, and the data are read again with the first.
func TestAESLaterCandidatePasses(t *testing.T) {
	sums := srcSums(t)
	for _, file := range []string{"7zip-aes256.zip", "7zip-aes128-lzma.zip"} {
		b := readFixture(t, file)
		var accepted []int
		opt := &archive.Options{Passwords: []string{"wrong", "secret", "secret"}, PasswordAccepted: func(i int) { accepted = append(accepted, i) }}
		r, err := openBytes(b, opt)
		if err != nil {
			t.Fatal(err)
		}
		x, err := readAllVia(r, func(r io.Reader) io.Reader { return r })
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(x.files) == 0 {
			t.Fatalf("%s: no files", file)
		}
		for name, got := range x.files {
			if got != sums[name] {
				t.Errorf("%s: %s: sha256 %s, want %s", file, name, got, sums[name])
			}
		}
		for _, a := range accepted {
			if a != 1 {
				t.Errorf("%s: candidate %d reported", file, a+1)
			}
		}
		if len(accepted) == 0 {
			t.Errorf("%s: no candidate reported", file)
		}
	}
}

// BenchmarkCandidates reads the encrypted fixtures with the right password
// alone, and first of three (the later ones are checked too: a key
// derivation each for AES, next to nothing for ZipCrypto).
func BenchmarkCandidates(b *testing.B) {
	for _, file := range []string{"7zip-zipcrypto.zip", "7zip-aes256.zip"} {
		data := readFixture(b, file)
		for _, pws := range [][]string{{"secret"}, {"secret", "wrong1", "wrong2"}} {
			b.Run(file+"/candidates="+strconv.Itoa(len(pws)), func(b *testing.B) {
				var size int64
				b.ReportAllocs()
				for b.Loop() {
					r, err := openBytes(data, &archive.Options{Passwords: pws})
					if err != nil {
						b.Fatal(err)
					}
					size = 0
					for {
						e, err := r.Next()
						if err != nil {
							break
						}
						n, err := io.Copy(io.Discard, r)
						if err != nil {
							b.Fatal(err)
						}
						size += n
						_ = e
					}
				}
				b.SetBytes(size)
			})
		}
	}
}

// TestAESMACFirst damages the ciphertext of an AES entry read with the
// right password listed twice: the MAC, checked before decoding, rejects
// both, and the error is a password error before any byte is given out.
func TestAESMACFirst(t *testing.T) {
	b := readFixture(t, "7zip-aes256.zip")
	r0, err := NewReader(&archive.Input{R: bytes.NewReader(b), RA: bytes.NewReader(b), Size: int64(len(b))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range r0.dir.files {
		if !h.encrypted() || h.csize < 64 {
			continue
		}
		p := newPipeline()
		p.cache.use(r0.ra)
		start, err := p.localHeader(&p.cache, h)
		if err != nil {
			t.Fatal(err)
		}
		bad := append([]byte(nil), b...)
		bad[start+int64(aesSaltLen(h.aesStrength))+aesVerifierLen+5] ^= 1
		r, err := openBytes(bad, &archive.Options{Passwords: []string{"secret", "secret"}})
		if err != nil {
			t.Fatal(err)
		}
		rc, err := r.(archive.RandomAccess).Open(i)
		if err == nil {
			rc.Close()
			t.Fatalf("%s: Open succeeded on damaged ciphertext", h.name)
		}
		if !errors.Is(err, archive.ErrPassword) {
			t.Errorf("%s: got %v, want a password error", h.name, err)
		}
		return
	}
	t.Fatal("no AES entry")
}
