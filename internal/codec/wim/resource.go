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
// handing a run to another thread costs little next to decoding it,
// while the few buffers in use stay small (each new page of them is a
// fault).
const unitBytes = 128 << 10

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
	st      *liveChunk // the current unit when it is read as it decodes
	liveMin int64      // the size from which an LZMS chunk is read live
	free    [][]byte   // buffers of the units given back, for reuse
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

// read copies the bytes of unit u of res from off into p.
func (c *chunkCache) read(res *resource, u, off int64, p []byte, limit int64) (int, error) {
	k := unitKey{res, u}
	if c.cur != k || c.data == nil && c.st == nil {
		if err := c.load(res, u, limit); err != nil {
			return 0, err
		}
	}
	if c.st != nil {
		return c.st.read(int(off), p)
	}
	return copy(p, c.data[off:]), nil
}

// liveMin is the size from which an LZMS chunk is read while it decodes
// (a solid chunk; non-solid ones are 128 KiB), unless the cache says
// otherwise.
const liveMin = 4 << 20

// load makes unit u of res the current one: decoded, or decoding on
// another goroutine while it is read.
func (c *chunkCache) load(res *resource, u int64, limit int64) error {
	if err := res.loadChunks(limit); err != nil {
		return err
	}
	c.release()
	k := unitKey{res, u}
	d, ok := c.ahead[k]
	delete(c.ahead, k)
	// The units after this one start before it is decoded here, so that
	// the other threads work from the first unit of a resource on.
	c.prefetch(res, u, limit, !ok)
	if !ok && c.threads > 1 && res.ctype == compLZMS && res.group == 1 {
		usize := min(res.chunkSize, res.usize-u*res.chunkSize)
		if csize := res.chunks[u+1] - res.chunks[u]; usize >= c.liveMin && csize < usize {
			c.cur, c.st = k, c.startLive(res, u, usize)
			return nil
		}
	}
	var data []byte
	var err error
	if ok {
		<-d.done
		data, err = d.data, d.err
	} else {
		data, err = c.decode(res, u, c.buffer(res))
	}
	if err != nil {
		return err
	}
	c.cur, c.data = k, data
	return nil
}

// release gives back the current unit's buffer, unless it is still being
// decoded into.
func (c *chunkCache) release() {
	if c.data != nil {
		c.free = append(c.free, c.data)
		c.data = nil
	}
	if s := c.st; s != nil {
		c.st = nil
		s.mu.Lock()
		fin := s.fin
		s.mu.Unlock()
		if fin {
			c.free = append(c.free, s.buf)
		}
	}
	c.cur = unitKey{}
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
// are threads (less the one decoding u when own) and the memory limit
// allows, and forgets those of other resources (their goroutines end on
// their own).
func (c *chunkCache) prefetch(res *resource, u int64, limit int64, own bool) {
	for k := range c.ahead {
		if k.res != res || k.u <= u {
			delete(c.ahead, k)
		}
	}
	ahead := min(int64(c.threads), limit/(2*res.span())-2)
	if ahead <= 1 {
		return
	}
	if own {
		// More goroutines than threads would only take turns, each
		// with its own decoder and buffer: new memory, page faults.
		ahead--
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
			var err error
			if d, err = c.decoder(res); err != nil {
				return nil, err
			}
			defer c.putDecoder(res, d)
		}
		if err := d.Decode(out, in); err != nil {
			return nil, chunkErr(res, err)
		}
	}
	return data, nil
}

// chunkErr makes a decoder's error one of the archive's.
func chunkErr(res *resource, err error) error {
	if !archive.Categorized(err) {
		err = archive.Corruptf("wim: %s chunk: %v", compNames[res.ctype], err)
	}
	return err
}

// decoder returns an idle decoder of res's chunks, or a new one.
func (c *chunkCache) decoder(res *resource) (chunkDecoder, error) {
	key := [2]int64{int64(res.ctype), res.chunkSize}
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.decs[key]; len(l) > 0 {
		c.decs[key] = l[:len(l)-1]
		return l[len(l)-1], nil
	}
	return newDecoder(res.ctype, res.chunkSize)
}

// putDecoder keeps d for the next chunk of its kind.
func (c *chunkCache) putDecoder(res *resource, d chunkDecoder) {
	key := [2]int64{int64(res.ctype), res.chunkSize}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.decs == nil {
		c.decs = map[[2]int64][]chunkDecoder{}
	}
	c.decs[key] = append(c.decs[key], d)
}

// liveStep is how much of a live chunk decodes between the times its
// reader is told.
const liveStep = 256 << 10

// liveChunk is an LZMS chunk decoding on another goroutine while it is
// read: its bytes are copied as they are decoded, the x86 pass undone on
// the copies (the chunk stays as decoded, for the matches after).
type liveChunk struct {
	buf  []byte // the chunk, then its compressed bytes
	data []byte
	x    lzms.X86
	pos  int // where the last copy ended

	mu   sync.Mutex
	cond sync.Cond
	n    int // bytes of data decoded
	fin  bool
	err  error
}

// startLive starts decoding chunk i of res, of usize bytes, on another
// goroutine.
func (c *chunkCache) startLive(res *resource, i, usize int64) *liveChunk {
	s := &liveChunk{buf: c.buffer(res)}
	s.data = s.buf[:usize]
	s.cond.L = &s.mu
	s.x.Reset(len(s.data))
	go func() {
		err := c.decodeLive(res, i, s)
		s.mu.Lock()
		s.fin, s.err = true, err
		s.mu.Unlock()
		s.cond.Broadcast()
	}()
	return s
}

// decodeLive reads chunk i of res and decodes it into s, telling its
// reader every liveStep bytes.
func (c *chunkCache) decodeLive(res *resource, i int64, s *liveChunk) error {
	src := s.buf[res.span() : res.span()+res.chunks[i+1]-res.chunks[i]]
	if _, err := res.p.ra.ReadAt(src, res.chunks[i]); err != nil {
		return readErr(err)
	}
	d, err := c.decoder(res)
	if err != nil {
		return err
	}
	defer c.putDecoder(res, d)
	err = d.(*lzms.Decoder).DecodeRaw(s.data, src, liveStep, func(n int) {
		s.mu.Lock()
		s.n = n
		s.mu.Unlock()
		s.cond.Broadcast()
	})
	if err != nil {
		return chunkErr(res, err)
	}
	return nil
}

// read copies the chunk's bytes from off into p, once decoded.
func (s *liveChunk) read(off int, p []byte) (int, error) {
	if off < s.pos {
		// Back to an earlier blob: the x86 pass again from the start.
		s.x.Reset(len(s.data))
	}
	seen := -1
	for {
		s.mu.Lock()
		for s.n == seen && !s.fin {
			s.cond.Wait()
		}
		n, fin, err := s.n, s.fin, s.err
		s.mu.Unlock()
		if err != nil {
			return 0, err
		}
		seen = n
		if done := s.x.Advance(s.data, n, off+len(p)); done > off {
			k := min(done-off, len(p))
			s.x.Copy(p[:k], s.data, off)
			s.pos = off + k
			return k, nil
		}
		if fin {
			return 0, archive.Corruptf("wim: read past a solid chunk")
		}
	}
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
	got, err := r.cache.read(res, u, at-u*res.unitSize(), p[:n], r.limit)
	r.pos += int64(got)
	return got, err
}
