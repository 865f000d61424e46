package archive

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// ListReader is the Reader and RandomAccess of an image whose whole entry
// list is read up front (ISO 9660, UDF, squashfs): entries come in list
// order, and the data of a file entry are what Opener returns for it, in
// order or concurrently.
type ListReader struct {
	list   []*Entry
	opener func(i int) (io.ReadCloser, error)
	format string

	next int
	cur  io.Reader
}

// NewListReader returns a ListReader over list. open(i) returns the data
// of the file entry list[i]; it is called only for TypeFile entries and
// must be safe for concurrent use. format names the format in errors.
func NewListReader(format string, list []*Entry, open func(i int) (io.ReadCloser, error)) *ListReader {
	return &ListReader{list: list, opener: open, format: format}
}

// Entries returns every entry (RandomAccess).
func (r *ListReader) Entries() ([]*Entry, error) { return r.list, nil }

// Open returns the data of entry i; it may be called concurrently. An
// entry that is no file has no data.
func (r *ListReader) Open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(r.list) {
		return nil, fmt.Errorf("%s: no entry %d", r.format, i)
	}
	if r.list[i].Type != TypeFile {
		return io.NopCloser(eofReader{}), nil
	}
	return r.opener(i)
}

// groupSize is about how many bytes of small files Folders puts in one
// group.
const groupSize = 1 << 20

// Folders groups the file entries, in list order, into runs of about
// groupSize bytes (a larger file alone). A caller reading on several
// goroutines gives each run to one of them: many small files then cost
// one hand-off between goroutines, not one each, and are read in image
// order (a squashfs fragment block's files by the goroutine that has it
// decoded).
func (r *ListReader) Folders() [][]int {
	var groups [][]int
	var cur []int
	var size int64
	for i, e := range r.list {
		if e.Type != TypeFile {
			continue
		}
		if len(cur) > 0 && e.Size > groupSize-size {
			groups, cur, size = append(groups, cur), nil, 0
		}
		cur = append(cur, i)
		size += max(e.Size, 0)
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// Next returns the next entry. An error opening its data is returned by
// Read, so that the entry is still named.
func (r *ListReader) Next() (*Entry, error) {
	r.release()
	if r.next >= len(r.list) {
		return nil, io.EOF
	}
	i := r.next
	r.next++
	if e := r.list[i]; e.Type == TypeFile {
		rc, err := r.opener(i)
		if err != nil {
			r.cur = errReader{err}
		} else {
			r.cur = rc
		}
	}
	return r.list[i], nil
}

// Read reads the current entry's data.
func (r *ListReader) Read(p []byte) (int, error) {
	if r.cur == nil {
		return 0, io.EOF
	}
	return r.cur.Read(p)
}

// WriteTo writes the current entry's data to w, through its reader's
// WriteTo when it has one.
func (r *ListReader) WriteTo(w io.Writer) (int64, error) {
	if r.cur == nil {
		return 0, nil
	}
	return Copy(w, r.cur)
}

// Close releases the current entry's data; the caller owns the image.
func (r *ListReader) Close() error {
	r.release()
	return nil
}

func (r *ListReader) release() {
	if c, ok := r.cur.(io.Closer); ok {
		c.Close()
	}
	r.cur = nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// ExactReader reads N bytes of R: R ending before them is the error Short
// (the image's own "cut short" error), and nothing past them is read.
type ExactReader struct {
	R     io.Reader
	N     int64
	Short error
}

func (e *ExactReader) Read(p []byte) (int, error) {
	if e.N <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.N {
		p = p[:e.N]
	}
	n, err := e.R.Read(p)
	e.N -= int64(n)
	if err == io.EOF {
		err = nil
		if n == 0 {
			err = e.Short
		}
	}
	return n, err
}

// Span is a run of an image's bytes that the data of entry Entry (an index
// into the caller's list) occupy.
type Span struct {
	Off, Len int64
	Entry    int
}

// OverlapError reports the data of two entries sharing bytes of the image
// in part: an image built to make a small extent count many times over. It
// is ErrCorrupt.
type OverlapError struct {
	Format string
	A, B   string // the entries' names
}

func (e *OverlapError) Error() string {
	return fmt.Sprintf("%s: the data of %q and %q overlap", e.Format, e.A, e.B)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *OverlapError) Is(target error) bool { return target == ErrCorrupt }

// Overlap finds two spans of different entries that share bytes (sorting
// spans by offset; empty spans share nothing) and returns the indexes of
// their entries, or ok false. With self, two spans of one entry count too.
func Overlap(spans []Span, self bool) (a, b int, ok bool) {
	slices.SortFunc(spans, func(a, b Span) int { return cmp.Compare(a.Off, b.Off) })
	var end int64
	last := -1 // the span reaching furthest so far
	for i, s := range spans {
		if s.Len <= 0 {
			continue
		}
		if last >= 0 && s.Off < end && (self || spans[last].Entry != s.Entry) {
			return spans[last].Entry, s.Entry, true
		}
		if last < 0 || s.Off+s.Len > end {
			end, last = s.Off+s.Len, i
		}
	}
	return 0, 0, false
}
