package chm

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

func readAll(t testing.TB, r archive.Reader) (map[string]string, error) {
	got := map[string]string{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		if e.Type != archive.TypeFile {
			continue
		}
		h := sha256.New()
		n, err := io.Copy(h, r)
		if err != nil {
			return got, err
		}
		if n != e.Size {
			t.Fatalf("%s: %d bytes of %d", e.Name, n, e.Size)
		}
		got[e.Name] = hex.EncodeToString(h.Sum(nil))
	}
}

func load(t testing.TB) []byte {
	b, err := os.ReadFile("testdata/7-zip.chm")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSevenZipHelp(t *testing.T) {
	b := load(t)
	want := map[string]string{}
	sums, err := os.ReadFile("testdata/7-zip.chm.sha256s")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, _ := strings.Cut(l, "  ")
		want[name] = sum
	}
	// From a file and from a pipe (spooled).
	for _, in := range []*archive.Input{
		{R: bytes.NewReader(b), RA: bytes.NewReader(b), Size: int64(len(b))},
		{R: bytes.NewReader(b), Size: -1},
	} {
		r, err := Open(in, &archive.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%d files, want %d", len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s, want %s", k, got[k], v)
			}
		}
	}
}

// TestChmcmd reads the CHM files Free Pascal's chmcmd writes
// (scripts/testdata/chm.sh): every file 7-Zip extracts, byte for byte,
// and no other. chmcmd-many.chm's directory spans three PMGL chunks
// with the header's first PMGL chunk number wrong.
func TestChmcmd(t *testing.T) {
	for _, name := range []string{"chmcmd", "chmcmd-many"} {
		b, err := os.ReadFile("testdata/" + name + ".chm")
		if err != nil {
			t.Fatal(err)
		}
		list, err := os.ReadFile("testdata/" + name + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(list)), "\n") {
			f := strings.SplitN(l, " ", 3)
			want[f[2]] = f[0]
		}
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d files, want %d", name, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s: %q, want %s", name, k, got[k], v)
			}
		}
	}
}

// TestOutOfOrder reads files backwards: each read decodes the section
// again from its start, and gives the same bytes.
func TestOutOfOrder(t *testing.T) {
	b := load(t)
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var sums []string
	for i := len(r.entries) - 1; i >= 0; i -= 7 {
		d := &r.entries[i]
		if d.section != 1 || d.size == 0 {
			continue
		}
		if err := r.s1.seek(int64(d.off)); err != nil {
			t.Fatal(err)
		}
		data := make([]byte, d.size)
		if _, err := io.ReadFull(r.s1, data); err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		names = append(names, d.name[1:])
		sums = append(sums, hex.EncodeToString(h[:]))
	}
	r2, _ := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	want, err := readAll(t, r2)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		if want[n] != sums[i] {
			t.Errorf("%s read out of order differs", n)
		}
	}
}

func TestTruncated(t *testing.T) {
	b := load(t)
	for cut := 0; cut < len(b); cut += 1 + cut/10 {
		r, err := NewReader(bytes.NewReader(b[:cut]), int64(cut), nil)
		if err == nil {
			_, err = readAll(t, r)
		}
		if err == nil {
			t.Errorf("cut to %d: no error", cut)
		} else if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrUnsupported) {
			t.Errorf("cut to %d: %v", cut, err)
		}
	}
}

func TestBitFlips(t *testing.T) {
	b := load(t)
	for i := 0; i < len(b); i += 1 + i/4 {
		c := append([]byte(nil), b...)
		c[i] ^= 1 << (i % 8)
		r, err := NewReader(bytes.NewReader(c), int64(len(c)), &archive.Options{MemLimit: 1 << 22})
		if err == nil {
			_, err = readAll(t, r)
		}
		if err != nil && !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, archive.ErrLimit) {
			t.Errorf("flip at %d: %v", i, err)
		}
	}
}

func TestHeaders(t *testing.T) {
	b := load(t)
	mod := func(f func(c []byte)) error {
		c := append([]byte(nil), b...)
		f(c)
		r, err := NewReader(bytes.NewReader(c), int64(len(c)), &archive.Options{})
		if err == nil {
			_, err = readAll(t, r)
		}
		return err
	}
	dir := binary.LittleEndian.Uint64(b[0x48:])
	for name, tc := range map[string]struct {
		f    func([]byte)
		want error
	}{
		"magic":      {func(c []byte) { c[0] = 'X' }, ErrMagic},
		"dir offset": {func(c []byte) { binary.LittleEndian.PutUint64(c[0x48:], 1<<40) }, ErrTruncated},
		"ITSP":       {func(c []byte) { c[dir] = 'X' }, ErrHeader},
		"chunk size": {func(c []byte) { binary.LittleEndian.PutUint32(c[dir+0x10:], 1<<30) }, ErrHeader},
		"PMGL":       {func(c []byte) { c[dir+0x54] = 'X' }, ErrDirectory},
		"free space": {func(c []byte) { binary.LittleEndian.PutUint32(c[dir+0x54+4:], 1<<20) }, ErrDirectory},
		"chunk loop": {func(c []byte) { binary.LittleEndian.PutUint32(c[dir+0x54+0x10:], 0) }, nil},
		"first PMGL": {func(c []byte) { binary.LittleEndian.PutUint32(c[dir+0x20:], 1<<31) }, nil},
		"control":    {func(c []byte) { i := bytes.Index(c, []byte("LZXC")); c[i] = 'X' }, ErrControl},
		"window":     {func(c []byte) { i := bytes.Index(c, []byte("LZXC")); c[i+0x0C] = 3 }, archive.ErrUnsupported},
		"interval":   {func(c []byte) { i := bytes.Index(c, []byte("LZXC")); c[i+0x08] = 0 }, ErrControl},
	} {
		err := mod(tc.f)
		if tc.want == nil {
			if err != nil && !errors.Is(err, archive.ErrCorrupt) {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	// The window over the memory limit.
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{MemLimit: 1 << 16})
	if err == nil {
		_, err = readAll(t, r)
	}
	if !errors.Is(err, archive.ErrLimit) {
		t.Errorf("memory limit: %v", err)
	}
}

func TestEncint(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		v    uint64
		used int
	}{
		{[]byte{0}, 0, 1},
		{[]byte{0x7F}, 127, 1},
		{[]byte{0x81, 0x00}, 128, 2},
		{[]byte{0x81}, 0, 0},
		{bytes.Repeat([]byte{0xFF}, 10), 0, 0},
	} {
		if v, n := encint(tc.in); v != tc.v || n != tc.used {
			t.Errorf("% x: %d, %d", tc.in, v, n)
		}
	}
}

func FuzzCHM(f *testing.F) {
	f.Add(load(f))
	for _, name := range []string{"chmcmd", "chmcmd-many"} {
		if b, err := os.ReadFile("testdata/" + name + ".chm"); err == nil {
			f.Add(b)
		}
	}
	f.Add(buildCHM(f, testFiles(6, 9000, 6), chmSpec{frames: 1, e8: 1 << 20}))
	// Every reset interval a job of its own, decoded ahead.
	groupTarget = 1
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{MemLimit: 1 << 22, Threads: 2})
		if err != nil {
			return
		}
		readAll(t, r)
		r.Close()
	})
}
