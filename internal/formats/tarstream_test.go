package formats

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	codectar "github.com/unpack-dev/unpack/internal/codec/tar"
	"github.com/unpack-dev/unpack/internal/verify"
)

// tarOf returns a tar of the files, in order, and the offset where each
// file's data end.
func tarOf(t *testing.T, files ...[2]string) ([]byte, []int) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	var ends []int
	for _, f := range files {
		tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg})
		io.WriteString(tw, f[1])
		tw.Flush()
		ends = append(ends, buf.Len())
	}
	tw.Close()
	return buf.Bytes(), ends
}

func gzipMember(t *testing.T, p []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(p)
	zw.Close()
	return buf.Bytes()
}

// TestTarInStreamSettles reads a tar.gz of two gzip members, the first
// ending after the first file, the second with a wrong CRC: the first file
// is settled as verified once its member's check passed, the second fails
// with the mismatch, named by its own verdict.
func TestTarInStreamSettles(t *testing.T) {
	big := string(bytes.Repeat([]byte("first file "), 40000))
	tb, ends := tarOf(t, [2]string{"first.txt", big}, [2]string{"second.txt", "second\n"})
	m1, m2 := gzipMember(t, tb[:ends[0]]), gzipMember(t, tb[ends[0]:])
	m2[len(m2)-8] ^= 1 // the second member's CRC
	p := filepath.Join(t.TempDir(), "a.tar.gz")
	if err := os.WriteFile(p, append(m1, m2...), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(p, nil, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	settler, ok := a.Reader.(archive.Settler)
	if !ok || !a.StreamChecked() {
		t.Fatalf("a tar.gz reader is no Settler (%T) or not stream-checked", a.Reader)
	}
	verdicts := map[string]error{}
	settled := map[string]bool{}
	var read []*archive.Entry
	collect := func() {
		for _, v := range settler.Settled() {
			name := verdictName(read, v)
			if settled[name] {
				t.Errorf("%s settled twice", name)
			}
			settled[name], verdicts[name] = true, v.Err
		}
	}
	e1, err := a.Next()
	read = append(read, e1)
	if err != nil || !e1.Pending {
		t.Fatalf("first entry: %v, pending %v", err, e1 != nil && e1.Pending)
	}
	if _, err := io.Copy(io.Discard, a); err != nil {
		t.Fatal(err)
	}
	collect()
	e2, err := a.Next() // reading its header reads past the first member's end
	read = append(read, e2)
	if err != nil || !e2.Pending {
		t.Fatalf("second entry: %v", err)
	}
	collect()
	if !settled["first.txt"] || verdicts["first.txt"] != nil {
		t.Errorf("first.txt not settled as verified once its member's CRC passed: %v %v", settled["first.txt"], verdicts["first.txt"])
	}
	if settled["second.txt"] {
		t.Errorf("second.txt settled before its data were read")
	}
	io.Copy(io.Discard, a)
	_, err = a.Next()
	var me *verify.MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("end: %v, want the CRC mismatch", err)
	}
	collect()
	if !errors.As(verdicts["second.txt"], &me) {
		t.Errorf("second.txt: verdict %v, want the CRC mismatch", verdicts["second.txt"])
	}
}

// TestTarInStreamNoChecks: a stream without checks (brotli, lzma) has
// nothing to wait for: no entry is Pending.
func TestTarInStreamNoChecks(t *testing.T) {
	tb, _ := tarOf(t, [2]string{"a.txt", "a\n"})
	r := newTarInStream(bytes.NewReader(tb), bytes.NewReader(nil), func(r io.Reader) entryReader { return codectar.NewReader(r, nil) })
	e, err := r.Next()
	if err != nil || e.Pending {
		t.Fatalf("Next = %v, pending %v", err, e != nil && e.Pending)
	}
}

// verdictName is the name of the entry of read that the verdict v is on
// ("" for none).
func verdictName(read []*archive.Entry, v archive.Verdict) string {
	for _, e := range read {
		if e != nil && v.Same(e) {
			return e.Name
		}
	}
	return ""
}

// TestTarInStreamHolds: the pending entries of a tar in a checked stream
// are named by their Hold, each its own, and the verdicts keep no *Entry.
func TestTarInStreamHolds(t *testing.T) {
	tb, _ := tarOf(t, [2]string{"a.txt", "a\n"}, [2]string{"b.txt", "b\n"})
	p := filepath.Join(t.TempDir(), "a.tar.gz")
	if err := os.WriteFile(p, gzipMember(t, tb), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(p, nil, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var read []*archive.Entry
	for {
		e, err := a.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !e.Pending || e.Hold == 0 || len(read) > 0 && read[len(read)-1].Hold == e.Hold {
			t.Fatalf("%s: pending %v, hold %d", e.Name, e.Pending, e.Hold)
		}
		read = append(read, e)
	}
	vs := a.Reader.(archive.Settler).Settled()
	if len(vs) != 2 {
		t.Fatalf("%d verdicts, want 2", len(vs))
	}
	for i, v := range vs {
		if v.Entry != nil || v.Err != nil || !v.Same(read[i]) {
			t.Errorf("verdict %d: %+v, entry %s hold %d", i, v, read[i].Name, read[i].Hold)
		}
	}
}
