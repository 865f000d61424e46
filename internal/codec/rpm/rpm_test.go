package rpm

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

var compressors = map[string]string{
	"fixture-gzdio.rpm": "gzip", "fixture-xzdio.rpm": "xz", "fixture-zstdio.rpm": "zstd",
	"fixture-bzdio.rpm": "bzip2", "fixture-lzdio.rpm": "lzma", "fixture-ufdio.rpm": "",
}

func readPackage(b []byte) (*Package, []byte, error) {
	p, err := Open(bytes.NewReader(b), 1<<30)
	if err != nil {
		return nil, nil, err
	}
	payload, err := io.ReadAll(p.Payload)
	return p, payload, err
}

// TestFixtures opens every rpmbuild package: the compressor, the payload
// read whole with every digest passing.
func TestFixtures(t *testing.T) {
	for name, want := range compressors {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		p, payload, err := readPackage(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Compressor != want || p.Format != "cpio" || p.Signed {
			t.Errorf("%s: %+v", name, p)
		}
		if want == "" && !bytes.HasPrefix(payload, []byte("07070")) {
			t.Errorf("%s: the uncompressed payload is no cpio", name)
		}
	}
}

// TestDamage: a flipped byte in the main header fails its digest before
// any payload is given; one in the payload fails the payload digest at its
// end; a cut fails either way.
func TestDamage(t *testing.T) {
	b, err := os.ReadFile("testdata/fixture-gzdio.rpm")
	if err != nil {
		t.Fatal(err)
	}
	p, _, _ := readPackage(b)
	_ = p
	// The main header starts after the lead and the padded signature.
	sigEnd := leadSize + 16 + int(be32(b[leadSize+8:]))*16 + int(be32(b[leadSize+12:]))
	mainAt := sigEnd + (8-sigEnd%8)%8
	mainEnd := mainAt + 16 + int(be32(b[mainAt+8:]))*16 + int(be32(b[mainAt+12:]))
	flip := func(at int) []byte { d := bytes.Clone(b); d[at] ^= 0x01; return d }

	if _, err := Open(bytes.NewReader(flip(mainEnd-3)), 1<<30); !errors.Is(err, archive.ErrChecksum) || !errors.Is(err, errHeaderDigest) {
		t.Errorf("header byte: %v", err)
	}
	if _, _, err := readPackage(flip(mainEnd + 100)); !errors.Is(err, archive.ErrChecksum) || !errors.Is(err, errPayloadDigest) {
		t.Errorf("payload byte: %v", err)
	}
	for _, cut := range []int{10, leadSize + 5, mainAt + 20, mainEnd + 50, len(b) - 1} {
		if _, _, err := readPackage(b[:cut]); !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrChecksum) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
	if _, err := Open(bytes.NewReader(b), 100); !errors.Is(err, archive.ErrLimit) {
		t.Errorf("limit: %v", err)
	}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// TestCorpus opens the corpus's RPMs (old and new, signed and not, every
// payload compressor): headers and payload digests pass.
func TestCorpus(t *testing.T) {
	n := 0
	for _, row := range testutil.Manifest(t) {
		if row.Format != "rpm" || row.Expect != "ok" {
			continue
		}
		b, err := os.ReadFile(row.Path)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := readPackage(b); err != nil {
			t.Errorf("%s: %v", row.Local, err)
		}
		n++
	}
	t.Logf("%d corpus packages", n)
}

// FuzzOpen: damaged packages fail with typed errors, never panic.
func FuzzOpen(f *testing.F) {
	b, err := os.ReadFile("testdata/fixture-xzdio.rpm")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, _, err := readPackage(b); err != nil && !archive.Categorized(err) {
			t.Fatalf("uncategorized error %v", err)
		}
	})
}

// newPayload is a payload of data whose SHA-256 digest and MD5 are those
// of want.
func newPayload(data, want []byte) *payload {
	d := sha256.Sum256(want)
	m := md5.Sum(want)
	return &payload{r: bytes.NewReader(data), size: int64(len(data)),
		digest: verify.New(verify.SHA256), digestKind: verify.SHA256, digestWant: hex.EncodeToString(d[:]),
		md5: verify.New(verify.MD5), md5Want: m[:]}
}

// TestPayloadHashing reads payloads around the hashing's chunk size, in
// reads of several sizes: the digests pass on the data, fail on a flipped
// byte anywhere; a payload closed half read stops its hasher.
func TestPayloadHashing(t *testing.T) {
	for _, n := range []int{0, 1, hashChunk - 1, hashChunk, hashChunk + 1, (hashDepth + 3) * hashChunk, 3*hashChunk*hashDepth + 77} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + i>>12)
		}
		for _, step := range []int{1000, 64 << 10, 1 << 20} {
			p := newPayload(data, data)
			got, err := io.ReadAll(io.LimitReader(p, int64(n)+1)) // LimitReader: reads of up to 512 bytes growing
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes: %v", n, err)
			}
			p = newPayload(data, data)
			buf := make([]byte, step)
			for {
				_, err := p.Read(buf)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%d bytes in %d: %v", n, step, err)
				}
			}
		}
		if n == 0 {
			continue
		}
		bad := bytes.Clone(data)
		bad[n*2/3] ^= 1
		p := newPayload(bad, data)
		if _, err := io.ReadAll(p); !errors.Is(err, archive.ErrChecksum) {
			t.Fatalf("%d bytes flipped: %v", n, err)
		}
		p = newPayload(data, data)
		io.ReadFull(p, make([]byte, n/2+1))
		hashed := p.hashed
		p.Close()
		if hashed != nil {
			select {
			case <-hashed:
			default:
				t.Fatalf("%d bytes: the hasher runs on after Close", n)
			}
		}
		p.Close()
	}
}
