package wim

import (
	"encoding/binary"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

const (
	dentrySize     = 102
	streamSize     = 38
	maxDepth       = 1024
	maxReparseSize = 16 << 10

	attrReadonly  = 0x1
	attrDirectory = 0x10
	attrReparse   = 0x400
	attrEncrypted = 0x4000

	tagSymlink  = 0xA000000C
	tagJunction = 0xA0000003

	rpNotFixed       = 0x0001 // rp_flags: an absolute target was left as it was
	symlinkRelative  = 0x1    // symbolic link reparse data flags
	filetimeUnixDiff = 116444736000000000
)

// item is an entry and the blob with its data.
type item struct {
	e *archive.Entry
	b *blob
}

// image walks one image's metadata resource: the security data, then
// the directory tree from the root dentry.
type image struct {
	r       *Reader
	md      []byte
	prefix  string // "N/" when several images are extracted
	entered map[int64]bool
	links   map[uint64]string // hard link group -> first name
	dirs    []item
	files   []item
	later   []item // hard links, after the files they name
	warned  bool
}

func (im *image) corrupt(format string, args ...any) error {
	return archive.Corruptf("wim: image metadata: "+format, args...)
}

func (im *image) u16(off int64) uint16 { return binary.LittleEndian.Uint16(im.md[off:]) }
func (im *image) u32(off int64) uint32 { return binary.LittleEndian.Uint32(im.md[off:]) }
func (im *image) u64(off int64) uint64 { return binary.LittleEndian.Uint64(im.md[off:]) }

// walk reads the tree into dirs, files and later.
func (im *image) walk() error {
	size := int64(len(im.md))
	if size < 8 {
		return im.corrupt("%d bytes", size)
	}
	// The security data: its total length, rounded up to 8, is where
	// the root dentry starts.
	sd := int64(im.u32(0))
	if sd < 8 {
		sd = 8
	}
	root := (sd + 7) &^ 7
	if root > size-dentrySize {
		return im.corrupt("security data of %d bytes", sd)
	}
	d, _, err := im.dentry(root)
	if err != nil {
		return err
	}
	if d.attrs&attrDirectory == 0 {
		return im.corrupt("the root is no directory")
	}
	if im.prefix != "" {
		im.dirs = append(im.dirs, item{e: d.entry(strings.TrimSuffix(im.prefix, "/"), archive.TypeDir)})
	}
	if d.subdir == 0 {
		return nil
	}
	return im.children(d.subdir, im.prefix, 1)
}

type dentry struct {
	attrs      uint32
	subdir     int64
	atime      uint64
	mtime      uint64
	hash       [20]byte
	reparseTag uint32
	rpFlags    uint16
	group      uint64
	name       string
	streams    []stream // the main hash first, then the extra stream entries
}

type stream struct {
	hash  [20]byte
	named bool
}

// dentry reads the dentry at off and its extra stream entries; next is
// where its sibling starts (0 at the end of the list).
func (im *image) dentry(off int64) (d dentry, next int64, err error) {
	size := int64(len(im.md))
	if off > size-8 {
		return d, 0, im.corrupt("dentry at %d past the end", off)
	}
	length := im.u64(off)
	if length == 0 {
		return d, 0, nil
	}
	if length < dentrySize || length > uint64(size-off) {
		return d, 0, im.corrupt("dentry at %d of %d bytes", off, length)
	}
	d.attrs = im.u32(off + 8)
	d.subdir = int64(im.u64(off+16) & (1<<62 - 1))
	d.atime = im.u64(off + 48)
	d.mtime = im.u64(off + 56)
	copy(d.hash[:], im.md[off+64:off+84])
	if d.attrs&attrReparse != 0 {
		d.reparseTag = im.u32(off + 88)
		d.rpFlags = im.u16(off + 94)
	} else {
		d.group = im.u64(off + 88)
	}
	nstreams := int64(im.u16(off + 96))
	short := int64(im.u16(off + 98))
	nameLen := int64(im.u16(off + 100))
	if nameLen&1 != 0 || short&1 != 0 {
		return d, 0, im.corrupt("dentry at %d: odd name length", off)
	}
	need := int64(dentrySize)
	if nameLen > 0 {
		need += nameLen + 2
	}
	if short > 0 {
		need += short + 2
	}
	if int64(length) < need {
		return d, 0, im.corrupt("dentry at %d: names past its end", off)
	}
	d.name = utf16String(im.md[off+dentrySize : off+dentrySize+nameLen])
	d.streams = append(d.streams, stream{hash: d.hash})
	next = off + (int64(length)+7)&^7
	for range nstreams {
		if next > size-streamSize {
			return d, 0, im.corrupt("stream entry at %d past the end", next)
		}
		sl := im.u64(next)
		if sl < streamSize || sl > uint64(size-next) {
			return d, 0, im.corrupt("stream entry at %d of %d bytes", next, sl)
		}
		var s stream
		copy(s.hash[:], im.md[next+16:next+36])
		s.named = im.u16(next+36) != 0
		d.streams = append(d.streams, s)
		next += (int64(sl) + 7) &^ 7
	}
	return d, next, nil
}

func utf16String(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// children reads the sibling list at off: the entries of directory dir.
func (im *image) children(off int64, dir string, depth int) error {
	if depth > maxDepth {
		return im.corrupt("directories nested deeper than %d", maxDepth)
	}
	if im.entered[off] {
		return im.corrupt("a directory listed twice (a loop)")
	}
	im.entered[off] = true
	seen := map[string]bool{}
	for {
		d, next, err := im.dentry(off)
		if err != nil {
			return err
		}
		if next == 0 {
			return nil
		}
		if d.name == "" || d.name == "." || d.name == ".." || strings.ContainsAny(d.name, "/\\\x00") {
			return im.corrupt("invalid name %q in %q", d.name, dir)
		}
		if seen[d.name] {
			return im.corrupt("%q twice in %q", d.name, dir)
		}
		seen[d.name] = true
		name := dir + d.name
		if err := im.add(&d, name); err != nil {
			return err
		}
		if d.attrs&attrDirectory != 0 && d.attrs&attrReparse == 0 && d.subdir != 0 {
			if err := im.children(d.subdir, name+"/", depth+1); err != nil {
				return err
			}
		}
		off = next
	}
}

func filetime(t uint64) time.Time {
	if t == 0 {
		return time.Time{}
	}
	d := int64(t - filetimeUnixDiff)
	if t < filetimeUnixDiff {
		d = -int64(filetimeUnixDiff - t)
	}
	return time.Unix(d/1e7, d%1e7*100).UTC()
}

func (d *dentry) entry(name string, t archive.Type) *archive.Entry {
	e := &archive.Entry{Name: name, Type: t, Size: -1, PackedSize: -1, ModTime: filetime(d.mtime), AccessTime: filetime(d.atime)}
	switch t {
	case archive.TypeDir:
		e.Mode = fs.ModeDir | 0o755
	case archive.TypeSymlink:
		e.Mode = fs.ModeSymlink | 0o777
	default:
		e.Mode = 0o644
	}
	return e
}

// add makes the entry of dentry d.
func (im *image) add(d *dentry, name string) error {
	var zero [20]byte
	if d.attrs&attrEncrypted != 0 {
		im.r.opt.Warnf("wim: " + name + ": encrypted (EFS) files are not extracted")
		return nil
	}
	// Which unnamed stream is the data and which the reparse point: the
	// main hash counts only when no extra entry is used (wimlib's
	// assign_stream_types_unencrypted).
	var data, rp *[20]byte
	named := false
	for i := range d.streams {
		s := &d.streams[i]
		switch {
		case s.named:
			named = true
		case i != 0 || s.hash != zero:
			if d.attrs&attrReparse != 0 && rp == nil {
				rp = &s.hash
			} else if data == nil {
				data = &s.hash
			}
		}
	}
	if data == nil && rp == nil {
		if d.attrs&attrReparse != 0 {
			rp = &d.streams[0].hash
		} else {
			data = &d.streams[0].hash
		}
	}
	if named && !im.warned {
		im.warned = true
		im.r.opt.Warnf("wim: " + name + ": alternate data streams are not extracted")
	}
	if d.attrs&attrReparse != 0 {
		return im.reparse(d, name, rp)
	}
	if d.attrs&attrDirectory != 0 {
		im.dirs = append(im.dirs, item{e: d.entry(name, archive.TypeDir)})
		return nil
	}
	if d.group != 0 {
		if first, ok := im.links[d.group]; ok {
			e := d.entry(name, archive.TypeHardlink)
			e.Linkname = first
			im.later = append(im.later, item{e: e})
			return nil
		}
		im.links[d.group] = name
	}
	e := d.entry(name, archive.TypeFile)
	e.Size = 0
	var b *blob
	if *data != zero {
		var err error
		if b, err = im.r.blob(*data, name); err != nil {
			return err
		}
		e.Size = b.size
		e.Checksum = verify.SHA1
		e.ChecksumValue = append([]byte(nil), data[:]...)
		e.Method = compNames[b.res.ctype]
		if !b.res.solid {
			e.PackedSize = b.res.h.size
		}
	}
	im.files = append(im.files, item{e: e, b: b})
	return nil
}

// reparse makes a symbolic link of a symlink or junction reparse point
// where its target reads as a path; other reparse points are skipped.
func (im *image) reparse(d *dentry, name string, rp *[20]byte) error {
	if d.reparseTag != tagSymlink && d.reparseTag != tagJunction {
		im.r.opt.Warnf("wim: " + name + ": reparse point of tag " + hex32(d.reparseTag) + " is not extracted")
		return nil
	}
	b, err := im.r.blob(*rp, name)
	if err != nil {
		return err
	}
	if b.size > maxReparseSize {
		return im.corrupt("%s: reparse data of %d bytes", name, b.size)
	}
	buf := make([]byte, b.size)
	if _, err := readFull(im.r.open(b), buf); err != nil {
		return err
	}
	target, err := linkTarget(buf, d, name, strings.Count(strings.TrimPrefix(name, im.prefix), "/"))
	if err != nil {
		return err
	}
	e := d.entry(name, archive.TypeSymlink)
	e.Linkname = target
	im.files = append(im.files, item{e: e})
	return nil
}

func hex32(v uint32) string {
	const digits = "0123456789ABCDEF"
	b := []byte("0x00000000")
	for i := 9; i >= 2; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b)
}

// linkTarget turns reparse data (without its 8-byte header) into a
// symbolic link's target as wimlib does on UNIX: the substitute name,
// its NT prefix and drive stripped from absolute targets, backslashes
// made slashes. An absolute target that was fixed on capture points into
// the image; it is made relative to the link so that it stays there.
func linkTarget(b []byte, d *dentry, name string, depth int) (string, error) {
	hdr := 8
	if d.reparseTag == tagSymlink {
		hdr = 12
	}
	if len(b) < hdr {
		return "", archive.Corruptf("wim: %s: reparse data of %d bytes", name, len(b))
	}
	le := binary.LittleEndian
	subOff, subLen := int(le.Uint16(b)), int(le.Uint16(b[2:]))
	if subLen&1 != 0 || hdr+subOff+subLen > len(b) {
		return "", archive.Corruptf("wim: %s: substitute name outside the reparse data", name)
	}
	target := utf16String(b[hdr+subOff : hdr+subOff+subLen])
	relative := d.reparseTag == tagSymlink && le.Uint32(b[8:])&symlinkRelative != 0
	fixed := false
	if !relative {
		for _, p := range []string{`\??\`, `\DosDevices\`, `\Device\`} {
			if rest, ok := strings.CutPrefix(target, p); ok {
				rest = strings.TrimLeft(rest, `\`)
				if i := strings.IndexByte(rest, '\\'); i >= 0 {
					rest = rest[i:]
				} else {
					rest = ""
				}
				target = rest
				break
			}
		}
		fixed = d.rpFlags&rpNotFixed == 0
	}
	t := []byte(target)
	for i, c := range t {
		switch c {
		case '\\':
			t[i] = '/'
		case '/':
			t[i] = '\\'
		}
	}
	target = string(t)
	if target == "" {
		target = "/"
	}
	if fixed && strings.HasPrefix(target, "/") {
		// Relative to the image root: climb from the link's directory.
		rel := strings.TrimPrefix(path.Clean(target), "/")
		if rel == "" {
			rel = "."
		}
		target = strings.Repeat("../", depth) + rel
	}
	return target, nil
}

// order sorts the files by where their data are, so that a solid
// resource is read once, front to back.
func (im *image) order() []item {
	slices.SortStableFunc(im.files, func(a, b item) int {
		ka, kb := a.b.key(), b.b.key()
		return slices.Compare(ka[:], kb[:])
	})
	out := append(im.dirs, im.files...)
	return append(out, im.later...)
}

// key is where a blob's data are: part, resource, offset in it.
func (b *blob) key() [3]int64 {
	if b == nil {
		return [3]int64{-1}
	}
	return [3]int64{int64(b.res.p.hdr.part), b.res.h.offset, b.off}
}
