package sevenzip

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// FuzzSevenZip opens arbitrary bytes as a 7z archive and reads every entry:
// no panic, no hang, memory bounded by the limit.
func FuzzSevenZip(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.7z")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	// Keep each input fast: 7-Zip writes 2^19 rounds.
	maxCyclesPower = 19
	// A plain header lets the fuzzer mutate header fields directly.
	f.Add(build7z([]byte("hello"), twoFileHeader([]byte{0, 0, 0}, crc32.ChecksumIEEE([]byte("hello")))))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := openBytes(data, &archive.Options{Passwords: []string{"Secret"}, MemLimit: 1 << 24})
		if err != nil {
			return
		}
		defer r.Close()
		// Bound the work: decoding may legitimately expand a little input
		// into a lot of output, which is slow, not wrong.
		var total uint64
		for i := range r.db.si.folders {
			total += r.db.si.folders[i].unpackSize()
		}
		if total > 1<<24 {
			return
		}
		for {
			e, err := r.Next()
			if err != nil {
				break
			}
			n, _ := io.Copy(io.Discard, io.LimitReader(r, 1<<24))
			// No byte past a file's declared size, error or not.
			if e.Type == archive.TypeFile && e.Size >= 0 && n > e.Size {
				t.Fatalf("%s: %d bytes, more than the %d it declares", e.Name, n, e.Size)
			}
		}
	})
}

// FuzzBCJ2 decodes arbitrary main, call, jump and range-coder streams.
func FuzzBCJ2(f *testing.F) {
	f.Add([]byte{0xE8, 1, 2, 3, 4, 0x0F, 0x85, 9, 9, 9, 9, 0xE9, 0, 0, 0, 0}, []byte{0, 0, 0, 8}, []byte{0, 0, 1, 0}, []byte{0, 0x80, 0, 0, 0, 0, 0, 0}, uint16(64))
	f.Add([]byte("plain text without opcodes"), []byte{}, []byte{}, []byte{0, 0, 0, 0, 0}, uint16(26))
	f.Fuzz(func(t *testing.T, main, call, jump, rc []byte, size uint16) {
		in := []io.Reader{bytes.NewReader(main), bytes.NewReader(call), bytes.NewReader(jump), bytes.NewReader(rc)}
		r, err := newBCJ2(in, uint64(size))
		if err != nil {
			return
		}
		n, _ := io.Copy(io.Discard, r)
		if n > int64(size) {
			t.Fatalf("%d bytes out, size %d", n, size)
		}
	})
}

// TestBCJ2Identity: with no opcode converted, BCJ2 is the main stream.
func TestBCJ2Identity(t *testing.T) {
	main := []byte("abc\xE8\x00\x00\x00\x00xyz\x0F\x85\x01\x02\x03\x04end")
	// A range coder stream of zeros decodes every flag as 0.
	in := []io.Reader{bytes.NewReader(main), bytes.NewReader(nil), bytes.NewReader(nil), bytes.NewReader(make([]byte, 16))}
	r, err := newBCJ2(in, uint64(len(main)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, main) {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestBCJ2Convert: a converted CALL takes its absolute target from the call
// stream and stores it relative to the end of the instruction.
func TestBCJ2Convert(t *testing.T) {
	main := []byte{0x90, 0xE8}
	var call [4]byte
	binary.BigEndian.PutUint32(call[:], 0x1000)
	// Range coder bytes that decode the first flag as 1: code >= bound.
	rc := []byte{0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}
	in := []io.Reader{bytes.NewReader(main), bytes.NewReader(call[:]), bytes.NewReader(nil), bytes.NewReader(rc)}
	r, err := newBCJ2(in, 6)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x90, 0xE8, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(want[2:], 0x1000-6)
	if !bytes.Equal(got, want) {
		t.Fatalf("got % x, want % x", got, want)
	}
}
