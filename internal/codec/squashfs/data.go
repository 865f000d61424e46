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
	frag *fragBlock // the tail's block, held
	out  []byte     // decoded, not yet delivered
	err  error
}

// Close gives the block buffer back to the pool and lets go of the tail's
// fragment block.
func (fr *fileReader) Close() error {
	if fr.buf != nil {
		fr.r.putBuf(fr.buf)
		fr.buf = nil
	}
	if fr.frag != nil {
		fr.r.frag.release(fr.r, fr.frag)
		fr.frag = nil
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
	fr.frag = block
	if int64(f.fragOff)+fr.left > int64(len(block.data)) {
		return archive.Corruptf("squashfs: %s: tail of %d bytes at %d in a fragment of %d", f.entry.Name, fr.left, f.fragOff, len(block.data))
	}
	fr.out = block.data[f.fragOff : int64(f.fragOff)+fr.left]
	return nil
}

var errClosed = errors.New("squashfs: read after Close")

// fragCache keeps the last few decoded fragment blocks: the tails of
// consecutive small files share one, which is then decoded once, not once
// per file. A cached block is never written while it is shared: it counts
// its holders (the cache while it keeps it, each file reading its tail)
// and goes back to the Reader's buffers when the last lets go.
type fragCache struct {
	mu    sync.Mutex
	slots []*fragBlock // nil: empty slot
	next  int
}

// fragBlock is decoded fragment block index, in a pooled buffer.
type fragBlock struct {
	index uint32
	data  []byte
	buf   *[]byte
	refs  int // holders, under fragCache.mu
}

// fragSlots is how many decoded fragment blocks are kept, fewer when the
// memory limit allows fewer blocks.
const fragSlots = 4

func (c *fragCache) init(blockSize, limit int64) {
	c.slots = make([]*fragBlock, max(1, min(fragSlots, limit/blockSize)))
}

// get returns block i with a hold on it for the caller, or nil.
func (c *fragCache) get(i uint32) *fragBlock {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.slots {
		if b != nil && b.index == i {
			b.refs++
			return b
		}
	}
	return nil
}

// put caches b, which the caller holds, and lets go of the block it
// evicts.
func (c *fragCache) put(r *Reader, b *fragBlock) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b.refs++
	old := c.slots[c.next]
	c.slots[c.next] = b
	c.next = (c.next + 1) % len(c.slots)
	if old != nil {
		c.drop(r, old)
	}
}

// release lets go of the caller's hold on b.
func (c *fragCache) release(r *Reader, b *fragBlock) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(r, b)
}

func (c *fragCache) drop(r *Reader, b *fragBlock) {
	if b.refs--; b.refs == 0 {
		r.putBuf(b.buf)
		b.buf, b.data = nil, nil
	}
}

// fragment returns decoded fragment block i, held for the caller until it
// calls r.frag.release (i is in range: checked when the inode was read).
func (r *Reader) fragment(i uint32) (*fragBlock, error) {
	if b := r.frag.get(i); b != nil {
		return b, nil
	}
	frag := r.frags[i]
	bp := r.getBuf()
	got, err := r.readBlock((*bp)[:r.sb.blockSize], frag.start, frag.size&^blockStored, frag.size&blockStored != 0)
	if err != nil {
		r.putBuf(bp)
		return nil, err
	}
	b := &fragBlock{index: i, data: (*bp)[:got], buf: bp, refs: 1}
	r.frag.put(r, b)
	return b, nil
}
