package formats

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// joined is a raw split set (NAME.001, NAME.002, …) read as one file.
type joined struct {
	files []*os.File
	ends  []int64 // end offset of each part in the joined file
	off   int64   // for Read
}

// splitParts returns the paths of a raw split set whose first part is
// path (ending in .001), or nil when path is not such a first part or no
// second part exists.
func splitParts(path string) []string {
	if !strings.HasSuffix(path, ".001") {
		return nil
	}
	stem := strings.TrimSuffix(path, ".001")
	parts := []string{path}
	for i := 2; i < 100000; i++ {
		p := fmt.Sprintf("%s.%03d", stem, i)
		if _, err := os.Stat(p); err != nil {
			break
		}
		parts = append(parts, p)
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
}

func openJoined(parts []string) (*joined, error) {
	j := &joined{}
	var end int64
	for _, p := range parts {
		f, err := os.Open(p)
		if err != nil {
			j.Close()
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			j.Close()
			return nil, err
		}
		end += fi.Size()
		j.files = append(j.files, f)
		j.ends = append(j.ends, end)
	}
	return j, nil
}

// Size is the joined length.
func (j *joined) Size() int64 { return j.ends[len(j.ends)-1] }

func (j *joined) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for len(p) > 0 {
		i := sort.Search(len(j.ends), func(i int) bool { return j.ends[i] > off })
		if i == len(j.ends) {
			return n, io.EOF
		}
		start := int64(0)
		if i > 0 {
			start = j.ends[i-1]
		}
		want := p
		if rest := j.ends[i] - off; int64(len(want)) > rest {
			want = want[:rest]
		}
		k, err := j.files[i].ReadAt(want, off-start)
		n += k
		off += int64(k)
		p = p[k:]
		if err != nil && err != io.EOF {
			return n, err
		}
		if k < len(want) {
			return n, io.ErrUnexpectedEOF // a part shrank while read
		}
	}
	return n, nil
}

func (j *joined) Read(p []byte) (int, error) {
	n, err := j.ReadAt(p, j.off)
	j.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (j *joined) Close() error {
	for _, f := range j.files {
		f.Close()
	}
	return nil
}
