package squashfs

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
)

// fileReader decodes a file's blocks in order, then its tail from its
// fragment.
type fileReader struct {
	r    *Reader
	f    *file
	i    int   // next block
	at   int64 // where block i is stored
	left int64 // bytes still to deliver
	buf  *[]byte
	out  []byte // decoded, not yet delivered
	err  error
}

// Close gives the block buffer back to the pool.
func (fr *fileReader) Close() error {
	if fr.buf != nil {
		fr.r.putBuf(fr.buf)
		fr.buf = nil
	}
	fr.out = nil
	if fr.err == nil {
		fr.err = errClosed
	}
	return nil
}

func (r *Reader) data(f *file) *fileReader {
	return &fileReader{r: r, f: f, at: f.start, left: f.size}
}

func (fr *fileReader) Read(p []byte) (int, error) {
	for len(fr.out) == 0 {
		if fr.err != nil {
			return 0, fr.err
		}
		if fr.left == 0 {
			return 0, io.EOF
		}
		fr.err = fr.fill()
	}
	n := copy(p, fr.out)
	fr.out = fr.out[n:]
	fr.left -= int64(n)
	return n, nil
}

// fill decodes the next block, or the fragment tail.
func (fr *fileReader) fill() error {
	f, bs := fr.f, fr.f.blockSize
	want := min(bs, fr.left)
	if fr.i < len(f.sizes) {
		if fr.buf == nil {
			fr.buf = fr.r.getBuf()
		}
		buf := (*fr.buf)[:bs]
		size := f.sizes[fr.i]
		fr.i++
		n := size &^ blockStored
		if n == 0 { // a sparse block
			clear(buf[:want])
			fr.out = buf[:want]
			return nil
		}
		got, err := fr.r.readBlock(buf, fr.at, n, size&blockStored != 0)
		fr.at += int64(n)
		if err != nil {
			return fmt.Errorf("%s: block %d: %w", f.entry.Name, fr.i-1, err)
		}
		if int64(got) != want {
			return archive.Corruptf("squashfs: %s: block %d decodes to %d bytes, want %d", f.entry.Name, fr.i-1, got, want)
		}
		fr.out = buf[:got]
		return nil
	}
	if f.frag == noFragment {
		return archive.Corruptf("squashfs: %s: %d bytes past its blocks", f.entry.Name, fr.left)
	}
	block, err := fr.r.fragment(f.frag)
	if err != nil {
		return fmt.Errorf("%s: fragment %d: %w", f.entry.Name, f.frag, err)
	}
	if int64(f.fragOff)+fr.left > int64(len(block)) {
		return archive.Corruptf("squashfs: %s: tail of %d bytes at %d in a fragment of %d", f.entry.Name, fr.left, f.fragOff, len(block))
	}
	fr.out = block[f.fragOff : int64(f.fragOff)+fr.left]
	return nil
}

var errClosed = errors.New("squashfs: read after Close")

// fragCache keeps the last few decoded fragment blocks: the tails of
// consecutive small files share one, which is then decoded once, not once
// per file. Cached blocks are never written again (an evicted one is left
// to the files still reading it), so they are shared between goroutines.
type fragCache struct {
	mu    sync.Mutex
	slots []cachedFrag
	next  int
}

type cachedFrag struct {
	index uint32
	data  []byte // nil: empty slot
}

// fragSlots is how many decoded fragment blocks are kept, fewer when the
// memory limit allows fewer blocks.
const fragSlots = 4

func (c *fragCache) init(blockSize, limit int64) {
	c.slots = make([]cachedFrag, max(1, min(fragSlots, limit/blockSize)))
}

func (c *fragCache) get(i uint32) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.slots {
		if s.data != nil && s.index == i {
			return s.data
		}
	}
	return nil
}

func (c *fragCache) put(i uint32, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slots[c.next] = cachedFrag{i, data}
	c.next = (c.next + 1) % len(c.slots)
}

// fragment returns decoded fragment block i (i is in range: checked when
// the inode was read).
func (r *Reader) fragment(i uint32) ([]byte, error) {
	if b := r.frag.get(i); b != nil {
		return b, nil
	}
	frag := r.frags[i]
	buf := make([]byte, r.sb.blockSize)
	got, err := r.readBlock(buf, frag.start, frag.size&^blockStored, frag.size&blockStored != 0)
	if err != nil {
		return nil, err
	}
	r.frag.put(i, buf[:got])
	return buf[:got], nil
}
