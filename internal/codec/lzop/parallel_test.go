package lzop

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// multiBlock returns a stream of many blocks and members (every checksum
// flag, a stored block, an empty member) and its decoded bytes: the
// fixtures concatenated, and when lzop is installed (and the race detector
// off, for time), a file of 2 MiB
// compressed by it with every checksum.
func multiBlock(t testing.TB) (data, want []byte) {
	t.Helper()
	for _, name := range []string{"text-1.lzo", "small-crc32-cc.lzo", "text-9.lzo", "empty-3.lzo",
		"noise-3.lzo", "mixed-3.lzo", "two.lzo", "text-3.lzo", "small-nocheck.lzo"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	if _, err := exec.LookPath("lzop"); err == nil && !testing.Short() && !testutil.RaceEnabled &&
		os.Getenv(testutil.NoProcessesEnv) == "" {
		r := rand.New(rand.NewSource(2))
		var in bytes.Buffer
		for in.Len() < 2<<20 {
			if r.Intn(3) == 0 {
				b := make([]byte, 1+r.Intn(5000))
				r.Read(b)
				in.Write(b)
			} else {
				fmt.Fprintf(&in, "%d %x ", r.Intn(1000), r.Intn(1<<20))
			}
		}
		cmd := exec.Command("lzop", "-CC", "--crc32", "-c")
		cmd.Stdin = bytes.NewReader(in.Bytes())
		z, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, z...)
	}
	want, err := decode(data, 1, serialBlocks, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	return data, want
}

// decode decodes data with the given threads, serial blocks and memory
// limit, by WriteTo or by Read one byte at a time, and returns what was
// handed out before the error.
func decode(data []byte, threads int, serial, limit int64, oneByte bool) ([]byte, error) {
	z, err := NewReader(bytes.NewReader(data), limit)
	if err != nil {
		return nil, err
	}
	z.SetThreads(threads)
	z.serial = serial
	var out bytes.Buffer
	if oneByte {
		_, err = io.Copy(&out, iotest.OneByteReader(z))
	} else {
		_, err = z.WriteTo(&out)
	}
	return out.Bytes(), err
}

// blockAt is where a block starts in a stream, and what it holds.
type blockAt struct {
	off, data  int64 // its header's offset, its data's
	clen, dlen int
	out        int64 // its output's offset
}

// blocks lists the blocks of a valid stream.
func blocks(t testing.TB, data []byte) []blockAt {
	t.Helper()
	z, err := NewReader(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	var list []blockAt
	var out int64
	for {
		var h blockHead
		end, err := z.readHead(&h)
		if err != nil {
			t.Fatal(err)
		}
		if end {
			if err := z.nextMember(); err == io.EOF {
				return list
			} else if err != nil {
				t.Fatal(err)
			}
			continue
		}
		if h.n != int64(len(list)+1) {
			t.Fatalf("block %d numbered %d", len(list)+1, h.n)
		}
		list = append(list, blockAt{off: h.off, data: z.off, clen: h.clen, dlen: h.dlen, out: out})
		out += int64(h.dlen)
		if err := z.full(make([]byte, h.clen)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestThreads decodes the fixtures and a stream of many blocks and members
// on one goroutine and on several, going parallel from different blocks,
// within memory limits that let one block or several be in flight.
func TestThreads(t *testing.T) {
	data, want := multiBlock(t)
	if n := len(blocks(t, data)); n < 10 {
		t.Fatalf("%d blocks", n)
	}
	inputs := map[string][]byte{"multi": data}
	for _, f := range fixtures {
		inputs[f.file] = testutil.Fixture(t, f.file)
	}
	for name, in := range inputs {
		ref, err := decode(in, 1, serialBlocks, 0, false)
		if err != nil {
			t.Fatal(name, err)
		}
		if name == "multi" && !bytes.Equal(ref, want) {
			t.Fatal("multi: serial decodes differ")
		}
		for _, threads := range []int{2, 3, 8} {
			for _, serial := range []int64{0, 1, serialBlocks} {
				for _, limit := range []int64{0, 300 << 10, 2 << 20} {
					for _, oneByte := range []bool{false, true} {
						if oneByte && (name != "multi" || limit != 0) {
							continue
						}
						got, err := decode(in, threads, serial, limit, oneByte)
						if err != nil || !bytes.Equal(got, ref) {
							t.Fatalf("%s threads %d serial %d limit %d one byte %v: %d bytes, %v; want %d",
								name, threads, serial, limit, oneByte, len(got), err, len(ref))
						}
					}
				}
			}
		}
	}
}

// TestParallelDamage cuts the stream short and flips bytes in and around
// every block: the parallel decode hands out exactly the blocks before the
// damaged one, then an error naming it, as the serial decode does.
func TestParallelDamage(t *testing.T) {
	data, want := multiBlock(t)
	list := blocks(t, data)
	threadsList, serialList := []int{1, 2, 4}, []int64{0, 2}
	if testutil.RaceEnabled {
		threadsList, serialList = []int{2}, []int64{0}
	}
	for k, b := range list {
		n := int64(k + 1)
		check := func(what string, in []byte, wantErr error) {
			t.Helper()
			for _, threads := range threadsList {
				for _, serial := range serialList {
					got, err := decode(in, threads, serial, 0, false)
					var be *BlockError
					if !errors.As(err, &be) || be.Block != n || be.Offset != b.off || !errors.Is(err, wantErr) {
						t.Fatalf("block %d %s, %d threads from block %d: %v, want block %d at %d, %v",
							n, what, threads, serial, err, n, b.off, wantErr)
					}
					if !bytes.Equal(got, want[:b.out]) {
						t.Fatalf("block %d %s, %d threads from block %d: %d bytes handed out, want %d",
							n, what, threads, serial, len(got), b.out)
					}
				}
			}
		}
		for _, cut := range []int64{b.off, b.off + 3, b.off + 6, b.data - 1, b.data, b.data + int64(b.clen)/2, b.data + int64(b.clen) - 1} {
			check(fmt.Sprintf("cut at %d", cut), data[:cut], ErrTruncated)
		}
		flip := func(pos int64, mask byte) []byte {
			bad := bytes.Clone(data)
			bad[pos] ^= mask
			return bad
		}
		check("size flipped", flip(b.off, 0x80), ErrBlock)
		check("compressed size flipped", flip(b.off+4, 0x80), ErrBlock)
		if b.data-b.off > 8 {
			check("checksum flipped", flip(b.off+8, 1), verify.ErrChecksum)
		}
		if b.clen < b.dlen {
			// The decoder or a checksum (every fixture's data has one,
			// but small-nocheck's) finds a flip in the compressed data.
			bad := flip(b.data+int64(b.clen)/2, 0x20)
			got, err := decode(bad, 2, 0, 0, false)
			var be *BlockError
			if !errors.As(err, &be) || be.Block != n {
				if err == nil && bytes.Equal(got, want) {
					continue // a flip that changes nothing, or in an unchecked block
				}
				t.Fatalf("block %d data flipped: %v", n, err)
			}
			if !bytes.Equal(got, want[:b.out]) {
				t.Fatalf("block %d data flipped: %d bytes handed out, want %d", n, len(got), b.out)
			}
		}
	}
}

// TestParallelLimit: a block above the memory limit fails, naming it, in
// the parallel decode too.
func TestParallelLimit(t *testing.T) {
	data, want := multiBlock(t)
	list := blocks(t, data)
	for _, b := range list {
		if b.dlen <= 200<<10 {
			continue
		}
		got, err := decode(data, 2, 0, 200<<10, false)
		var be *BlockError
		if !errors.Is(err, archive.ErrLimit) || !errors.As(err, &be) || be.Offset != b.off || !bytes.Equal(got, want[:b.out]) {
			t.Fatalf("%d bytes, %v; want %d bytes and the limit at the block at %d", len(got), err, b.out, b.off)
		}
		return
	}
	t.Fatal("no block above 200 KiB")
}

// TestParallelReset resets and closes a Reader in the middle of a
// parallel decode, its blocks still in flight, and decodes again with it.
func TestParallelReset(t *testing.T) {
	data, want := multiBlock(t)
	z, err := NewReader(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	z.SetThreads(4)
	for i := range 5 {
		z.serial = int64(i % 2)
		if _, err := io.CopyN(io.Discard, z, int64(i)*100<<10+1); err != nil {
			t.Fatal(err)
		}
		if err := z.Reset(bytes.NewReader(data), 0); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := z.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("after reset %d: %d bytes, %v", i, out.Len(), err)
		}
		if err := z.Reset(bytes.NewReader(data), 0); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			// Close with blocks in flight: their memory is unmapped
			// once they are done, and Reads fail.
			if _, err := io.CopyN(io.Discard, z, int64(len(want)/2)); err != nil {
				t.Fatal(err)
			}
			z.Close()
			if n, err := z.Read(make([]byte, 10)); n != 0 || err == nil {
				t.Fatalf("Read after Close: %d, %v", n, err)
			}
			if err := z.Reset(bytes.NewReader(data), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func BenchmarkThreads(b *testing.B) {
	data, want := multiBlock(b)
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprint(threads), func(b *testing.B) {
			var z Reader
			br := bytes.NewReader(data)
			b.SetBytes(int64(len(want)))
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(data)
				if err := z.Reset(br, 0); err != nil {
					b.Fatal(err)
				}
				z.SetThreads(threads)
				if n, err := z.WriteTo(io.Discard); err != nil || n != int64(len(want)) {
					b.Fatalf("decoded %d bytes, %v; want %d", n, err, len(want))
				}
			}
		})
	}
}
