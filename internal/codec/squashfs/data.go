package squashfs

import (
	"fmt"
	"io"

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
	buf  []byte
	out  []byte // decoded, not yet delivered
	err  error
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
	if fr.buf == nil {
		fr.buf = make([]byte, bs)
	}
	want := min(bs, fr.left)
	if fr.i < len(f.sizes) {
		size := f.sizes[fr.i]
		fr.i++
		n := size &^ blockStored
		if n == 0 { // a sparse block
			clear(fr.buf[:want])
			fr.out = fr.buf[:want]
			return nil
		}
		got, err := fr.r.readBlock(fr.buf, fr.at, n, size&blockStored != 0)
		fr.at += int64(n)
		if err != nil {
			return fmt.Errorf("%s: block %d: %w", f.entry.Name, fr.i-1, err)
		}
		if int64(got) != want {
			return archive.Corruptf("squashfs: %s: block %d decodes to %d bytes, want %d", f.entry.Name, fr.i-1, got, want)
		}
		fr.out = fr.buf[:got]
		return nil
	}
	if f.frag == noFragment {
		return archive.Corruptf("squashfs: %s: %d bytes past its blocks", f.entry.Name, fr.left)
	}
	frag := fr.r.frags[f.frag]
	got, err := fr.r.readBlock(fr.buf, frag.start, frag.size&^blockStored, frag.size&blockStored != 0)
	if err != nil {
		return fmt.Errorf("%s: fragment %d: %w", f.entry.Name, f.frag, err)
	}
	if int64(f.fragOff)+fr.left > int64(got) {
		return archive.Corruptf("squashfs: %s: tail of %d bytes at %d in a fragment of %d", f.entry.Name, fr.left, f.fragOff, got)
	}
	fr.out = fr.buf[f.fragOff : int64(f.fragOff)+fr.left]
	return nil
}
