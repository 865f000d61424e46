package wim

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil/entrytree"
)

// withMetadata returns none.wim (all resources raw) with its metadata
// changed by f and the metadata's SHA-1 in the blob table made to match,
// so that only the structure checks can refuse it.
func withMetadata(t *testing.T, f func(md []byte)) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/none.wim")
	if err != nil {
		t.Fatal(err)
	}
	tab := parseReshdr(b[48:])
	for e := tab.offset; e < tab.offset+tab.size; e += blobEntrySize {
		h := parseReshdr(b[e:])
		if h.flags&resMetadata == 0 {
			continue
		}
		md := b[h.offset : h.offset+h.size]
		f(md)
		sum := sha1.Sum(md)
		copy(b[e+30:], sum[:])
		return b
	}
	t.Fatal("no metadata resource")
	return nil
}

// dentryOf finds the dentry named name in md.
func dentryOf(t *testing.T, md []byte, name string) int {
	t.Helper()
	u := utf16.Encode([]rune(name))
	pat := make([]byte, 2*len(u)+2)
	for i, c := range u {
		binary.LittleEndian.PutUint16(pat[2*i:], c)
	}
	i := bytes.Index(md, pat)
	if i < dentrySize {
		t.Fatalf("no dentry %q", name)
	}
	return i - dentrySize
}

func readTree(b []byte, opt *archive.Options) (map[string]string, error) {
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), "", opt)
	if err != nil {
		return nil, err
	}
	return entrytree.Read(r)
}

func TestCraftedMetadata(t *testing.T) {
	le := binary.LittleEndian
	for _, tc := range []struct {
		name string
		f    func(t *testing.T, md []byte)
		want string
	}{
		{"loop", func(t *testing.T, md []byte) {
			// d/e's children are d's: e contains itself.
			d, e := dentryOf(t, md, "d"), dentryOf(t, md, "e")
			copy(md[e+16:e+24], md[d+16:d+24])
		}, "loop"},
		{"dotdot", func(t *testing.T, md []byte) {
			a := dentryOf(t, md, "a.txt")
			le.PutUint16(md[a+100:], 4)
			copy(md[a+dentrySize:], []byte{'.', 0, '.', 0, 0, 0})
		}, "invalid name"},
		{"slash", func(t *testing.T, md []byte) {
			a := dentryOf(t, md, "a.txt")
			md[a+dentrySize+2] = '/'
		}, "invalid name"},
		{"duplicate", func(t *testing.T, md []byte) {
			a := dentryOf(t, md, "empty")
			copy(md[a+dentrySize:], []byte{'a', 0, '.', 0, 't', 0, 'x', 0, 't', 0})
		}, "twice"},
		{"huge dentry", func(t *testing.T, md []byte) {
			a := dentryOf(t, md, "a.txt")
			le.PutUint64(md[a:], 1<<40)
		}, "dentry at"},
		{"short dentry", func(t *testing.T, md []byte) {
			a := dentryOf(t, md, "a.txt")
			le.PutUint64(md[a:], 50)
		}, "dentry at"},
		{"names past the end", func(t *testing.T, md []byte) {
			a := dentryOf(t, md, "a.txt")
			le.PutUint16(md[a+100:], 2000)
		}, "names past"},
		{"odd name", func(t *testing.T, md []byte) {
			a := dentryOf(t, md, "a.txt")
			le.PutUint16(md[a+100:], 9)
		}, "odd name"},
		{"subdir outside", func(t *testing.T, md []byte) {
			d := dentryOf(t, md, "d")
			le.PutUint64(md[d+16:], uint64(len(md))+100)
		}, "past the end"},
		{"unknown data", func(t *testing.T, md []byte) {
			a := dentryOf(t, md, "big.txt")
			md[a+64] ^= 1
		}, "not in the blob table"},
		{"stream entries outside", func(t *testing.T, md []byte) {
			a := dentryOf(t, md, "mid.txt")
			le.PutUint16(md[a+96:], 60000)
		}, "stream entry"},
		{"security data", func(t *testing.T, md []byte) {
			le.PutUint32(md, uint32(len(md)))
		}, "security data"},
		{"root not a directory", func(t *testing.T, md []byte) {
			root := (int(le.Uint32(md)) + 7) &^ 7
			md[root+8] &^= attrDirectory
		}, "root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := withMetadata(t, func(md []byte) { tc.f(t, md) })
			_, err := readTree(b, nil)
			if !errors.Is(err, archive.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want corrupt %q", err, tc.want)
			}
		})
	}
	// The helper itself leaves a readable WIM.
	if _, err := readTree(withMetadata(t, func([]byte) {}), nil); err != nil {
		t.Fatal(err)
	}
}

// TestMetadataChecksum: metadata changed without its SHA-1 is a mismatch.
func TestMetadataChecksum(t *testing.T) {
	b, _ := os.ReadFile("testdata/none.wim")
	good := withMetadata(t, func([]byte) {})
	bad := withMetadata(t, func(md []byte) { md[len(md)-1] ^= 1 })
	// Put the good SHA-1 back over the changed metadata.
	tab := parseReshdr(b[48:])
	copy(bad[tab.offset:tab.offset+tab.size], good[tab.offset:tab.offset+tab.size])
	if _, err := readTree(bad, nil); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("got %v, want a checksum mismatch", err)
	}
}

// TestTruncated cuts fixtures short everywhere: always an error, never a
// panic or a hang.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"testdata/tiny-xpress.wim", "testdata/tiny-solid.wim", "testdata/xpress.wim", "testdata/solid.wim"} {
		b, _ := os.ReadFile(name)
		for n := 0; n < len(b); n += 1 + n/16 {
			if _, err := readTree(b[:n], nil); err == nil {
				t.Fatalf("%s cut to %d bytes: no error", name, n)
			}
		}
	}
}

// TestBitFlips flips bits all over the fixtures: each read fails or gives
// the same tree (a flip in the XML, padding or an unused field).
func TestBitFlips(t *testing.T) {
	for _, name := range []string{"testdata/tiny-xpress.wim", "testdata/tiny-solid.wim", "testdata/xpress.wim", "testdata/solid.wim", "testdata/lzx.wim", "testdata/check.wim"} {
		b, _ := os.ReadFile(name)
		want := entrytree.Show(expected(t, name))
		step := len(b)/150 + 1
		if len(b) < 4000 {
			step = 3
		}
		for i := 0; i < len(b); i += step {
			c := append([]byte{}, b...)
			c[i] ^= 1 << (i % 8)
			got, err := readTree(c, nil)
			if err == nil && entrytree.Show(got) != want {
				t.Fatalf("%s: flip at %d: no error, other tree", name, i)
			}
		}
	}
}

func TestImageOption(t *testing.T) {
	got, err := func() (map[string]string, error) {
		r, err := openFile(t, "testdata/multi.wim", &archive.Options{Image: 2})
		if err != nil {
			return nil, err
		}
		return entrytree.Read(r)
	}()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for k, v := range expected(t, "testdata/multi.wim") {
		if rest, ok := strings.CutPrefix(k, "2/"); ok {
			want[rest] = v
		}
		if rest, ok := strings.CutPrefix(k, "link 2/"); ok {
			want["link "+rest] = v
		}
	}
	if entrytree.Show(got) != entrytree.Show(want) {
		t.Fatalf("got\n%s\nwant\n%s", entrytree.Show(got), entrytree.Show(want))
	}
	for _, n := range []int{3, -1} {
		if _, err := openFile(t, "testdata/multi.wim", &archive.Options{Image: n}); !errors.Is(err, archive.ErrUnsupported) {
			t.Fatalf("image %d: no error", n)
		}
	}
}

func TestSplit(t *testing.T) {
	// A missing part.
	opt := &archive.Options{OpenVolume: func(p string) (*os.File, error) {
		if strings.HasSuffix(p, "3.swm") {
			return nil, os.ErrNotExist
		}
		return os.Open(p)
	}}
	if _, err := openFile(t, "testdata/split.swm", opt); !errors.Is(err, archive.ErrMissingVolume) {
		t.Fatalf("missing part: %v", err)
	}
	// A part of another set in its place.
	opt.OpenVolume = func(p string) (*os.File, error) {
		if strings.HasSuffix(p, "3.swm") {
			return os.Open("testdata/split4.swm")
		}
		return os.Open(p)
	}
	if _, err := openFile(t, "testdata/split.swm", opt); !errors.Is(err, archive.ErrCorrupt) {
		t.Fatalf("wrong part: %v", err)
	}
	// Not the first part; no name to find the others by.
	if _, err := openFile(t, "testdata/split2.swm", nil); !errors.Is(err, archive.ErrUnsupported) {
		t.Fatalf("second part: %v", err)
	}
	b, _ := os.ReadFile("testdata/split.swm")
	if _, err := open(t, b); !errors.Is(err, archive.ErrUnsupported) {
		t.Fatalf("unnamed split: %v", err)
	}
}

func TestOpen(t *testing.T) {
	if _, err := Open(&archive.Input{R: strings.NewReader("MSWIM")}, nil); !errors.Is(err, archive.ErrUnsupported) {
		t.Fatalf("pipe: %v", err)
	}
	b, _ := os.ReadFile("testdata/xpress.wim")
	r, err := Open(&archive.Input{RA: bytes.NewReader(b), Size: int64(len(b))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entrytree.Read(r); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    func(b []byte)
		want error
	}{
		{"magic", func(b []byte) { b[0] = 'X' }, archive.ErrCorrupt},
		{"pipable", func(b []byte) { copy(b, "WLPWM") }, archive.ErrUnsupported},
		{"header size", func(b []byte) { b[8] = 100 }, archive.ErrCorrupt},
		{"version", func(b []byte) { b[14] = 9 }, archive.ErrUnsupported},
		{"part", func(b []byte) { b[40] = 5 }, archive.ErrCorrupt},
		{"compression", func(b []byte) { b[18] = 0 }, archive.ErrCorrupt},
		{"xpress2", func(b []byte) { b[18] = 0x20 }, archive.ErrUnsupported},
		{"chunk size", func(b []byte) { b[20], b[21] = 1, 1 }, archive.ErrCorrupt},
		{"images", func(b []byte) { b[44] = 7 }, archive.ErrCorrupt},
		{"blob table outside", func(b []byte) { b[48+14] = 1 }, archive.ErrCorrupt},
	} {
		c := append([]byte{}, b...)
		tc.f(c)
		if _, err := readTree(c, nil); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// A chunk size over the memory limit.
	if _, err := readTree(b, &archive.Options{MemLimit: 40000}); !errors.Is(err, archive.ErrLimit) {
		t.Errorf("memlimit: %v", err)
	}
}

func TestFiletime(t *testing.T) {
	if !filetime(0).IsZero() {
		t.Fatal("zero")
	}
	if got := filetime(filetimeUnixDiff + 15e6).Unix(); got != 1 {
		t.Fatalf("1.5 s after 1970: %d", got)
	}
	if got := filetime(1e7).Year(); got != 1601 {
		t.Fatalf("1601: %d", got)
	}
}

func FuzzWIM(f *testing.F) {
	for _, n := range []string{"testdata/tiny-xpress.wim", "testdata/tiny-solid.wim"} {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// As decoded whole, and with LZMS chunks read as they decode:
		// the same entries and bytes, or both an error.
		var trees [2]string
		for live := range 2 {
			r, err := NewReader(bytes.NewReader(b), int64(len(b)), "", &archive.Options{MemLimit: 64 << 20, Threads: 2})
			if err != nil {
				return
			}
			if live == 1 {
				r.cache.liveMin = 1
			}
			tree, err := entrytree.Read(r)
			if err != nil {
				trees[live] = "error"
				continue
			}
			trees[live] = entrytree.Show(tree)
		}
		if trees[0] != trees[1] {
			t.Fatalf("read whole:\n%s\nread live:\n%s", trees[0], trees[1])
		}
	})
}
