package extract

import (
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// The held files of a stream decoded ahead (WriteHeldInline) are split by
// directory between Put and one writer (see toWriter). These tests give a
// directory to one or the other as a later directory decision would (its
// handle evicted and opened again, or a backlog), between two entries.

// splitDir is a Dir whose held files are split.
func splitDir(t *testing.T, opt DirOptions) (*Dir, string) {
	t.Helper()
	dest := t.TempDir()
	d, err := NewDir(dest, opt)
	if err != nil {
		t.Fatal(err)
	}
	d.WriteHeldInline()
	return d, dest
}

// ownBy gives the held files of the resolved directory dir to the writer
// (writer set) or to Put from now on.
func ownBy(t *testing.T, d *Dir, dir string, writer bool) {
	t.Helper()
	h, err := d.dirFD(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := int32(ownerPut)
	if writer {
		o = ownerWriter
	}
	h.owner.Store(o)
	d.release(h)
	d.split = splitState{}
}

// settleAll settles es, all passed, and closes d.
func settleAll(t *testing.T, d *Dir, es ...*archive.Entry) {
	t.Helper()
	vs := make([]archive.Verdict, len(es))
	for i, e := range es {
		vs[i] = archive.Verdict{Entry: e}
	}
	for _, err := range d.SettleAll(vs) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSplitLaterWinsAcrossOwners: of two held entries of one name, the
// first written by the writer (slowly) and the second by Put, or the
// other way round, the later is the file.
func TestSplitLaterWinsAcrossOwners(t *testing.T) {
	for _, first := range []bool{true, false} {
		d, dest := splitDir(t, DirOptions{})
		release := slowWrites(t, "sub/f")
		if err := d.Put(&archive.Entry{Name: "sub/", Type: archive.TypeDir}, nil); err != nil {
			t.Fatal(err)
		}
		ownBy(t, d, "sub", first)
		e1, _ := pending("sub/f", "")
		putAsync(t, d, e1, "one")
		d.flushWriters()
		ownBy(t, d, "sub", !first)
		go release()
		e2, _ := pending("sub/f", "")
		putAsync(t, d, e2, "two")
		settleAll(t, d, e1, e2)
		sameTree(t, "later wins", dest, false, map[string]string{"sub": "/", "sub/f": "two"})
	}
}

// TestSplitRepointedLink: a link re-pointed between two held files under
// it, one written by the writer, one by Put: each lands where the link
// led when it came.
func TestSplitRepointedLink(t *testing.T) {
	for _, first := range []bool{true, false} {
		d, dest := splitDir(t, DirOptions{})
		release := slowWrites(t, "sub/f")
		for _, e := range []*archive.Entry{
			{Name: "sub/", Type: archive.TypeDir},
			{Name: "l", Type: archive.TypeSymlink, Linkname: "sub"},
		} {
			if err := d.Put(e, nil); err != nil {
				t.Fatal(err)
			}
		}
		ownBy(t, d, "sub", first)
		ownBy(t, d, "", !first)
		e1, _ := pending("l/f", "")
		putAsync(t, d, e1, "one")
		d.flushWriters()
		if err := d.Put(&archive.Entry{Name: "l", Type: archive.TypeSymlink, Linkname: "."}, nil); err != nil {
			t.Fatal(err)
		}
		e2, _ := pending("l/f", "")
		putAsync(t, d, e2, "two")
		release()
		settleAll(t, d, e1, e2)
		sameTree(t, "repointed", dest, false, map[string]string{"sub": "/", "sub/f": "one", "f": "two", "l": "→."})
	}
}

// TestSplitDirReplacedBySymlink: a symlink entry of the name of a
// directory whose held files the writer is writing is refused, with
// Overwrite too; the files, and one put after it, stay in the directory.
func TestSplitDirReplacedBySymlink(t *testing.T) {
	for _, policy := range []Policy{Refuse, Overwrite} {
		d, dest := splitDir(t, DirOptions{Policy: policy})
		release := slowWrites(t, "sub/f")
		if err := d.Put(&archive.Entry{Name: "sub/", Type: archive.TypeDir}, nil); err != nil {
			t.Fatal(err)
		}
		ownBy(t, d, "sub", true)
		e1, _ := pending("sub/f", "")
		putAsync(t, d, e1, "one")
		d.flushWriters()
		if err := d.Put(&archive.Entry{Name: "sub", Type: archive.TypeSymlink, Linkname: "."}, nil); err == nil {
			t.Errorf("policy %d: a symlink replaced a directory whose files are being written", policy)
		}
		ownBy(t, d, "sub", false)
		e2, _ := pending("sub/g", "")
		putAsync(t, d, e2, "two")
		release()
		settleAll(t, d, e1, e2)
		sameTree(t, "dir kept", dest, false, map[string]string{"sub": "/", "sub/f": "one", "sub/g": "two"})
	}
}

// TestSplitOwners: a directory's held files go to the writer while it
// keeps up, each directory to one of the two, and every file is written.
func TestSplitOwners(t *testing.T) {
	d, dest := splitDir(t, DirOptions{})
	release := slowWrites(t, "a/f0")
	want := map[string]string{}
	var es []*archive.Entry
	for _, dir := range []string{"a", "b"} {
		for i := range splitBacklog + 8 {
			name := dir + "/f" + string(rune('0'+i%10)) + string(rune('a'+i/10))
			if i == 0 {
				name = dir + "/f0"
			}
			e, _ := pending(name, name)
			putAsync(t, d, e, name)
			es = append(es, e)
			want[name] = name
		}
		want[dir] = "/"
	}
	for dir, writer := range map[string]bool{"a": true, "b": false} {
		h, err := d.dirFD(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.owner.Load() == ownerWriter; got != writer {
			t.Errorf("%s: the writer's: %v, want %v", dir, got, writer)
		}
		d.release(h)
	}
	release()
	settleAll(t, d, es...)
	sameTree(t, "split", dest, false, want)
}
