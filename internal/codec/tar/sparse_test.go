package tar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// holeWriter is a sink that counts holes, as a verifier does.
type holeWriter struct {
	data         bytes.Buffer
	holes, calls int64
}

func (h *holeWriter) Write(p []byte) (int, error) { return h.data.Write(p) }
func (h *holeWriter) WriteHole(n int64) error {
	h.holes += n
	h.calls++
	return nil
}

// base256 returns v as a base-256 field of n bytes.
func base256(v int64, n int) string {
	b := make([]byte, n)
	for i := n - 1; i > 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	b[0] = 0x80
	return string(b)
}

// oldSparseHdr returns an old GNU sparse header of the given real size and
// regions (at most 4, in the header); stored is the data size.
func oldSparseHdr(name string, realsize, stored int64, regions ...[2]int64) *hdr {
	h := gnuHdr(name, 'S', stored)
	h.set(offGNURealsize, base256(realsize, 12))
	for i, g := range regions {
		h.set(offGNUSparse+24*i, base256(g[0], 12))
		h.set(offGNUSparse+24*i+12, base256(g[1], 12))
	}
	return h
}

// pax10 returns the headers and data of a GNU pax 1.0 sparse file.
func pax10(name string, realsize int64, mapText string, data string) [][]byte {
	x := paxData("GNU.sparse.major=1", "GNU.sparse.minor=0", "GNU.sparse.name="+name,
		fmt.Sprintf("GNU.sparse.realsize=%d", realsize))
	body := append(padded([]byte(mapText)), data...)
	return [][]byte{
		ustarHdr("PaxHeaders/"+name, 'x', int64(len(x))).bytes(), x,
		ustarHdr("GNUSparseFile.0/"+name, '0', int64(len(body))).bytes(), body,
	}
}

// TestSparseHuge: a sparse file of 2^62 bytes, in pax 1.0 and old GNU
// form, is verified by a HoleWriter in well under a second: its holes are
// two WriteHole calls, not 2^62 zeros.
func TestSparseHuge(t *testing.T) {
	const size = 1 << 62
	for name, data := range map[string][]byte{
		"pax 1.0":            tarOf(pax10("huge.bin", size, fmt.Sprintf("2\n0\n4\n%d\n4\n", int64(size-4)), "HEADTAIL")...),
		"old GNU":            tarOf(oldSparseHdr("huge.bin", size, 8, [2]int64{0, 4}, [2]int64{size - 4, 4}).bytes(), []byte("HEADTAIL")),
		"holes at both ends": tarOf(pax10("huge.bin", size, fmt.Sprintf("1\n%d\n8\n", int64(size/2)), "HEADTAIL")...),
	} {
		start := time.Now()
		r := NewReader(bytes.NewReader(data), nil)
		e, err := r.Next()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e.Name != "huge.bin" || e.Size != size || e.Sparse == nil {
			t.Fatalf("%s: %+v", name, e)
		}
		var w holeWriter
		n, err := r.WriteTo(&w)
		if err != nil || n != size || w.data.String() != "HEADTAIL" || w.holes != size-8 || w.calls > 2 {
			t.Errorf("%s: %d bytes, %q, %d in %d holes, %v", name, n, w.data.String(), w.holes, w.calls, err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("%s: after: %v", name, err)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("%s: %v", name, d)
		}
	}
}

// TestSparseRead: Read expands the holes; a writer that is no HoleWriter
// gets the zeros written.
func TestSparseRead(t *testing.T) {
	want := make([]byte, 3000)
	copy(want[1000:], "middle")
	copy(want[2995:], "end!!")
	data := tarOf(oldSparseHdr("s", 3000, 11, [2]int64{1000, 6}, [2]int64{2995, 5}, [2]int64{3000, 0}).bytes(), []byte("middleend!!"))
	got, _, err := readAll(t, data)
	if err != nil || len(got) != 1 || !bytes.Equal(got[0].data, want) || got[0].err != nil {
		t.Fatalf("%v %v", got, err)
	}
	r := NewReader(bytes.NewReader(data), nil)
	r.Next()
	var b bytes.Buffer
	if n, err := r.WriteTo(struct{ io.Writer }{&b}); n != 3000 || err != nil || !bytes.Equal(b.Bytes(), want) {
		t.Errorf("WriteTo: %d %v", n, err)
	}
}

// TestSparseBadMap: a sparse map that cannot be used fails its entry
// alone; the next entry is read.
func TestSparseBadMap(t *testing.T) {
	next := [][]byte{ustarHdr("next", '0', 4).bytes(), []byte("next")}
	ext := func(bad string) [][]byte { // an old GNU map going on in an extension block
		h := oldSparseHdr("s", 100, 3, [2]int64{0, 1}, [2]int64{10, 1}, [2]int64{20, 1}, [2]int64{30, 0})
		h.b[offGNUExtended] = 1
		var e block
		copy(e[:], bad)
		return [][]byte{h.bytes(), e[:], []byte("abc")}
	}
	pax01 := func(kv ...string) [][]byte {
		x := paxData(append([]string{"GNU.sparse.size=100"}, kv...)...)
		return [][]byte{ustarHdr("PaxHeaders/s", 'x', int64(len(x))).bytes(), x, ustarHdr("s", '0', 2).bytes(), []byte("ab")}
	}
	cases := map[string]struct {
		parts [][]byte
		kind  error
	}{
		"region beyond the size": {[][]byte{oldSparseHdr("s", 100, 4, [2]int64{98, 4}).bytes(), []byte("abcd")}, archive.ErrCorrupt},
		"regions out of order":   {[][]byte{oldSparseHdr("s", 100, 2, [2]int64{50, 1}, [2]int64{10, 1}).bytes(), []byte("ab")}, archive.ErrCorrupt},
		"regions overlap":        {[][]byte{oldSparseHdr("s", 100, 4, [2]int64{10, 2}, [2]int64{11, 2}).bytes(), []byte("abcd")}, archive.ErrCorrupt},
		"more data than stored":  {[][]byte{oldSparseHdr("s", 100, 2, [2]int64{0, 50}).bytes(), []byte("ab")}, archive.ErrCorrupt},
		"a field no number":      {[][]byte{oldSparseHdr("s", 100, 2).set(offGNUSparse, "12345678901x").set(offGNUSparse+12, "1").bytes(), []byte("ab")}, archive.ErrCorrupt},
		"bad real size":          {[][]byte{oldSparseHdr("s", 100, 2).set(offGNURealsize, "garbage!").bytes(), []byte("ab")}, archive.ErrCorrupt},
		"bad extension block":    {ext("0000000040x\x00000000000001"), archive.ErrCorrupt},
		"'S' in a ustar header":  {[][]byte{ustarHdr("s", 'S', 2).bytes(), []byte("ab")}, archive.ErrCorrupt},
		"1.0: not a number":      {pax10("s", 100, "1\n1x\n2\n", "ab"), archive.ErrCorrupt},
		"1.0: past the data":     {pax10("s", 100, "1000\n", "ab"), archive.ErrCorrupt},
		"1.0: a huge count":      {pax10("s", 100, "4611686018427387904\n0\n1\n", "ab"), archive.ErrCorrupt},
		"1.0: a long number":     {pax10("s", 100, strings.Repeat("1", 30)+"\n", "ab"), archive.ErrCorrupt},
		"0.1: odd map":           {pax01("GNU.sparse.numblocks=1", "GNU.sparse.map=0,2,5"), archive.ErrCorrupt},
		"0.1: count mismatch":    {pax01("GNU.sparse.numblocks=2", "GNU.sparse.map=0,2"), archive.ErrCorrupt},
		"0.1: not a number":      {pax01("GNU.sparse.numblocks=1", "GNU.sparse.map=0,x"), archive.ErrCorrupt},
		"0.0: unpaired":          {pax01("GNU.sparse.numblocks=1", "GNU.sparse.offset=0"), archive.ErrCorrupt},
		"2.0: unknown version":   {pax01("GNU.sparse.major=2", "GNU.sparse.minor=0"), archive.ErrUnsupported},
	}
	for name, c := range cases {
		got, _, err := readAll(t, tarOf(append(c.parts, next...)...))
		if err != nil || len(got) != 2 {
			t.Errorf("%s: %v %v", name, got, err)
			continue
		}
		if !errors.Is(got[0].err, c.kind) || got[0].Sparse == nil || got[0].Type != archive.TypeFile {
			t.Errorf("%s: %v, want %v", name, got[0].err, c.kind)
		}
		if got[1].Name != "next" || string(got[1].data) != "next" || got[1].err != nil {
			t.Errorf("%s: next entry %+v %q %v", name, got[1].Entry, got[1].data, got[1].err)
		}
	}
	// The regions' memory counts against the memory limit.
	m := "100\n"
	for i := range 100 {
		m += fmt.Sprintf("%d\n1\n", 2*i)
	}
	data := tarOf(append(pax10("s", 1000, m, strings.Repeat("x", 100)), next...)...)
	got, _, err := readWith(t, data, &archive.Options{MemLimit: 64 * regionSize})
	if err != nil || len(got) != 2 || !errors.Is(got[0].err, archive.ErrLimit) || string(got[1].data) != "next" {
		t.Errorf("memory limit: %v %v", got, err)
	}
}

// starSparseHdr returns a star sparse header (type 'S'): the map in the
// header when inHeader, else all in extension blocks.
func starSparseHdr(name string, realsize, stored int64, inHeader bool, regions ...[2]int64) *hdr {
	h := ustarHdr(name, 'S', stored)
	h.octal(offStarAtime, 12, 1).set(offStarAtime+11, " ").octal(offStarCtime, 12, 1).set(offStarCtime+11, " ")
	h.octal(offStarInRealsize, 12, realsize)
	if inHeader {
		for i, g := range regions {
			h.octal(offStarInSparse+24*i, 12, g[0]).octal(offStarInSparse+24*i+12, 12, g[1])
		}
	}
	return h
}

// TestStarSparse: star's sparse files, the map in the header and in an
// extension block, as GNU tar reads them.
func TestStarSparse(t *testing.T) {
	want := make([]byte, 5000)
	copy(want[100:], "ab")
	copy(want[4000:], "cd")
	regions := [][2]int64{{100, 2}, {4000, 2}, {5000, 0}}
	var ext block
	for i, g := range regions {
		copy(ext[24*i:], fmt.Sprintf("%011o\x00%011o\x00", g[0], g[1]))
	}
	for name, parts := range map[string][][]byte{
		"in the header":         {starSparseHdr("s", 5000, 4, true, regions...).bytes(), []byte("abcd")},
		"in an extension block": {starSparseHdr("s", 5000, 4, false).bytes(), ext[:], []byte("abcd")},
	} {
		got, _, err := readAll(t, tarOf(parts...))
		if err != nil || len(got) != 1 || got[0].err != nil || got[0].Size != 5000 || !bytes.Equal(got[0].data, want) {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
}
