package extract

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// slowWrites makes the pool's first write of each name in names wait
// until release is called (or the test ends).
func slowWrites(t *testing.T, names ...string) (release func()) {
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	var mu sync.Mutex
	seen := map[string]bool{}
	testBeforeWrite = func(name string) {
		mu.Lock()
		first := !seen[name]
		seen[name] = true
		mu.Unlock()
		for _, n := range names {
			if n == name && first {
				<-gate
			}
		}
	}
	t.Cleanup(func() { release(); testBeforeWrite = nil })
	return release
}

// putAsync puts e without waiting for the pool (put waits).
func putAsync(t *testing.T, d *Dir, e *archive.Entry, data string) {
	t.Helper()
	if err := d.Put(e, strings.NewReader(data)); err != nil {
		t.Fatalf("Put %s: %v", e.Name, err)
	}
}

// TestPoolLaterWinsFirstSlow: of two held entries of one name, the later
// is the file even when the earlier's write finishes last.
func TestPoolLaterWinsFirstSlow(t *testing.T) {
	skipStaged(t, "a later entry of a name held under it in a stage waits for its write, to move it aside")
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	release := slowWrites(t, "f")
	e1, _ := pending("f", "")
	putAsync(t, d, e1, "one")
	d.flushWriters() // to a writer, which waits
	e2, _ := pending("f", "")
	putAsync(t, d, e2, "two")
	d.flushWriters() // to the other, which writes it at once
	done := make(chan []error)
	go func() { done <- d.SettleAll([]archive.Verdict{{Entry: e1}, {Entry: e2}}) }()
	release()
	for _, err := range <-done {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "later wins", dest, false, map[string]string{"f": "two"})
}

// TestPoolRepointedLink: a link re-pointed between two held files under
// it. Each file lands where the link led when it came, whatever the
// order the writers finish in.
func TestPoolRepointedLink(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	release := slowWrites(t, "sub/f")
	for _, e := range []*archive.Entry{
		{Name: "sub/", Type: archive.TypeDir},
		{Name: "l", Type: archive.TypeSymlink, Linkname: "sub"},
	} {
		if err := d.Put(e, nil); err != nil {
			t.Fatal(err)
		}
	}
	e1, _ := pending("l/f", "")
	putAsync(t, d, e1, "one")
	if err := d.Put(&archive.Entry{Name: "l", Type: archive.TypeSymlink, Linkname: "."}, nil); err != nil {
		t.Fatal(err)
	}
	e2, _ := pending("l/f", "")
	putAsync(t, d, e2, "two")
	// A directory entry in the way of a link: refused, the files stay.
	if err := d.Put(&archive.Entry{Name: "sub", Type: archive.TypeSymlink, Linkname: "."}, nil); err == nil {
		t.Error("a symlink replaced a directory holding held files")
	}
	release()
	for _, err := range d.SettleAll([]archive.Verdict{{Entry: e1}, {Entry: e2}}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	sameTree(t, "repointed", dest, false, map[string]string{"sub": "/", "sub/f": "one", "f": "two", "l": "→."})
}

// TestPoolHardlinkToSlowFile: a hard link to a held file whose write has
// not finished waits for it; one before its target is refused.
func TestPoolHardlinkToSlowFile(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	release := slowWrites(t, "f")
	before := &archive.Entry{Name: "h0", Type: archive.TypeHardlink, Linkname: "f", Pending: true}
	if err := d.Put(before, nil); err == nil {
		t.Error("a hard link before its target was made")
	}
	e, _ := pending("f", "")
	putAsync(t, d, e, "data")
	link := &archive.Entry{Name: "h", Type: archive.TypeHardlink, Linkname: "f", Pending: true}
	go release()
	if err := d.Put(link, nil); err != nil {
		t.Fatal(err)
	}
	for _, err := range d.SettleAll([]archive.Verdict{{Entry: e}, {Entry: link}}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	sameTree(t, "linked", dest, false, map[string]string{"f": "data", "h": "data"})
	a, _ := os.Stat(filepath.Join(dest, "f"))
	b, _ := os.Stat(filepath.Join(dest, "h"))
	if !os.SameFile(a, b) {
		t.Error("h is not a hard link of f")
	}
}

// TestPoolCheckFailsMidway: of 200 held files, the stream check passes
// for the first 120 and fails for the rest: those are removed, the first
// are whole, no temporary name is left, whatever the writers' order.
func TestPoolCheckFailsMidway(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{Buffer: 64 << 10})
	var vs []archive.Verdict
	want := map[string]string{"d": "/"}
	for i := range 200 {
		name := "d/f" + strconv.Itoa(i)
		data := strings.Repeat(strconv.Itoa(i), 1+i*50)
		e, _ := pending(name, "")
		putAsync(t, d, e, data)
		v := archive.Verdict{Entry: e}
		if i >= 120 {
			v.Err = errStream
		} else {
			want[name] = data
		}
		vs = append(vs, v)
	}
	for i, err := range d.SettleAll(vs) {
		if (err != nil) != (i >= 120) {
			t.Errorf("entry %d: %v", i, err)
		}
	}
	d.Close()
	sameTree(t, "midway", dest, false, want)
}

// TestPoolAbortWhileWriting: Abort while a writer is still to make a held
// file leaves no temporary name and no file, once the writer is done.
func TestPoolAbortWhileWriting(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	release := slowWrites(t, "f")
	e, _ := pending("f", "")
	putAsync(t, d, e, "data")
	d.flushWriters()
	d.Abort()
	release()
	if err := d.Settle(e, nil); err == nil {
		t.Error("a file committed after Abort")
	}
	d.Close()
	sameTree(t, "aborted", dest, false, map[string]string{})
}

// TestPoolLargeAndUnknownSize: a held file larger than the pool's bound,
// or larger than its header says, is written on the caller's goroutine
// and is whole all the same.
func TestPoolLargeAndUnknownSize(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{Buffer: 1 << 10})
	big := strings.Repeat("x", 5000)
	e1, _ := pending("big", "")
	e1.Size = 10 // a hint that lies
	putAsync(t, d, e1, big)
	e2, _ := pending("small", "")
	e2.Size = -1
	putAsync(t, d, e2, "small")
	for _, err := range d.SettleAll([]archive.Verdict{{Entry: e1}, {Entry: e2}}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	sameTree(t, "sizes", dest, false, map[string]string{"big": big, "small": "small"})
}

// TestPoolRecycledBuffers: held files whose sizes are known are read into
// buffers given back by the files written before them; each file is
// whole, with its own bytes, however the buffers went round.
func TestPoolRecycledBuffers(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{Buffer: 64 << 10})
	var vs []archive.Verdict
	want := map[string]string{"d": "/"}
	for i := range 300 {
		name := "d/f" + strconv.Itoa(i)
		data := strings.Repeat(strconv.Itoa(i)+",", (i*37)%3000)
		e, _ := pending(name, "")
		e.Size = int64(len(data))
		putAsync(t, d, e, data)
		vs = append(vs, archive.Verdict{Entry: e})
		want[name] = data
	}
	for i, err := range d.SettleAll(vs) {
		if err != nil {
			t.Errorf("entry %d: %v", i, err)
		}
	}
	if w := d.pool.Load(); w.free.bytes == 0 {
		t.Error("no buffer was kept for reuse")
	}
	d.Close()
	sameTree(t, "recycled", dest, false, want)
}

// TestBufs: buffers come in power-of-two classes, a kept one is handed
// out again, and no more than the bound is kept.
func TestBufs(t *testing.T) {
	var f bufs
	if b := f.get(0); b != nil {
		t.Errorf("get(0) = cap %d, want none", cap(b))
	}
	for _, c := range []struct{ n, want int64 }{{1, 1 << 10}, {1 << 10, 1 << 10}, {1<<10 + 1, 2 << 10}, {5000, 8 << 10}, {maxQueued, maxQueued}} {
		if b := f.get(c.n); int64(cap(b)) != c.want || len(b) != 0 {
			t.Errorf("get(%d): len %d cap %d, want 0, %d", c.n, len(b), cap(b), c.want)
		}
	}
	b := append(f.get(3000), "data"...)
	f.put(b, 1<<20)
	if g := f.get(2049); &g[:1][0] != &b[0] || len(g) != 0 {
		t.Error("a kept buffer of the class was not handed out again")
	}
	if f.bytes != 0 {
		t.Errorf("kept %d bytes after taking all back", f.bytes)
	}
	f.put(make([]byte, 0, 3000), 1<<20)        // not a class's size
	f.put(make([]byte, 0, 512), 1<<20)         // below the classes
	f.put(make([]byte, 0, 2*maxQueued), 1<<30) // above
	f.put(make([]byte, 0, 4096), 4096)
	f.put(make([]byte, 0, 4096), 4096) // beyond the bound
	if f.bytes != 4096 {
		t.Errorf("kept %d bytes, want 4096", f.bytes)
	}
}
