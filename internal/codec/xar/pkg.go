package xar

import (
	"bufio"
	"io"
	"path"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/cpio"
	"github.com/unpack-dev/unpack/internal/codec/gzip"
	"github.com/unpack-dev/unpack/internal/codec/xz"
)

// tree reads a .pkg member (Payload, Scripts) or a .xip Content, a cpio
// archive compressed with pbzx or gzip (or none), as entries under the
// member's name. They are Pending: the member's own checksums (and the
// compressed stream's trailing checks) come at its end, when they are all
// settled at once.
type tree struct {
	prefix string
	method string       // the member's compression
	data   *dataReader  // the member's data, with its xar checks
	dec    io.Reader    // the decompressed cpio archive
	closer io.Closer    // its decoder
	cpio   *cpio.Reader //
	held   []*archive.Entry
	err    error
}

// startTree looks at the start of a candidate member's data: a pbzx or
// gzip stream of a cpio archive, or a cpio archive, is read as a tree
// (the entry returned is its directory); anything else is the file itself.
func (r *Reader) startTree(it *item, d *dataReader) (*archive.Entry, error) {
	br := bufio.NewReaderSize(d, 64<<10)
	r.cur = br
	head, _ := br.Peek(110) // a cpio header, at most
	t := &tree{prefix: it.e.Name, data: d}
	switch {
	case string(head[:min(len(head), 4)]) == PbzxMagic:
		z, err := NewPbzxReader(br, xz.Config{MemLimit: r.opt.Limit(), Threads: r.opt.Threads, Warn: r.opt.Unverifiedf})
		if err != nil {
			return nil, err
		}
		t.dec, t.closer, t.method = z, z, "pbzx"
	case len(head) >= 3 && head[0] == 0x1f && head[1] == 0x8b && head[2] == 8:
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		t.dec, t.method = z, "gzip"
	case archive.IsCpioHeader(head):
		t.dec, t.method = br, "stored"
	default:
		return it.e, nil
	}
	ib := bufio.NewReaderSize(t.dec, 64<<10)
	if peek, err := ib.Peek(110); !archive.IsCpioHeader(peek) {
		t.close()
		if err != nil && err != io.EOF {
			return nil, truncated(err)
		}
		return nil, archive.Corruptf("xar: %s holds no cpio archive", it.e.Name)
	}
	t.dec = ib
	t.cpio = cpio.NewReader(ib)
	r.sub, r.data, r.cur = t, nil, eofReader{}
	dir := *it.e
	dir.Type, dir.Size, dir.Method, dir.Checksum, dir.ChecksumValue = archive.TypeDir, 0, "", 0, nil
	dir.Mode = 0o755
	return &dir, nil
}

// next returns the next entry of the tree, or io.EOF once the member has
// been read to its end and every check passed.
func (t *tree) next() (*archive.Entry, error) {
	if t.err != nil {
		return nil, t.err
	}
	for {
		e, err := t.cpio.Next()
		if err == io.EOF {
			// What follows the cpio trailer, and the member's checks.
			if _, err := io.Copy(io.Discard, t.dec); err != nil {
				return nil, err
			}
			if _, err := io.Copy(io.Discard, t.data); err != nil {
				return nil, err
			}
			t.close()
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(path.Clean("/"+e.Name), "/")
		if name == "" {
			continue // the archive's "." is the member's directory
		}
		c := *e
		c.Name, c.Method, c.PackedSize = t.prefix+"/"+name, t.method, -1
		if c.Type == archive.TypeHardlink {
			c.Linkname = t.prefix + "/" + strings.TrimPrefix(path.Clean("/"+e.Linkname), "/")
		}
		if c.Type != archive.TypeOther {
			c.Pending = true
			t.held = append(t.held, &c)
		}
		return &c, nil
	}
}

// Read reads the current cpio entry's data.
func (t *tree) Read(p []byte) (int, error) {
	n, err := t.cpio.Read(p)
	if err != nil && err != io.EOF {
		t.err = err
	}
	return n, err
}

// settle passes every held entry: the member was verified to its end.
func (t *tree) settle(done *[]archive.Verdict) {
	for _, e := range t.held {
		*done = append(*done, archive.Verdict{Entry: e})
	}
	t.held = nil
}

// fail fails every held entry with err, which ended the member.
func (t *tree) fail(err error, done *[]archive.Verdict) {
	for _, e := range t.held {
		*done = append(*done, archive.Verdict{Entry: e, Err: err})
	}
	t.held = nil
	t.close()
}

func (t *tree) close() {
	if t.closer != nil {
		t.closer.Close()
		t.closer = nil
	}
	t.data.Close()
}
