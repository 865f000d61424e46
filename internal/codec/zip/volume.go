package zip

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
)

// joined presents the parts of a split or spanned archive as one input.
type joined struct {
	parts  []io.ReaderAt
	starts []int64 // where each part begins; one more entry: the total size
}

func (j *joined) size() int64 { return j.starts[len(j.starts)-1] }

func (j *joined) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("zip: negative offset")
	}
	total := 0
	i := sort.Search(len(j.parts), func(i int) bool { return j.starts[i+1] > off })
	for len(p) > 0 {
		if i >= len(j.parts) {
			return total, io.EOF
		}
		at := off - j.starts[i]
		n := min(int64(len(p)), j.starts[i+1]-off)
		m, err := j.parts[i].ReadAt(p[:n], at)
		total += m
		if int64(m) < n {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return total, err
		}
		p = p[n:]
		off += n
		i++
	}
	return total, nil
}

// The names of a raw split's parts and of a spanned set's, compiled on
// first use (not at process start).
var (
	rawSplitName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*)\.(\d{3})$`) })
	spanPartName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*)\.([zZ])(\d{2,})$`) })
)

// volumeSet finds the parts of the set the input belongs to. It returns
// nil when the input is a single file. A raw split (name.001, name.002…)
// is a plain concatenation; a spanned set (name.z01… name.zip) numbers
// disks, and starts maps each disk to its position in the joined input.
type volumeSet struct {
	ra      *joined
	closers []io.Closer
	spanned bool // offsets are per disk
}

func (v *volumeSet) Close() error {
	var first error
	for _, c := range v.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// openPart opens path, reusing the input itself when it is that file.
func (v *volumeSet) openPart(in *archive.Input, opt *archive.Options, path string) (io.ReaderAt, int64, error) {
	if in.Path != "" && filepath.Clean(path) == filepath.Clean(in.Path) && in.RA != nil {
		return in.RA, in.Size, nil
	}
	f, err := opt.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, &archive.VolumeError{Volume: filepath.Base(path), Err: archive.ErrMissingVolume}
		}
		return nil, 0, err
	}
	v.closers = append(v.closers, f)
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	return f, st.Size(), nil
}

func (v *volumeSet) add(ra io.ReaderAt, size int64) {
	if v.ra == nil {
		v.ra = &joined{starts: []int64{0}}
	}
	v.ra.parts = append(v.ra.parts, ra)
	v.ra.starts = append(v.ra.starts, v.ra.size()+size)
}

// findVolumes returns the set the input is part of, or nil for a lone file.
func findVolumes(in *archive.Input, opt *archive.Options) (*volumeSet, error) {
	if in.Path == "" {
		return nil, nil
	}
	dir, base := filepath.Split(in.Path)
	if m := rawSplitName().FindStringSubmatch(base); m != nil {
		first := filepath.Join(dir, m[1]+".001")
		if _, err := os.Stat(filepath.Join(dir, m[1]+".002")); err != nil {
			return nil, nil // a lone ".001" (or ".123") file
		}
		v := &volumeSet{}
		for k := 1; ; k++ {
			p := filepath.Join(dir, fmt.Sprintf("%s.%03d", m[1], k))
			if k > 1 {
				if _, err := os.Stat(p); err != nil {
					break
				}
			} else {
				p = first
			}
			ra, size, err := v.openPart(in, opt, p)
			if err != nil {
				v.Close()
				return nil, err
			}
			v.add(ra, size)
		}
		return v, nil
	}
	var last string
	if m := spanPartName().FindStringSubmatch(base); m != nil {
		ext := ".zip"
		if m[2] == "Z" {
			ext = ".ZIP"
		}
		last = filepath.Join(dir, m[1]+ext)
	} else {
		last = in.Path
	}
	v := &volumeSet{spanned: true}
	ra, size, err := v.openPart(in, opt, last)
	if err != nil {
		v.Close()
		return nil, err
	}
	e, err := findEnd(ra, size, 0)
	if err != nil || e.diskNum == 0 {
		v.Close()
		if last != in.Path {
			if err == nil {
				err = archive.Errorf(ErrFormat, "zip: %s is not part of a split archive", filepath.Base(in.Path))
			}
			return nil, err
		}
		return nil, nil
	}
	if e.diskNum > 9999 {
		v.Close()
		return nil, archive.Errorf(ErrFormat, "zip: end record names disk %d", e.diskNum)
	}
	ext := filepath.Ext(last)
	if !strings.EqualFold(ext, ".zip") {
		v.Close()
		return nil, archive.Errorf(archive.ErrMissingVolume, "zip: %s is disk %d of a set whose other parts are not named .z01…", filepath.Base(last), e.diskNum+1)
	}
	stem := last[:len(last)-len(ext)]
	for k := 1; k <= int(e.diskNum); k++ {
		p := stem + ".z" + fmt.Sprintf("%02d", k)
		if _, err := os.Stat(p); err != nil {
			if alt := stem + ".Z" + fmt.Sprintf("%02d", k); fileExists(alt) {
				p = alt
			}
		}
		pra, psize, err := v.openPart(in, opt, p)
		if err != nil {
			v.Close()
			return nil, err
		}
		v.add(pra, psize)
	}
	v.add(ra, size)
	return v, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// diskStarts returns where each disk starts in the joined input, for a
// spanned set; nil for a raw split or a single file.
func (v *volumeSet) diskStarts() []int64 {
	if v == nil || !v.spanned {
		return nil
	}
	return v.ra.starts[:len(v.ra.starts)-1]
}
