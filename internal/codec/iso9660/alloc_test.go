package iso9660

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// manyFiles is an image with n small files in one directory, its records
// over as many sectors as they need.
func manyFiles(n int) []byte {
	const first = 100 // the files' data, one sector each, from here
	var sectors [][]byte
	cur := dir(18, 18)
	for i := range n {
		r := appendRecord(nil, rec{name: fmt.Sprintf("F%05d.TXT;1", i), extent: uint32(first + i), size: 100})
		if len(cur)+len(r) > sectorSize {
			sectors, cur = append(sectors, cur), nil
		}
		cur = append(cur, r...)
	}
	sectors = append(sectors, cur)
	m := img{map[uint32][]byte{}}
	for i, s := range sectors {
		m.sectors[uint32(18+i)] = s
	}
	for i := range n {
		m.sectors[uint32(first+i)] = bytes.Repeat([]byte{byte(i)}, 100)
	}
	b := m.bytes()
	// The root's size in the volume descriptor and in its "." record.
	size := uint32(len(sectors) * sectorSize)
	for _, at := range []int{16*sectorSize + 156, 18 * sectorSize} {
		rec := b[at:]
		rec[10], rec[11], rec[12], rec[13] = byte(size), byte(size>>8), byte(size>>16), byte(size>>24)
		rec[14], rec[15], rec[16], rec[17] = byte(size>>24), byte(size>>16), byte(size>>8), byte(size)
	}
	return b
}

// TestAllocs: the directory tree costs one allocation per file (its name)
// and little memory past the entries themselves (the file list holds
// pointers; directories are read through reused buffers); reading a
// file's data as a range costs none.
func TestAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	const n = 2000
	b := manyFiles(n)
	ra := bytes.NewReader(b)
	var r *Reader
	var err error
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	allocs := testing.AllocsPerRun(3, func() {
		if r, err = NewReader(ra, int64(len(b)), nil); err != nil {
			t.Fatal(err)
		}
	})
	runtime.ReadMemStats(&after)
	if len(r.files) != n {
		t.Fatalf("%d files, want %d", len(r.files), n)
	}
	if allocs > n+n/20 { // a name each, and the slabs
		t.Errorf("opening %d files: %.0f allocations", n, allocs)
	}
	// A file's slot (entry, extents) is ~280 bytes and its name 16; the
	// file list grown by values cost 500 in all. 4 runs.
	if per := (after.TotalAlloc - before.TotalAlloc) / 4 / n; per > 450 {
		t.Errorf("opening: %d bytes per file", per)
	}
	// Read as from the image file: each file's extent as a range.
	if r, err = NewReader(fileSource{testutil.TempFile(t, "image.iso", b)}, int64(len(b)), nil); err != nil {
		t.Fatal(err)
	}
	w := &rangeHash{h: io.Discard}
	allocs = testing.AllocsPerRun(3, func() {
		for i := range r.files {
			rc, err := r.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rc.(io.WriterTo).WriteTo(w); err != nil {
				t.Fatal(err)
			}
			rc.Close()
		}
	})
	if allocs > 2 {
		t.Errorf("reading %d files: %.0f allocations", n, allocs)
	}
}
