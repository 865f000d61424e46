package lzx

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
)

// wimChunk is one compressed chunk of a WIM resource and its size.
type wimChunk struct {
	data []byte
	size int
}

// wimBlob is a resource of a WIM: its chunks and SHA-1.
type wimBlob struct {
	chunks []wimChunk
	size   int
	sha1   []byte
}

// readWIM returns the compressed resources of a WIM written by
// wimlib-imagex (one part, no solid resources) and its chunk size.
func readWIM(t testing.TB, path string) ([]wimBlob, int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:8]) != "MSWIM\x00\x00\x00" {
		t.Fatalf("%s: not a WIM", path)
	}
	chunk := int(binary.LittleEndian.Uint32(b[20:]))
	reshdr := func(p []byte) (size, off, usize int, flags byte) {
		v := binary.LittleEndian.Uint64(p)
		return int(v & (1<<56 - 1)), int(binary.LittleEndian.Uint64(p[8:])), int(binary.LittleEndian.Uint64(p[16:])), byte(v >> 56)
	}
	tsize, toff, _, _ := reshdr(b[48:])
	table := b[toff : toff+tsize]
	var blobs []wimBlob
	for e := table; len(e) >= 50; e = e[50:] {
		size, off, usize, flags := reshdr(e)
		if flags&4 == 0 {
			continue
		}
		n := (usize + chunk - 1) / chunk
		res := b[off : off+size]
		tab := res[:4*(n-1)]
		data := res[4*(n-1):]
		starts := []int{0}
		for i := 0; i < n-1; i++ {
			starts = append(starts, int(binary.LittleEndian.Uint32(tab[4*i:])))
		}
		starts = append(starts, len(data))
		bl := wimBlob{size: usize, sha1: e[30:50]}
		for i := 0; i < n; i++ {
			bl.chunks = append(bl.chunks, wimChunk{data[starts[i]:starts[i+1]], min(chunk, usize-i*chunk)})
		}
		blobs = append(blobs, bl)
	}
	return blobs, chunk
}

// decodeWIMBlob decodes a resource chunk by chunk; chunks that did not
// shrink are stored.
func decodeWIMBlob(d *Decoder, bl wimBlob) ([]byte, error) {
	var out []byte
	for i, c := range bl.chunks {
		buf := make([]byte, c.size)
		if len(c.data) == c.size {
			copy(buf, c.data)
		} else if _, err := d.Decode(buf, c.data); err != nil {
			return nil, fmt.Errorf("chunk %d: %w", i, err)
		}
		out = append(out, buf...)
	}
	return out, nil
}

func bitsOf(chunk int) int {
	n := 0
	for 1<<n < chunk {
		n++
	}
	return n
}

func TestWIM(t *testing.T) {
	want, err := os.ReadFile("testdata/files.txt")
	if err != nil {
		t.Fatal(err)
	}
	wantSum, _, _ := strings.Cut(strings.TrimSpace(string(want)), " ")
	for _, name := range []string{"lzx-32k.wim", "lzx-128k.wim"} {
		t.Run(name, func(t *testing.T) {
			blobs, chunk := readWIM(t, "testdata/"+name)
			d, err := NewDecoder(bitsOf(chunk), WIM)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, bl := range blobs {
				out, err := decodeWIMBlob(d, bl)
				if err != nil {
					t.Fatal(err)
				}
				if h := sha1.Sum(out); !bytes.Equal(h[:], bl.sha1) {
					t.Fatalf("blob of %d bytes: SHA-1 %x, want %x", bl.size, h, bl.sha1)
				}
				if h := sha256.Sum256(out); hex.EncodeToString(h[:]) == wantSum {
					found = true
				}
			}
			if !found {
				t.Fatal("source file not among the resources")
			}
		})
	}
}
