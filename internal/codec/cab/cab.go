// Package cab reads Microsoft cabinet files (MS-CAB, "Microsoft Cabinet
// Format", 1997; as libmspack's cabextract and 7-Zip read them): the
// CFHEADER with its optional reserved areas, CFFOLDERs, CFFILEs and the
// CFDATA blocks of each folder, stored or compressed with MSZIP (deflate
// blocks carrying their 32 KiB window), Quantum or LZX (windows 2^15 to
// 2^21). A set of cabinets is opened from its first: the cabinets each
// names as its next are read in turn, a folder continuing from one into
// the next is decoded as one, and a file listed in both is given once.
//
// Verification: a file's data has no checksum of its own in a cabinet;
// each CFDATA block carries a checksum of its compressed bytes (0 when the
// writer left it out), which is verified before the block is decoded.
// Checked tells whether every block of the current file's folder read so
// far had one.
//
// Names are stored with '\' separators, in UTF-8 when the file's
// attributes say so and otherwise in an unstated code page: those bytes
// are given as they are, as cabextract does.
//
// A cabinet is read through random access (its folders' data are found
// by offset); from a pipe it is spooled to a temporary file first.
package cab

import (
	"cmp"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/spool"
)

// maxCabinets bounds a set's length (cabinets name their next; a loop of
// names must end).
const maxCabinets = 1000

// entry is one file of the set.
type entry struct {
	e      *archive.Entry
	folder int
	off    int64
	size   int64
	err    error // why its data cannot be read
}

// Reader is an archive.Reader over a cabinet or a set of them.
type Reader struct {
	folders []*folder
	entries []entry
	i       int // the current entry, 1-based
	fr      *folderReader
	remain  int64 // bytes of the current entry left to Read
	placed  bool  // the folder reader is at the current entry's data
	closers []io.Closer
}

// Open reads the cabinet in in (spooled first when it is not seekable)
// and the cabinets that follow it in its set.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	r := &Reader{}
	ra, size := in.RA, in.Size
	if ra == nil {
		var max int64
		if opt != nil {
			max = opt.SpoolLimit
		}
		tmp, err := spool.Create(max)
		if err != nil {
			return nil, err
		}
		if size, err = tmp.ReadFrom(in.R); err != nil {
			tmp.Close()
			return nil, err
		}
		ra = tmp
		r.closers = append(r.closers, tmp)
	}
	if err := r.open(ra, size, in.Path, opt); err != nil {
		r.Close()
		return nil, err
	}
	r.fr = newFolderReader(opt.Limit())
	return r, nil
}

// NewReader reads the cabinet in ra (size bytes) alone, without a set.
func NewReader(ra io.ReaderAt, size int64, opt *archive.Options) (*Reader, error) {
	r := &Reader{}
	if err := r.open(ra, size, "", opt); err != nil {
		return nil, err
	}
	r.fr = newFolderReader(opt.Limit())
	return r, nil
}

func (r *Reader) open(ra io.ReaderAt, size int64, path string, opt *archive.Options) error {
	first, err := readCabinet(ra, size)
	if err != nil {
		return err
	}
	cabs := []*cabinet{first}
	var chainErr error
	for c := first; c.flags&flagNext != 0 && len(cabs) < maxCabinets; {
		next, f, err := openNext(path, c.next, opt)
		if err != nil {
			chainErr = err
			break
		}
		r.closers = append(r.closers, f)
		if next.setID != first.setID || !next.hasPrev {
			chainErr = archive.Errorf(archive.ErrMissingVolume, "cab: %s is not the next cabinet of the set", c.next)
			break
		}
		cabs = append(cabs, next)
		c = next
	}
	if chainErr != nil {
		warnf(opt, chainErr.Error())
	}
	// Folders of the set: a cabinet's first folder continues the previous
	// cabinet's last when the files say so on both sides.
	index := make([][]int, len(cabs))
	for k, c := range cabs {
		index[k] = make([]int, len(c.folders))
		for j, fo := range c.folders {
			p := part{cab: c, off: fo.off, nblocks: fo.nblocks}
			if j == 0 && k > 0 && cabs[k-1].spanNext {
				if !c.spanPrev {
					return ErrMerge
				}
				last := r.folders[len(r.folders)-1]
				if last.comp != fo.comp {
					return ErrMerge
				}
				last.parts = append(last.parts, p)
				index[k][j] = len(r.folders) - 1
				continue
			}
			index[k][j] = len(r.folders)
			r.folders = append(r.folders, &folder{parts: []part{p}, comp: fo.comp})
		}
	}
	if last := cabs[len(cabs)-1]; last.spanNext {
		if chainErr == nil {
			chainErr = ErrMissingNext
		}
		r.folders[len(r.folders)-1].broken = chainErr
	}
	for k, c := range cabs {
		for i := range c.files {
			f := &c.files[i]
			if k > 0 && (f.folder == contFromPrev || f.folder == contPrevAndNext) {
				continue // listed in the previous cabinet too
			}
			en := entry{folder: index[k][c.folderOf(f)], off: int64(f.off), size: int64(f.size)}
			if k == 0 && c.hasPrev && (f.folder == contFromPrev || f.folder == contPrevAndNext) {
				en.err = ErrMissingPrev
			}
			en.e = newEntry(f, r.folders[en.folder].comp)
			r.entries = append(r.entries, en)
		}
	}
	// Files in folder order, then by offset: each folder is decoded once.
	slices.SortStableFunc(r.entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.folder, b.folder), cmp.Compare(a.off, b.off))
	})
	return nil
}

func warnf(opt *archive.Options, msg string) {
	if opt != nil {
		opt.Warnf(msg)
	}
}

// openNext opens the cabinet named name beside path, matching the name's
// case loosely when it is not found as written (cabinets name their
// successors as they were on a DOS disk).
func openNext(path, name string, opt *archive.Options) (*cabinet, *os.File, error) {
	if path == "" {
		return nil, nil, archive.Errorf(archive.ErrMissingVolume, "cab: the set continues in %s, which cannot be found from standard input", name)
	}
	base := strings.ReplaceAll(name, "\\", "/")
	base = base[strings.LastIndexByte(base, '/')+1:]
	dir := filepath.Dir(path)
	p := filepath.Join(dir, base)
	f, err := opt.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		if ents, derr := os.ReadDir(dir); derr == nil {
			for _, d := range ents {
				if strings.EqualFold(d.Name(), base) {
					f, err = opt.Open(filepath.Join(dir, d.Name()))
					break
				}
			}
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, archive.Errorf(archive.ErrMissingVolume, "cab: next cabinet %s not found", base)
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	c, err := readCabinet(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return c, f, nil
}

// newEntry makes the archive entry of a CFFILE.
func newEntry(f *fileRec, comp uint16) *archive.Entry {
	name := strings.ReplaceAll(f.name, "\\", "/")
	mode := fs.FileMode(0o644)
	if f.attr&attrReadOnly != 0 {
		mode = 0o444
	}
	if f.attr&attrExec != 0 {
		mode |= 0o111
	}
	return &archive.Entry{
		Name:       name,
		Type:       archive.TypeFile,
		Size:       int64(f.size),
		PackedSize: -1,
		Mode:       mode,
		ModTime:    dosTime(f.date, f.time),
		Method:     methodName(comp),
	}
}

// dosTime converts MS-DOS date and time fields (local time) to a time.
func dosTime(d, t uint16) time.Time {
	if d == 0 && t == 0 {
		return time.Time{}
	}
	return time.Date(int(d>>9)+1980, time.Month(d>>5&0xf), int(d&0x1f),
		int(t>>11), int(t>>5&0x3f), int(t&0x1f)*2, 0, time.Local)
}

// Next returns the next file, or io.EOF after the last.
func (r *Reader) Next() (*archive.Entry, error) {
	if r.i >= len(r.entries) {
		r.i = len(r.entries) + 1
		return nil, io.EOF
	}
	en := &r.entries[r.i]
	r.i++
	r.remain, r.placed = en.size, false
	return en.e, nil
}

// Read reads the current file's data, decoding its folder up to it.
func (r *Reader) Read(p []byte) (int, error) {
	if r.i == 0 || r.i > len(r.entries) || r.remain == 0 {
		return 0, io.EOF
	}
	en := &r.entries[r.i-1]
	if !r.placed {
		if err := r.place(en); err != nil {
			r.remain = 0
			return 0, err
		}
	}
	if int64(len(p)) > r.remain {
		p = p[:r.remain]
	}
	n, err := r.fr.Read(p)
	r.remain -= int64(n)
	if err == io.EOF {
		r.remain = 0
		err = ErrBeyond
	}
	if err != nil {
		r.remain = 0
	}
	return n, err
}

// place moves the folder reader to en's data: on from where it is, or
// from the folder's start.
func (r *Reader) place(en *entry) error {
	if en.err != nil {
		return en.err
	}
	f := r.folders[en.folder]
	if r.fr.f != f || r.fr.upos > en.off || r.fr.err != nil {
		if err := r.fr.reset(f); err != nil {
			return err
		}
	}
	if err := r.fr.skip(en.off - r.fr.upos); err != nil {
		if err == io.EOF {
			return ErrBeyond
		}
		return err
	}
	r.placed = true
	return nil
}

// Checked reports whether every data block decoded so far in the current
// file's folder carried a checksum, which was verified: what covers a
// cabinet file's data.
func (r *Reader) Checked() bool {
	if r.i > 0 && r.i <= len(r.entries) && r.entries[r.i-1].size == 0 {
		return true // no data to check
	}
	return r.fr != nil && r.fr.f != nil && !r.fr.unchecked
}

// Close closes the set's other cabinets and the spool.
func (r *Reader) Close() error {
	for _, c := range r.closers {
		c.Close()
	}
	r.closers = nil
	return nil
}
