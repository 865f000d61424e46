package cfb

import "io"

// Open returns a reader of stream e's data.
func (f *File) Open(e *Entry) (io.Reader, error) {
	if e.Storage || e.Size == 0 {
		return &streamReader{}, nil
	}
	if uint64(e.Size) < f.miniCutoff {
		secs, err := f.miniChain(e.start, e.Size)
		if err != nil {
			return nil, err
		}
		return &streamReader{f: f, secs: secs, shift: f.miniShift, mini: true, left: e.Size}, nil
	}
	secs, err := f.chain(e.start, e.Size)
	if err != nil {
		return nil, err
	}
	return &streamReader{f: f, secs: secs, shift: f.shift, left: e.Size}, nil
}

// miniChain returns the mini sectors of a stream of n bytes in the mini
// stream, which must hold them.
func (f *File) miniChain(start uint32, n int64) ([]uint32, error) {
	need := (n + 1<<f.miniShift - 1) >> f.miniShift
	if need<<f.miniShift > f.miniSize+(1<<f.miniShift) || need > int64(len(f.miniFAT)) {
		return nil, ErrChain
	}
	seen := make(map[uint32]bool, need)
	out := make([]uint32, 0, need)
	s := start
	for int64(len(out)) < need {
		if int64(s) >= int64(len(f.miniFAT)) || int64(s)<<f.miniShift >= f.miniSize {
			return nil, ErrChain
		}
		if seen[s] {
			return nil, ErrChain
		}
		seen[s] = true
		out = append(out, s)
		s = f.miniFAT[s]
	}
	return out, nil
}

// streamReader reads a stream sector by sector.
type streamReader struct {
	f     *File
	secs  []uint32
	shift uint
	mini  bool
	left  int64
	pos   int64
}

func (r *streamReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	size := int64(1) << r.shift
	within := r.pos & (size - 1)
	want := min(int64(len(p)), r.left)
	n := min(want, size-within)
	i := r.pos >> r.shift
	off := int64(r.secs[i])<<r.shift + within
	// Sectors that follow each other in the file are read at once
	// (writers lay streams out so): one read per run, not per sector.
	for !r.mini && n < want && i+1 < int64(len(r.secs)) && r.secs[i+1] == r.secs[i]+1 {
		n = min(want, n+size)
		i++
	}
	if r.mini {
		// A place in the mini stream, itself a chain of regular sectors.
		off = int64(r.f.mini[off>>r.f.shift]+1)<<r.f.shift + off&(1<<r.f.shift-1)
	} else {
		off += size // sector 0 follows the header's sector
	}
	m, err := r.f.ra.ReadAt(p[:n], off)
	r.pos += int64(m)
	r.left -= int64(m)
	if int64(m) < n {
		if err == nil || err == io.EOF {
			err = ErrTruncated
		}
		return m, err
	}
	return m, nil
}

// ReaderAt returns random access to stream e's data.
func (f *File) ReaderAt(e *Entry) (io.ReaderAt, error) {
	r, err := f.Open(e)
	if err != nil {
		return nil, err
	}
	return r.(*streamReader), nil
}

// ReadAt reads the stream at off, sector by sector.
func (r *streamReader) ReadAt(p []byte, off int64) (int, error) {
	total := r.pos + r.left // the stream's size (pos and left at the start)
	if off < 0 {
		return 0, ErrChain
	}
	n := 0
	for n < len(p) {
		if off >= total {
			return n, io.EOF
		}
		c := streamReader{f: r.f, secs: r.secs, shift: r.shift, mini: r.mini, pos: off, left: total - off}
		m, err := c.Read(p[n:])
		n += m
		off += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
