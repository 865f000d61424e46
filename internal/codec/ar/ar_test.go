package ar

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/testutil/entrytree"
)

func readAll(data []byte, wrap func(io.Reader) io.Reader) (map[string]string, []string, error) {
	return readAllBy(data, wrap, false)
}

// readAllBy reads the members' data through Read, or through WriteTo.
func readAllBy(data []byte, wrap func(io.Reader) io.Reader, writeTo bool) (map[string]string, []string, error) {
	r, err := NewReader(wrap(bytes.NewReader(data)))
	if err != nil {
		return nil, nil, err
	}
	got := map[string]string{}
	var order []string
	for {
		e, err := r.Next()
		if err == io.EOF {
			return got, order, nil
		}
		if err != nil {
			return got, order, err
		}
		h := sha256.New()
		var n int64
		if writeTo {
			n, err = r.WriteTo(h)
		} else {
			n, err = io.Copy(h, iotest.OneByteReader(r))
		}
		if err != nil {
			return got, order, err
		}
		if n != e.Size {
			return got, order, fmt.Errorf("%s: %d bytes, header says %d", e.Name, n, e.Size)
		}
		got[e.Name] = fmt.Sprintf("%s %d", hex.EncodeToString(h.Sum(nil)), n)
		order = append(order, e.Name)
	}
}

func TestFixtures(t *testing.T) {
	list := strings.Split(strings.TrimSpace(string(testutil.Fixture(t, "files.txt"))), "\n")
	for _, a := range []string{"gnu.a", "bsd.a"} {
		data := testutil.Fixture(t, a)
		for wn, wrap := range map[string]func(io.Reader) io.Reader{
			"plain": func(r io.Reader) io.Reader { return r }, "onebyte": iotest.OneByteReader} {
			got, order, err := readAll(data, wrap)
			if err != nil {
				t.Fatalf("%s/%s: %v", a, wn, err)
			}
			if len(order) != len(list) {
				t.Fatalf("%s: members %v", a, order)
			}
			for i, line := range list {
				f := strings.SplitN(line, " ", 3)
				if order[i] != f[2] || got[f[2]] != f[0]+" "+f[1] {
					t.Errorf("%s: member %d %s %s, want %s", a, i, order[i], got[order[i]], line)
				}
			}
		}
	}
}

func TestTruncatedAndFlipped(t *testing.T) {
	for _, a := range []string{"gnu.a", "bsd.a"} {
		data := testutil.Fixture(t, a)
		for n := 0; n < len(data)-1; n += 7 {
			for _, wt := range []bool{false, true} {
				_, _, err := readAllBy(data[:n], func(r io.Reader) io.Reader { return r }, wt)
				if !errors.Is(err, archive.ErrCorrupt) {
					t.Fatalf("%s cut at %d (WriteTo %v): %v", a, n, wt, err)
				}
			}
		}
		got, _, err := readAllBy(data, func(r io.Reader) io.Reader { return r }, true)
		if err != nil || len(got) != 4 {
			t.Fatalf("%s WriteTo: %v %v", a, got, err)
		}
		for i := 0; i < len(data); i += 3 {
			bad := bytes.Clone(data)
			bad[i] ^= 0x21
			_, _, err := readAll(bad, func(r io.Reader) io.Reader { return r })
			if err != nil && !archive.Categorized(err) {
				t.Fatalf("%s flip at %d: %v", a, i, err)
			}
		}
	}
	if _, err := NewReader(strings.NewReader("!<thin>\n")); !errors.Is(err, archive.ErrUnsupported) {
		t.Errorf("thin: %v", err)
	}
}

func FuzzAr(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.a")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	big := []byte(Magic + fmt.Sprintf("%-16s%-12d%-6d%-6d%-8o%-10d`\n", "big/", 0, 0, 0, 0o644, 100<<10))
	f.Add(append(big, bytes.Repeat([]byte("0123456789"), 10<<10)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, _, werr := readAllBy(data, func(r io.Reader) io.Reader { return r }, true)
		if werr != nil && !archive.Categorized(werr) {
			t.Fatalf("error of no category: %v", werr)
		}
		// The same archive as a file (archive.FileSeq's direct reads)
		// gives what the stream gives.
		got, gerr := readFile(data)
		if (werr == nil) != (gerr == nil) || errors.Is(werr, ErrTruncated) != errors.Is(gerr, ErrTruncated) ||
			fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("stream: %v %v\nfile: %v %v", werr, want, gerr, got)
		}
	})
}

// readFile reads data as an archive file through Open: the members'
// SHA-256 and size by name.
func readFile(data []byte) (map[string]string, error) {
	ar, err := Open(&archive.Input{RA: bytes.NewReader(data), Size: int64(len(data))}, nil)
	if err != nil {
		return nil, err
	}
	return entrytree.Sized(ar)
}

// TestFileInput: members long enough for WriteTo to read around the input
// buffer (archive.FileSeq), a BSD long name and odd sizes among them, give
// their bytes when the archive is random access (a file); a cut archive is
// truncated.
func TestFileInput(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(Magic)
	want := map[string]string{}
	for i, n := range []int{1<<20 + 1, 7, 70 << 10, 300<<10 + 3} {
		d := make([]byte, n)
		for j := range d {
			d[j] = byte(j*11 + i + j>>9)
		}
		name := fmt.Sprintf("m%d", i)
		if i == 2 {
			name = strings.Repeat("long", 6)
			fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", "#1/24", 0, 0, 0, 0o644, n+24)
			b.WriteString(name)
		} else {
			fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", name+"/", 0, 0, 0, 0o644, n)
		}
		b.Write(d)
		if n%2 == 1 {
			b.WriteByte('\n')
		}
		want[name] = fmt.Sprintf("%x %d", sha256.Sum256(d), n)
	}
	got, err := readFile(b.Bytes())
	if err != nil || len(got) != len(want) {
		t.Fatalf("%v, %d members", err, len(got))
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	if _, err := readFile(b.Bytes()[:b.Len()-1000]); !errors.Is(err, ErrTruncated) {
		t.Errorf("cut: %v", err)
	}
}
