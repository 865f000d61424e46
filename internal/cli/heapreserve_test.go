package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHeapReserve: an extraction puts the archives' size of heap growth on
// huge pages, from minHeapReserve to maxHeapReserve, standard input counted
// as minHeapReserve, nothing for small archives or ones that cannot be
// read.
func TestHeapReserve(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil { // sparse: no bytes written
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	small := file("small", largeArchive-1)
	large := file("large", 100<<20)
	huge := file("huge", 1<<30)
	for _, c := range []struct {
		paths []string
		want  int
	}{
		{[]string{small}, 0},
		{[]string{filepath.Join(dir, "missing")}, 0},
		{[]string{small, small}, minHeapReserve},
		{[]string{large}, 100 << 20},
		{[]string{huge}, maxHeapReserve},
		{[]string{"-"}, minHeapReserve},
		{[]string{"-", large}, minHeapReserve + 100<<20},
	} {
		if got := heapReserve(c.paths); got != c.want {
			t.Errorf("heapReserve(%q) = %d, want %d", c.paths, got, c.want)
		}
	}
}
