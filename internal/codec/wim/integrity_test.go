package wim

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil/entrytree"
)

// TestIntegrity: check.wim (wimlib-imagex capture --check) has a table of
// one chunk; a byte changed in what it covers, or in the table, is a
// mismatch naming the chunk, found before any entry.
func TestIntegrity(t *testing.T) {
	b, err := os.ReadFile("testdata/check.wim")
	if err != nil {
		t.Fatal(err)
	}
	if h := parseReshdr(b[124:]); h.offset == 0 {
		t.Fatal("check.wim has no integrity table")
	}
	if _, err := readTree(b, nil); err != nil {
		t.Fatal(err)
	}
	tab := parseReshdr(b[124:])
	for _, at := range []int64{headerSize, tab.offset + 12} {
		c := bytes.Clone(b)
		c[at] ^= 0x40
		r, err := NewReader(bytes.NewReader(c), int64(len(c)), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Next()
		if !errors.Is(err, archive.ErrChecksum) || !strings.Contains(err.Error(), "integrity chunk 1 of 1") {
			t.Fatalf("byte %d changed: %v", at, err)
		}
		if _, err := r.Next(); err == nil {
			t.Fatal("an entry after the mismatch")
		}
		// A listing does not read the file through.
		r2, err := Open(&archive.Input{RA: bytes.NewReader(c), Size: int64(len(c)), Listing: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r2.Next(); err != nil {
			t.Fatalf("listing: %v", err)
		}
	}
}

// withTable gives none.wim an integrity table of chunks of chunk bytes,
// appended at its end, with f applied to the table first.
func withTable(t *testing.T, chunk int, f func(tab []byte)) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/none.wim")
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	bt := parseReshdr(b[48:])
	end := int(bt.offset + bt.size)
	n := (end - headerSize + chunk - 1) / chunk
	tab := make([]byte, 12+20*n)
	le.PutUint32(tab, uint32(len(tab)))
	le.PutUint32(tab[4:], uint32(n))
	le.PutUint32(tab[8:], uint32(chunk))
	for i := range n {
		sum := sha1.Sum(b[headerSize+i*chunk : min(headerSize+(i+1)*chunk, end)])
		copy(tab[12+20*i:], sum[:])
	}
	f(tab)
	off := len(b)
	b = append(b, tab...)
	le.PutUint64(b[124:], uint64(len(tab)))
	le.PutUint64(b[132:], uint64(off))
	le.PutUint64(b[140:], uint64(len(tab)))
	return b
}

func TestIntegrityTable(t *testing.T) {
	want := entrytree.Show(expected(t, "testdata/none.wim"))
	got, err := readTree(withTable(t, 4096, func([]byte) {}), nil)
	if err != nil || entrytree.Show(got) != want {
		t.Fatalf("%v\n%s", err, entrytree.Show(got))
	}
	// A byte changed in the third chunk.
	b := withTable(t, 4096, func([]byte) {})
	b[headerSize+2*4096+100] ^= 1
	n := (parseReshdr(b[48:]).offset + parseReshdr(b[48:]).size - headerSize + 4095) / 4096
	if _, err := readTree(b, nil); !errors.Is(err, archive.ErrChecksum) ||
		!strings.Contains(err.Error(), "integrity chunk 3 of "+strconv.FormatInt(n, 10)+" (bytes 8400 to 12496)") {
		t.Fatalf("got %v", err)
	}
	le := binary.LittleEndian
	for name, f := range map[string]func(tab []byte){
		"size":       func(tab []byte) { le.PutUint32(tab, 13) },
		"entries":    func(tab []byte) { le.PutUint32(tab[4:], le.Uint32(tab[4:])+1) },
		"chunk size": func(tab []byte) { le.PutUint32(tab[8:], 8192) },
		"chunk 0":    func(tab []byte) { le.PutUint32(tab[8:], 0) },
	} {
		if _, err := readTree(withTable(t, 4096, f), nil); !errors.Is(err, archive.ErrCorrupt) || !strings.Contains(err.Error(), "integrity table") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A compressed table, and a table smaller than its header.
	for _, f := range []func(b []byte){
		func(b []byte) { b[124+7] = resCompressed },
		func(b []byte) { b[124] = 8; b[140] = 8 },
	} {
		b := withTable(t, 4096, func([]byte) {})
		f(b)
		if _, err := readTree(b, nil); !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("table header: %v", err)
		}
	}
	// The blob table (450 bytes) within the limit, the integrity table
	// (1452) over it.
	if _, err := readTree(withTable(t, 4096, func([]byte) {}), &archive.Options{MemLimit: 1000}); !errors.Is(err, archive.ErrLimit) ||
		!strings.Contains(err.Error(), "integrity table") {
		t.Errorf("memlimit: %v", err)
	}
}
