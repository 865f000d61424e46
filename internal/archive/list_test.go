package archive

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestListReader: entries come in list order with their data, a failed
// open is returned by Read under the entry's name, entries without data
// read nothing, and Open checks its index.
func TestListReader(t *testing.T) {
	errOpen := errors.New("cannot open")
	list := []*Entry{{Name: "d", Type: TypeDir}, {Name: "a", Type: TypeFile}, {Name: "bad", Type: TypeFile}, {Name: "l", Type: TypeSymlink}}
	closed := 0
	opens := 0
	r := NewListReader("img", list, func(i int) (io.ReadCloser, error) {
		opens++
		if list[i].Name == "bad" {
			return nil, errOpen
		}
		return closeCounter{strings.NewReader("data of " + list[i].Name), &closed}, nil
	})
	var got []string
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		if e.Name == "bad" {
			if !errors.Is(err, errOpen) {
				t.Errorf("bad: %v, want the open error", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Name+"="+string(b))
	}
	if want := "d= a=data of a l="; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	if opens != 2 || closed != 1 {
		t.Errorf("%d opens, %d closes: want 2 and 1 (only file entries are opened, each released)", opens, closed)
	}
	if es, _ := r.Entries(); len(es) != 4 {
		t.Errorf("%d entries", len(es))
	}
	for _, i := range []int{-1, 4} {
		if _, err := r.Open(i); err == nil {
			t.Errorf("Open(%d) succeeded", i)
		}
	}
	if rc, err := r.Open(0); err != nil {
		t.Error(err)
	} else if b, _ := io.ReadAll(rc); len(b) != 0 {
		t.Errorf("a directory's data: %q", b)
	}
	if rc, err := r.Open(1); err != nil {
		t.Error(err)
	} else if b, _ := io.ReadAll(rc); string(b) != "data of a" {
		t.Errorf("Open(1): %q", b)
	}
	// Close releases an entry left unread.
	r = NewListReader("img", list[1:2], func(int) (io.ReadCloser, error) {
		return closeCounter{strings.NewReader("x"), &closed}, nil
	})
	closed = 0
	r.Next()
	r.Close()
	if closed != 1 {
		t.Errorf("Close released %d entries, want 1", closed)
	}
}

type closeCounter struct {
	io.Reader
	n *int
}

func (c closeCounter) Close() error { *c.n++; return nil }

// TestExactReader: exactly N bytes, however the source delivers them; a
// source ending early is Short; nothing past N is read.
func TestExactReader(t *testing.T) {
	errShort := errors.New("cut short")
	for i, wrap := range []func(io.Reader) io.Reader{
		func(r io.Reader) io.Reader { return r },
		iotest.OneByteReader,
		iotest.DataErrReader, // reads ahead: the source's rest is not checked
	} {
		src := strings.NewReader("0123456789")
		b, err := io.ReadAll(&ExactReader{R: wrap(src), N: 4, Short: errShort})
		if err != nil || string(b) != "0123" || i < 2 && src.Len() != 6 {
			t.Errorf("N=4: %q %v, %d left in the source", b, err, src.Len())
		}
		b, err = io.ReadAll(&ExactReader{R: wrap(strings.NewReader("012")), N: 4, Short: errShort})
		if !errors.Is(err, errShort) || string(b) != "012" {
			t.Errorf("short source: %q %v", b, err)
		}
	}
}

// TestOverlap: spans sharing bytes are found whatever their order; spans
// that only touch, and empty ones, are not; a file's own spans overlap
// only when self is set.
func TestOverlap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spans []Span
		self  bool
		a, b  int
		ok    bool
	}{
		{"touching", []Span{{10, 10, 1}, {0, 10, 0}, {20, 5, 2}}, true, 0, 0, false},
		{"partial", []Span{{15, 10, 1}, {0, 20, 0}}, false, 0, 1, true},
		{"inside a long one", []Span{{0, 100, 0}, {10, 5, 1}, {50, 5, 2}}, false, 0, 1, true},
		{"past a short one", []Span{{0, 100, 0}, {10, 5, 0}, {50, 5, 2}}, false, 0, 2, true},
		{"empty", []Span{{0, 100, 0}, {10, 0, 1}}, false, 0, 0, false},
		{"self allowed", []Span{{0, 10, 0}, {5, 10, 0}}, false, 0, 0, false},
		{"self refused", []Span{{0, 10, 0}, {5, 10, 0}}, true, 0, 0, true},
	} {
		a, b, ok := Overlap(tc.spans, tc.self)
		if ok != tc.ok || ok && (a != tc.a || b != tc.b) {
			t.Errorf("%s: %d %d %v, want %d %d %v", tc.name, a, b, ok, tc.a, tc.b, tc.ok)
		}
	}
	err := error(&OverlapError{Format: "img", A: "x", B: "y"})
	if !errors.Is(err, ErrCorrupt) || Classify(err) != Corrupt || err.Error() != `img: the data of "x" and "y" overlap` {
		t.Errorf("%v: category %v", err, Classify(err))
	}
}

// TestOffsetVolumeErrors: both keep the error they carry for errors.Is/As
// and add where it is to its text.
func TestOffsetVolumeErrors(t *testing.T) {
	inner := Corruptf("fmt: bad header")
	var err error = &OffsetError{Offset: 512, Err: inner}
	if !errors.Is(err, inner) || Classify(err) != Corrupt || err.Error() != "fmt: bad header at byte 512" {
		t.Errorf("%v", err)
	}
	err = &VolumeError{Volume: "a.part2.rar", Err: ErrMissingVolume}
	if Classify(err) != MissingVolume || err.Error() != "a.part2.rar: missing volume" {
		t.Errorf("%v", err)
	}
}

// TestListFolders: small files are grouped in list order up to about
// groupSize bytes, a large file is alone, entries that are no files are
// in no group, and sizes from a hostile image do not overflow the sum.
func TestListFolders(t *testing.T) {
	const big = 1<<63 - 1
	var list []*Entry
	add := func(typ Type, size int64) { list = append(list, &Entry{Type: typ, Size: size}) }
	add(TypeDir, 0)            // 0
	add(TypeFile, groupSize/2) // 1
	add(TypeFile, groupSize/4) // 2
	add(TypeSymlink, 0)        // 3
	add(TypeFile, groupSize/2) // 4: would pass groupSize
	add(TypeFile, 3*groupSize) // 5: alone
	add(TypeFile, 10)          // 6
	add(TypeFile, big)         // 7: alone
	add(TypeFile, big)         // 8: alone
	add(TypeFile, 0)           // 9
	r := NewListReader("img", list, nil)
	got := fmt.Sprint(r.Folders())
	if want := "[[1 2] [4] [5] [6] [7] [8] [9]]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
