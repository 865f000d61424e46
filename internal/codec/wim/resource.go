package wim

import (
	"encoding/binary"
	"io"
	"math"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzms"
	"github.com/unpack-dev/unpack/internal/codec/lzx"
	"github.com/unpack-dev/unpack/internal/codec/xpress"
	"github.com/unpack-dev/unpack/internal/hugemem"
)

// part is one file of a (possibly split) WIM.
type part struct {
	ra   io.ReaderAt
	size int64
	hdr  header
	name string
}

// resource is a run of stored bytes: raw, compressed in independent
// chunks with a chunk table in front (the WIM's compression), or solid
// (its own header naming size, chunk size and compression, then the
// compressed sizes of its chunks).
type resource struct {
	p         *part
	h         reshdr
	ctype     int
	chunkSize int64
	usize     int64
	solid     bool
	chunks    []int64 // file offsets where the chunks start, then where the last ends
	group     int64   // chunks decoded as one unit (setUnit)
}

// blob is a piece of data named by its SHA-1: a whole non-solid resource,
// or a range of a solid one.
type blob struct {
	res  *resource
	off  int64
	size int64
	hash [20]byte
}

// chunkDecoder decodes one compressed chunk into all of dst.
type chunkDecoder interface {
	Decode(dst, src []byte) error
}

func newDecoder(ctype int, chunkSize int64) (chunkDecoder, error) {
	switch ctype {
	case compXPRESS:
		return new(xpress.Decoder), nil
	case compLZMS:
		return new(lzms.Decoder), nil
	case compLZX:
		// The window is the chunk size.
		bits := 0
		for int64(1)<<bits < chunkSize {
			bits++
		}
		d, err := lzx.NewDecoder(bits, lzx.WIM)
		if err != nil {
			return nil, archive.Unsupportedf("wim: LZX chunks of %d bytes", chunkSize)
		}
		return &lzxChunks{d}, nil
	}
	return nil, archive.Unsupportedf("wim: compression type %d", ctype)
}

// lzxChunks decodes WIM's LZX chunks, each on its own.
type lzxChunks struct {
	d *lzx.Decoder
}

func (l *lzxChunks) Decode(dst, src []byte) error {
	_, err := l.d.Decode(dst, src)
	return err
}

// checkChunkSize refuses chunk sizes the format does not allow or the
// memory limit does not.
func checkChunkSize(ctype int, size uint32, limit int64) error {
	if size < 4096 || size&(size-1) != 0 || size > 1<<30 {
		return archive.Corruptf("wim: chunk size %d", size)
	}
	if ctype == compXPRESS && size > xpress.MaxBlock {
		return archive.Unsupportedf("wim: XPRESS chunks of %d bytes", size)
	}
	if ctype == compLZX && size > 1<<lzx.MaxWindowBits {
		return archive.Unsupportedf("wim: LZX chunks of %d bytes", size)
	}
	if 2*int64(size) > limit {
		return archive.Limitf("wim: chunks of %d bytes exceed the memory limit", size)
	}
	return nil
}

// loadChunks reads the resource's chunk table, once.
func (res *resource) loadChunks(limit int64) error {
	if res.chunks != nil || res.ctype == compNone {
		return nil
	}
	h := res.h
	n := (res.usize + res.chunkSize - 1) / res.chunkSize
	start := h.offset
	var entries int64
	es := int64(4)
	if res.solid {
		entries = n
		start += 16
	} else {
		entries = n - 1
		if res.usize > math.MaxUint32 {
			es = 8
		}
	}
	// The table lies within the resource, so its size is bounded by the
	// file's; the limit bounds what is kept of it.
	if entries*es > h.size-(start-h.offset) || (n+1)*8 > limit {
		return archive.Corruptf("wim: chunk table of %d chunks does not fit a resource of %d bytes", n, h.size)
	}
	tab := make([]byte, entries*es)
	if _, err := res.p.ra.ReadAt(tab, start); err != nil {
		return readErr(err)
	}
	data := start + entries*es
	end := h.offset + h.size
	chunks := make([]int64, n+1)
	le := binary.LittleEndian
	// A solid resource lists each chunk's stored size; the others where
	// each chunk after the first starts.
	chunks[0] = data
	for i := int64(1); i <= n; i++ {
		switch {
		case res.solid:
			chunks[i] = chunks[i-1] + int64(le.Uint32(tab[4*(i-1):]))
		case i == n:
			chunks[i] = end
		case es == 4:
			chunks[i] = data + int64(le.Uint32(tab[4*(i-1):]))
		default:
			chunks[i] = data + int64(le.Uint64(tab[8*(i-1):])&(1<<62-1))
		}
	}
	for i := int64(0); i < n; i++ {
		csize := chunks[i+1] - chunks[i]
		usize := min(res.chunkSize, res.usize-i*res.chunkSize)
		if csize <= 0 || csize > usize || chunks[i+1] > end {
			return archive.Corruptf("wim: chunk %d of a resource at %d: %d bytes stored for %d", i, h.offset, csize, usize)
		}
	}
	res.chunks = chunks
	return nil
}

// openSolid reads a solid resource's header.
func openSolid(p *part, h reshdr, limit int64) (*resource, error) {
	var b [16]byte
	if h.size < 16 || h.offset > p.size-h.size {
		return nil, archive.Corruptf("wim: solid resource at %d outside the file", h.offset)
	}
	if _, err := p.ra.ReadAt(b[:], h.offset); err != nil {
		return nil, readErr(err)
	}
	le := binary.LittleEndian
	res := &resource{p: p, h: h, solid: true, usize: int64(le.Uint64(b[:]) & (1<<62 - 1)),
		chunkSize: int64(le.Uint32(b[8:])), ctype: int(le.Uint32(b[12:]))}
	if res.ctype > compLZMS {
		return nil, archive.Unsupportedf("wim: compression type %d", res.ctype)
	}
	if res.ctype == compNone {
		// Never written that I know of; would be a raw run after the
		// header.
		return nil, archive.Unsupportedf("wim: uncompressed solid resources")
	}
	if err := checkChunkSize(res.ctype, uint32(res.chunkSize), limit); err != nil {
		return nil, err
	}
	if res.usize == 0 {
		return nil, archive.Corruptf("wim: empty solid resource")
	}
	res.setUnit(limit)
	return res, nil
}

// unitBytes is about how much output the chunk cache decodes at a time:
// small chunks (32 KiB XPRESS and LZX) are decoded in runs, so that
// handing a run to another thread costs little next to decoding it.
const unitBytes = 512 << 10

// setUnit sets how many chunks of res make one unit of decoding: about
// unitBytes, within a quarter of the memory limit (a unit's buffer is
// twice its size, and one is decoded ahead).
func (res *resource) setUnit(limit int64) {
	res.group = max(1, min(unitBytes, limit/4)/res.chunkSize)
}

// unitSize is how many bytes of output a unit of res holds (the last
// one fewer).
func (res *resource) unitSize() int64 { return res.group * res.chunkSize }

// span is the most one unit of res holds: a small resource's unit is no
// bigger than the resource.
func (res *resource) span() int64 { return min(res.unitSize(), res.usize) }

// chunkCache keeps the last unit (a run of chunks) decompressed (the
// entries of a solid resource are read in order, several from one
// chunk) and decodes the units after it on other goroutines while it is
// read: chunks are independent.
type chunkCache struct {
	cur     unitKey
	data    []byte
	ahead   map[unitKey]*decoded
	free    [][]byte // buffers of the units given back, for reuse
	threads int

	mu   sync.Mutex
	decs map[[2]int64][]chunkDecoder // idle decoders by compression and chunk size
}

type unitKey struct {
	res *resource
	u   int64
}

// decoded is a unit decoded, or being decoded, ahead.
type decoded struct {
	done chan struct{}
	data []byte
	err  error
}

// unit returns unit u of res, decompressed.
func (c *chunkCache) unit(res *resource, u int64, limit int64) ([]byte, error) {
	k := unitKey{res, u}
	if c.data != nil && c.cur == k {
		return c.data, nil
	}
	if err := res.loadChunks(limit); err != nil {
		return nil, err
	}
	if c.data != nil {
		c.free = append(c.free, c.data)
		c.data = nil
	}
	d, ok := c.ahead[k]
	delete(c.ahead, k)
	// The units after this one start before it is decoded here, so that
	// the other threads work from the first unit of a resource on.
	c.prefetch(res, u, limit)
	var data []byte
	var err error
	if ok {
		<-d.done
		data, err = d.data, d.err
	} else {
		data, err = c.decode(res, u, c.buffer(res))
	}
	if err != nil {
		return nil, err
	}
	c.cur, c.data = k, data
	return data, nil
}

// buffer returns room for a unit and its compressed form.
func (c *chunkCache) buffer(res *resource) []byte {
	n := 2 * res.span()
	for len(c.free) > 0 {
		b := c.free[len(c.free)-1]
		c.free = c.free[:len(c.free)-1]
		if int64(cap(b)) >= n {
			return b[:n]
		}
	}
	// A solid chunk is tens of MiB touched once: on huge pages that is a
	// few dozen faults, not one per 4 KiB.
	return hugemem.Aligned(int(n))
}

// prefetch starts decoding the units after u of res, as many as there
// are threads and the memory limit allows, and forgets those of other
// resources (their goroutines end on their own).
func (c *chunkCache) prefetch(res *resource, u int64, limit int64) {
	for k := range c.ahead {
		if k.res != res || k.u <= u {
			delete(c.ahead, k)
		}
	}
	ahead := min(int64(c.threads), limit/(2*res.span())-2)
	if ahead <= 1 {
		return
	}
	if c.ahead == nil {
		c.ahead = map[unitKey]*decoded{}
	}
	n := (res.usize + res.unitSize() - 1) / res.unitSize()
	for j := u + 1; j <= u+ahead && j < n; j++ {
		k := unitKey{res, j}
		if c.ahead[k] != nil {
			continue
		}
		d := &decoded{done: make(chan struct{})}
		c.ahead[k] = d
		buf := c.buffer(res)
		go func() {
			d.data, d.err = c.decode(res, j, buf)
			close(d.done)
		}()
	}
}

// decode decodes unit u of res into buf (twice its span: the unit, then
// room for its compressed bytes, read at once) and returns the unit's
// bytes.
func (c *chunkCache) decode(res *resource, u int64, buf []byte) ([]byte, error) {
	first := u * res.group
	last := min(first+res.group, int64(len(res.chunks)-1))
	at := first * res.chunkSize
	data := buf[:min(res.unitSize(), res.usize-at)]
	// Each chunk stores no more than it holds: the compressed bytes fit
	// the unit's span.
	base := res.chunks[first]
	src := buf[res.span() : res.span()+res.chunks[last]-base]
	if _, err := res.p.ra.ReadAt(src, base); err != nil {
		return nil, readErr(err)
	}
	var d chunkDecoder
	key := [2]int64{int64(res.ctype), res.chunkSize}
	for i := first; i < last; i++ {
		out := data[(i-first)*res.chunkSize:]
		out = out[:min(res.chunkSize, int64(len(out)))]
		in := src[res.chunks[i]-base : res.chunks[i+1]-base]
		if len(in) == len(out) {
			// Stored: compression did not help.
			copy(out, in)
			continue
		}
		if d == nil {
			c.mu.Lock()
			if l := c.decs[key]; len(l) > 0 {
				d = l[len(l)-1]
				c.decs[key] = l[:len(l)-1]
			}
			c.mu.Unlock()
			if d == nil {
				var err error
				if d, err = newDecoder(res.ctype, res.chunkSize); err != nil {
					return nil, err
				}
			}
		}
		if err := d.Decode(out, in); err != nil {
			if !archive.Categorized(err) {
				err = archive.Corruptf("wim: %s chunk: %v", compNames[res.ctype], err)
			}
			return nil, err
		}
	}
	if d != nil {
		c.mu.Lock()
		if c.decs == nil {
			c.decs = map[[2]int64][]chunkDecoder{}
		}
		c.decs[key] = append(c.decs[key], d)
		c.mu.Unlock()
	}
	return data, nil
}

// blobReader reads a blob's bytes.
type blobReader struct {
	b     *blob
	pos   int64 // in the blob
	cache *chunkCache
	limit int64
}

func (r *blobReader) Read(p []byte) (int, error) {
	if r.pos >= r.b.size {
		return 0, io.EOF
	}
	res := r.b.res
	at := r.b.off + r.pos
	n := int(min(int64(len(p)), r.b.size-r.pos))
	if res.ctype == compNone {
		got, err := res.p.ra.ReadAt(p[:n], res.h.offset+at)
		r.pos += int64(got)
		if got == n {
			err = nil
		}
		return got, readErr(err)
	}
	u := at / res.unitSize()
	data, err := r.cache.unit(res, u, r.limit)
	if err != nil {
		return 0, err
	}
	got := copy(p[:n], data[at-u*res.unitSize():])
	r.pos += int64(got)
	return got, nil
}
