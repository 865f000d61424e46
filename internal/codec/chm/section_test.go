package chm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzx"
)

// smallGroups makes jobs of one or two reset intervals for the test.
func smallGroups(t *testing.T, n int64) {
	old := groupTarget
	groupTarget = n
	t.Cleanup(func() { groupTarget = old })
}

// readFiles reads every file of the CHM b, each to its end or its error.
func readFiles(t *testing.T, b []byte, opt *archive.Options) (map[string][]byte, map[string]error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, errs := map[string][]byte{}, map[string]error{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return got, errs
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		if err != nil {
			errs[e.Name] = err
			continue
		}
		got[e.Name] = data
	}
}

func check(t *testing.T, what string, files []chmFile, got map[string][]byte, errs map[string]error) {
	t.Helper()
	for _, f := range files {
		if err := errs[f.name[1:]]; err != nil {
			t.Errorf("%s: %s: %v", what, f.name, err)
		} else if !bytes.Equal(got[f.name[1:]], f.data) {
			t.Errorf("%s: %s differs", what, f.name)
		}
	}
}

// TestIntervals reads CHM files with reset intervals of 1, 2 and 3
// frames, E8 translation off and on (its positions counted from each
// interval's start, as 7-Zip and chmlib count them), on one goroutine and
// with groups decoded ahead, with the reset table and without a usable
// one (decoded front to back).
func TestIntervals(t *testing.T) {
	smallGroups(t, 1)
	files := testFiles(60, 40000, 1)
	for _, frames := range []int{1, 2, 3} {
		for _, e8 := range []int32{0, 1 << 20} {
			good := buildCHM(t, files, chmSpec{frames: frames, e8: e8})
			noTable := buildCHM(t, files, chmSpec{frames: frames, e8: e8, table: func(rt []byte) {
				binary.LittleEndian.PutUint64(rt[0x28+8:], 1<<40) // past the section
			}})
			for _, threads := range []int{1, 2, 4} {
				for name, b := range map[string][]byte{"table": good, "no table": noTable} {
					got, errs := readFiles(t, b, &archive.Options{Threads: threads})
					check(t, name, files, got, errs)
				}
			}
		}
	}
}

// TestResetTable: a table that does not list every interval in order
// and within the section is not used.
func TestResetTable(t *testing.T) {
	files := testFiles(30, 20000, 2)
	for name, tc := range map[string]struct {
		f    func(rt []byte)
		used bool
	}{
		"good":        {nil, true},
		"entry size":  {func(rt []byte) { binary.LittleEndian.PutUint32(rt[8:], 4) }, false},
		"block size":  {func(rt []byte) { binary.LittleEndian.PutUint64(rt[0x20:], 1<<14) }, false},
		"offset":      {func(rt []byte) { binary.LittleEndian.PutUint32(rt[0x0C:], 1<<20) }, false},
		"count":       {func(rt []byte) { binary.LittleEndian.PutUint32(rt[4:], 3) }, false},
		"first":       {func(rt []byte) { binary.LittleEndian.PutUint64(rt[0x28:], 2) }, false},
		"order":       {func(rt []byte) { binary.LittleEndian.PutUint64(rt[0x28+16:], 0) }, false},
		"beyond":      {func(rt []byte) { binary.LittleEndian.PutUint64(rt[len(rt)-8:], 1<<62) }, false},
		"frame entry": {func(rt []byte) { binary.LittleEndian.PutUint64(rt[0x28+8:], 1<<62) }, true},
	} {
		b := buildCHM(t, files, chmSpec{frames: 2, table: tc.f})
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if used := r.s1.starts != nil; used != tc.used {
			t.Errorf("%s: table used %v", name, used)
		}
		got, errs := readFiles(t, b, nil)
		check(t, name, files, got, errs)
	}
}

// TestCorruptInterval: an interval that fails fails the files in it;
// with the reset table, the files after it are still read.
func TestCorruptInterval(t *testing.T) {
	smallGroups(t, 1)
	files := testFiles(60, 40000, 3)
	var at uint64
	buildCHM(t, files, chmSpec{frames: 1, table: func(rt []byte) {
		at = binary.LittleEndian.Uint64(rt[0x28+8*10:])
	}})
	bad := buildCHM(t, files, chmSpec{frames: 1, content: func(c []byte) {
		c[at+1] = 0x0F // block type 7 in interval 10's first word
	}})
	for _, threads := range []int{1, 2} {
		got, errs := readFiles(t, bad, &archive.Options{Threads: threads})
		lo, hi := int64(10*lzx.FrameSize), int64(11*lzx.FrameSize)
		var off int64
		for _, f := range files {
			end := off + int64(len(f.data))
			err := errs[f.name[1:]]
			switch {
			case len(f.data) > 0 && off < hi && end > lo:
				if !errors.Is(err, archive.ErrCorrupt) {
					t.Errorf("threads %d: %s in the bad interval: %v", threads, f.name, err)
				}
			case err != nil:
				t.Errorf("threads %d: %s: %v", threads, f.name, err)
			case !bytes.Equal(got[f.name[1:]], f.data):
				t.Errorf("threads %d: %s differs", threads, f.name)
			}
			off = end
		}
	}
}

// TestSeeks reads files in an order that goes back and forth, with
// groups decoded ahead: the same bytes.
func TestSeeks(t *testing.T) {
	smallGroups(t, 2*lzx.FrameSize)
	files := testFiles(80, 30000, 4)
	b := buildCHM(t, files, chmSpec{frames: 1, e8: 1 << 24})
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	offs := map[string]int64{}
	var off int64
	for _, f := range files {
		offs[f.name] = off
		off += int64(len(f.data))
	}
	for _, i := range []int{70, 3, 4, 5, 60, 61, 20, 79, 0, 40, 41, 39, 38} {
		f := files[i]
		if err := r.s1.seek(offs[f.name]); err != nil {
			t.Fatal(err)
		}
		data := make([]byte, len(f.data))
		if _, err := io.ReadFull(r.s1, data); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, f.data) {
			t.Errorf("%s read at %d differs", f.name, offs[f.name])
		}
		if len(r.s1.jobs) > r.s1.ahead {
			t.Errorf("%d jobs, ahead %d", len(r.s1.jobs), r.s1.ahead)
		}
	}
}

// TestAheadBounds: decoding ahead only with several threads, a usable
// table, more than one group of files and room under the memory limit;
// Close stops the jobs.
func TestAheadBounds(t *testing.T) {
	smallGroups(t, 1)
	files := testFiles(40, 40000, 5)
	b := buildCHM(t, files, chmSpec{frames: 2})
	for _, tc := range []struct {
		opt   archive.Options
		ahead int
	}{
		{archive.Options{Threads: 1}, 0},
		{archive.Options{Threads: 2}, 1},
		{archive.Options{Threads: 8}, 7},
		{archive.Options{Threads: 8, MemLimit: 2 << 20}, 3},
		{archive.Options{Threads: 8, MemLimit: 1 << 20}, 0},
	} {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), &tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if r.s1.ahead != tc.ahead {
			t.Errorf("%+v: ahead %d, want %d", tc.opt, r.s1.ahead, tc.ahead)
		}
		r.Close()
	}
	before := runtime.NumGoroutine()
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{Threads: 8})
	if err != nil {
		t.Fatal(err)
	}
	r.Next()
	io.CopyN(io.Discard, r, 10)
	if len(r.s1.jobs) == 0 {
		t.Error("no jobs started")
	}
	r.Close()
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}
