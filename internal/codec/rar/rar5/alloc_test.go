package rar5

import (
	"bufio"
	"bytes"
	"hash/crc32"
	"io"
	"runtime"
	"testing"
	"unsafe"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Allocation guards (issue 5's bar): a 1 MiB encrypted entry read in 8 KiB
// reads allocates under 16 KiB beyond the window, from Open to Close, with
// the input buffered by the caller as the CLI gives it. Stored entries
// have no window; compressed ones are also allowed the decoder's fixed
// tables and the filter memory their blocks need. Pools are emptied first
// (two collections), so pooled buffers count as allocated.

// allocBudget is what a reader may allocate beyond its window, tables and
// filter memory.
const allocBudget = 16 << 10

// readSize is the read size of the guards.
const readSize = 8 << 10

// coldAlloc returns the bytes f allocates with empty pools: the least of
// three runs, so that a stray allocation elsewhere in the process does not
// count.
func coldAlloc(f func()) uint64 {
	best := ^uint64(0)
	for i := 0; i < 3; i++ {
		runtime.GC()
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		best = min(best, m1.TotalAlloc-m0.TotalAlloc)
	}
	return best
}

// bufs are what a read reports beyond its budget: the window, the
// decoder's tables and the filter memory (blocks and queue) it ended with.
type bufs struct{ window, tables, filters int }

func (b bufs) sum() int { return b.window + b.tables + b.filters }

// readEntries opens arc through a caller's bufio.Reader (allocated before
// counting, as the CLI's is), reads every entry in readSize reads and
// closes it, returning the bytes read and the buffers the decoder held.
func readEntries(t testing.TB, arc []byte, opt *archive.Options, br *bufio.Reader, buf []byte) (int64, bufs) {
	br.Reset(bytes.NewReader(arc))
	r, err := Open(&archive.Input{R: br, Size: int64(len(arc))}, opt, 0)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	var held bufs
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		for {
			n, err := r.Read(buf)
			total += int64(n)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		switch x := r.(type) {
		case *reader:
			if x.dec != nil {
				held = bufs{cap(x.dec.win), int(unsafe.Sizeof(*x.dec)),
					cap(x.dec.fbuf) + cap(x.dec.fdst) + cap(x.dec.filters)*int(unsafe.Sizeof(filter{}))}
			}
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return total, held
}

// checkAlloc reads arc cold and fails when it allocates more than the
// budget beyond the buffers the decoder held.
func checkAlloc(t *testing.T, arc []byte, password string, want int64) {
	opt := &archive.Options{Passwords: []string{password}}
	br := bufio.NewReaderSize(nil, 1<<20)
	buf := make([]byte, readSize)
	var n int64
	var held bufs
	got := coldAlloc(func() { n, held = readEntries(t, arc, opt, br, buf) })
	if n != want {
		t.Fatalf("read %d bytes, want %d", n, want)
	}
	beyond := int64(got) - int64(held.sum())
	t.Logf("%d bytes: allocated %d, window %d, tables %d, filters %d, beyond %d", n, got, held.window, held.tables, held.filters, beyond)
	if beyond >= allocBudget {
		t.Errorf("allocated %d bytes beyond the window, tables and filter memory (%+v); the bar is %d", beyond, held, allocBudget)
	}
}

// TestAllocEncrypted guards the bar for RAR 5: a stored and a compressed
// entry of 1 MiB or more, encrypted.
func TestAllocEncrypted(t *testing.T) {
	t.Run("stored", func(t *testing.T) {
		data := patternData(1<<20, 11)
		checkAlloc(t, vols(t, writerOpts{}, testEntry{name: "big", data: data, password: "pw"}), "pw", int64(len(data)))
	})
	t.Run("compressed", func(t *testing.T) {
		e, size := corpusPacked(t)
		e.password = "pw"
		checkAlloc(t, vols(t, writerOpts{}, e), "pw", size)
	})
}

// corpusPacked returns the largest non-solid compressed entry of
// Rar.issue1050.rar (RAR 5 LZ with DELTA filters), to be written again
// encrypted, and its unpacked size.
func corpusPacked(t *testing.T) (testEntry, int64) {
	_, arc := corpusData(t, "files/sharpcompress/tests/TestArchives/Archives/Rar.issue1050.rar")
	r, err := openBytes(arc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	x := r.(*reader)
	var best testEntry
	var bestSize int64
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		fh, off := x.cur, x.vol.pos
		if fh.method == 0 || fh.solid || fh.version != 0 || fh.unpSize <= bestSize {
			continue
		}
		c := crc32.NewIEEE()
		if _, err := io.Copy(c, r); err != nil {
			t.Fatal(err)
		}
		ci := uint64(fh.method)<<7 | uint64(dictLog(t, fh.dictSize))<<10
		best = testEntry{name: fh.name, data: arc[off : off+fh.dataSize], ci: ci, claimSize: fh.unpSize, unpCRC: c.Sum32()}
		bestSize = fh.unpSize
	}
	if bestSize < 1<<20 {
		t.Fatalf("no compressed entry of 1 MiB (largest %d)", bestSize)
	}
	return best, bestSize
}

// dictLog returns n of a RAR 5.0 dictionary of 128 KiB << n.
func dictLog(t *testing.T, dict uint64) int {
	for n := 0; n < 32; n++ {
		if 128<<10<<n == dict {
			return n
		}
	}
	t.Fatalf("dictionary %d is not a power of two", dict)
	return 0
}

// TestSteadyStateAlloc guards the decoders' steady state: once an entry
// is under way (window, tables and filter memory in place), reading on in
// readSize reads allocates nothing (the process may allocate a little
// meanwhile: two allocations are tolerated). The largest entry of
// Rar.issue1050.rar is RAR 5 LZ with DELTA filters.
func TestSteadyStateAlloc(t *testing.T) {
	for _, c := range []struct{ name, rel string }{
		{"rar5", "files/sharpcompress/tests/TestArchives/Archives/Rar.issue1050.rar"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, arc := corpusData(t, c.rel)
			r, err := Open(&archive.Input{R: bufio.NewReader(bytes.NewReader(arc)), Size: int64(len(arc))}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var e *archive.Entry
			for e == nil || e.Size < 4<<20 {
				if e, err = r.Next(); err != nil {
					t.Fatal(err)
				}
			}
			buf := make([]byte, readSize)
			if _, err := io.ReadFull(r, make([]byte, 1<<20)); err != nil {
				t.Fatal(err)
			}
			rest := (e.Size - 1<<20 - 64<<10) / readSize * readSize
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for n := rest; n > 0; n -= readSize {
				if _, err := io.ReadFull(r, buf); err != nil {
					t.Fatal(err)
				}
			}
			runtime.ReadMemStats(&m1)
			// Allow the odd allocation of the runtime itself (a timer, a
			// GC worker): one per read would be hundreds.
			if n := m1.Mallocs - m0.Mallocs; n > 2 {
				t.Errorf("reading %d bytes in %d-byte reads made %d allocations (%d bytes)", rest, readSize, n, m1.TotalAlloc-m0.TotalAlloc)
			}
		})
	}
}
