package rar4

import (
	"bufio"
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"hash/crc32"
	"io"
	"runtime"
	"testing"
	"unsafe"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/rarcrypt"
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
			if x.unp.dec != nil {
				held = bufs{cap(x.unp.win), decoderSize(x.unp.dec),
					cap(x.unp.fmem) + cap(x.unp.filters)*int(unsafe.Sizeof(filter29{}))}
			}
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return total, held
}

// decoderSize is the size of a RAR 1.5–4 decoder's state.
func decoderSize(d decoder) int {
	switch d := d.(type) {
	case *unpack29:
		return int(unsafe.Sizeof(*d))
	case *unpack20:
		return int(unsafe.Sizeof(*d))
	case *unpack15:
		return int(unsafe.Sizeof(*d))
	}
	return 0
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

// rar3Entry is one entry for buildEncrypted.
type rar3Entry struct {
	name      string
	packed    []byte // the entry's data as stored (before encryption)
	unpSize   int64
	crc       uint32
	unpVer    byte
	method    byte   // 0x30 stored … 0x35
	dictFlags uint16 // fileDictMask bits
}

// buildEncrypted writes a RAR 2.9 archive of one entry whose data is
// encrypted with RAR 3 AES-128 under password (salted, as WinRAR does).
func buildEncrypted(t testing.TB, e rar3Entry, password string) []byte {
	salt := []byte("s4ltS4LT")
	k := rarcrypt.DeriveKey3(password, salt)
	data := make([]byte, (len(e.packed)+15)&^15)
	copy(data, e.packed)
	b, err := aes.NewCipher(k.Key[:])
	if err != nil {
		t.Fatal(err)
	}
	cipher.NewCBCEncrypter(b, k.IV[:]).CryptBlocks(data, data)

	return archiveBytes(e, filePassword|fileSalt, salt, data)
}

// archiveBytes writes a RAR 1.5–4 archive of one entry e whose data (as
// stored: packed, maybe encrypted) is data, with file header flags (the
// dictionary bits come from e) and salt (nil for none).
func archiveBytes(e rar3Entry, flags uint16, salt, data []byte) []byte {
	out := append([]byte(nil), marker...)
	out = append(out, block(blockMain, 0, make([]byte, 6))...)
	le := binary.LittleEndian
	body := make([]byte, 25)
	le.PutUint32(body, uint32(len(data)))
	le.PutUint32(body[4:], uint32(e.unpSize))
	body[8] = hostWin32
	le.PutUint32(body[9:], e.crc)
	le.PutUint32(body[13:], 0x5b7e6c21)
	body[17], body[18] = e.unpVer, e.method
	le.PutUint16(body[19:], uint16(len(e.name)))
	le.PutUint32(body[21:], 0x20)
	body = append(body, e.name...)
	body = append(body, salt...)
	out = append(out, block(blockFile, flagLong|flags|e.dictFlags, body)...)
	out = append(out, data...)
	return append(out, block(blockEnd, 0, nil)...)
}

// TestAllocEncrypted3 guards the bar for RAR 3 encryption: a stored
// entry of 1 MiB and the 2.9-compressed entry of Rar.Audio_program.rar
// (5 MiB, AUDIO and DELTA filters), both encrypted.
func TestAllocEncrypted3(t *testing.T) {
	t.Run("stored", func(t *testing.T) {
		data := patternData(1<<20, 12)
		arc := buildEncrypted(t, rar3Entry{name: "big", packed: data, unpSize: int64(len(data)),
			crc: crc32.ChecksumIEEE(data), unpVer: 29, method: 0x30}, "pw")
		checkAlloc(t, arc, "pw", int64(len(data)))
	})
	t.Run("compressed", func(t *testing.T) {
		_, arc := corpusData(t, "files/sharpcompress/tests/TestArchives/Archives/Rar.Audio_program.rar")
		r, err := openBytes(arc, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		x := r.(*reader)
		h := x.hdr
		e := rar3Entry{name: h.name, packed: arc[x.dataPos : x.dataPos+h.packSize], unpSize: h.unpSize,
			crc: h.crc, unpVer: h.unpVer, method: h.method, dictFlags: h.flags & fileDictMask}
		checkAlloc(t, buildEncrypted(t, e, "pw"), "pw", h.unpSize)
	})
}

// TestSteadyStateAlloc guards the decoders' steady state: once an entry
// is under way (window, tables and filter memory in place), reading on in
// readSize reads allocates nothing (the process may allocate a little
// meanwhile: two allocations are tolerated). The LZ29 entry of Rar.Audio_program.rar
// runs AUDIO and DELTA filters.
func TestSteadyStateAlloc(t *testing.T) {
	for _, c := range []struct{ name, rel string }{
		{"lz29", "files/sharpcompress/tests/TestArchives/Archives/Rar.Audio_program.rar"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, arc := corpusData(t, c.rel)
			off := bytes.Index(arc, marker)
			arc = arc[off:]
			r, err := Open(&archive.Input{R: bufio.NewReader(bytes.NewReader(arc)), Size: int64(len(arc))}, nil, int64(off))
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
