package lzh

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/testutil/entrytree"
	"github.com/unpack-dev/unpack/internal/verify"
)

// readAll reads every entry of data: files as "sha256 size", others by
// type (and link target).
func readAll(data []byte, opt *archive.Options, wrap func(io.Reader) io.Reader) (map[string]string, error) {
	r, err := NewReader(wrap(bytes.NewReader(data)), opt)
	if err != nil {
		return nil, err
	}
	return entrytree.Sized(r)
}

func plain(r io.Reader) io.Reader { return r }

var jlhaFixtures = []string{"jlha-l0-lh5.lzh", "jlha-l1-lh6.lzh", "jlha-l2-lh7.lzh", "jlha-l1-lh0.lzh"}

func TestJLHAFixtures(t *testing.T) {
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(testutil.Fixture(t, "files.txt"))), "\n") {
		f := strings.Fields(line)
		want[f[2]] = f[0] + " " + f[1]
	}
	for _, name := range jlhaFixtures {
		for _, wrap := range []func(io.Reader) io.Reader{plain, iotest.OneByteReader, iotest.HalfReader} {
			got, err := readAll(testutil.Fixture(t, name), nil, wrap)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for n, w := range want {
				if got[n] != w {
					t.Errorf("%s: %s: got %q, want %q", name, n, got[n], w)
				}
			}
		}
	}
}

// TestPublicFixtures reads the files copied from lhasa's test suite.
func TestPublicFixtures(t *testing.T) {
	const gpl = "8177f97513213526df2cf6184d8ff986c675afb514d4e68a404010521b880643 18092"
	const k64 = "de2f256064a0af797747c2b97505dc0b9f3df0de4f489eac731c23ae9ca9cc31 65536"
	for _, tc := range []struct {
		file string
		want map[string]string
	}{
		{"lh1-64k.lzh", map[string]string{"65536.bin": k64}},
		{"lz5-64k.lzs", map[string]string{"65536.bin": k64}},
		{"initial.lzs", map[string]string{"initial.bin": "9ca4f11d7f7f42b51c3052936eef90587feb718358813b21298c2cc5e30ff095 4234"}},
		{"lh4.lzh", map[string]string{"gpl-2": gpl}},
		{"h2_lhx.lzh", map[string]string{"gpl-2": gpl}},
		{"h3_subdir.lzh", map[string]string{"subdir/subdir2/HELLO.TXT": "13dd7774cadfb09f8732ec2cc183916c9d0304dc6e7fa6640f6cefefae4cba12 14"}},
		{"l1_full_subdir.lzh", map[string]string{"/Untitled/subdir/subdir2/hello.txt": "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9 11"}},
		{"symlink1.lzh", map[string]string{"foo.txt": "a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447 12"}},
		{"pm1.pma", map[string]string{"copying.txt": "66875d5ccf1f362902a3a14fad934fcb69522cc2a2b4f5a84978fe2569c33e45 25284"}},
		{"mtcd.pma", map[string]string{
			"cd.mtc":   "f03b85f1706d12de59bdde738af6c9340caff87357501743b1992421d0e84a2f 256",
			"mtcd.doc": "3916cd29631f259044ce5063edc0c6ea3c9c00afcd55a335430c27441367f8d5 1403"}},
		{"pm2.pma", map[string]string{"gpl-2.": "891ff81846fa2544373b4eec884593050069973c9be6771ed279959721aee739"}},
		{"pm2-sfx.com", map[string]string{"gpl-2.": "891ff81846fa2544373b4eec884593050069973c9be6771ed279959721aee739"}},
		{"dotdot.lzh", map[string]string{
			"../evil1.txt":        "9230f33ce6f02b858dcbd0cae37788586df05b082d6606fedabb7cd14dc6d201",
			"foo/../../evil2.txt": "6c794acffdbab033a7e16c2adbe6786495529d85cc4720e51a8cb0a1bba2b8eb"}},
	} {
		got, err := readAll(testutil.Fixture(t, tc.file), nil, plain)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		for n, w := range tc.want {
			if g := got[n]; !strings.HasPrefix(g, w) {
				t.Errorf("%s: %s: got %q, want %q (all: %v)", tc.file, n, g, w, got)
			}
		}
	}
}

func TestSymlinks(t *testing.T) {
	got, err := readAll(testutil.Fixture(t, "symlink1.lzh"), nil, plain)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewReader(bytes.NewReader(testutil.Fixture(t, "symlink1.lzh")), nil)
	e, err := r.Next()
	if err != nil || e.Type != archive.TypeSymlink || e.Name != "foo.txt" || e.Linkname != "bar.txt" {
		t.Fatalf("first entry %+v, %v (all %v)", e, err, got)
	}
	got, err = readAll(testutil.Fixture(t, "h0_symlink.lzh"), nil, plain)
	if err != nil || len(got) != 1 {
		t.Fatalf("h0_symlink: %v, %v", got, err)
	}
	for n, v := range got {
		if !strings.HasPrefix(v, "-> ") || strings.Contains(n, "|") {
			t.Errorf("h0_symlink: %s %s", n, v)
		}
	}
}

func TestEntryFields(t *testing.T) {
	r, err := NewReader(bytes.NewReader(testutil.Fixture(t, "jlha-l2-lh7.lzh")), nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "text.txt" || e.Method != "-lh7-" || e.Checksum != verify.CRC16ARC || len(e.ChecksumValue) != 2 ||
		e.ModTime.IsZero() || e.ModTime.After(time.Now()) || e.PackedSize <= 0 || e.PackedSize >= e.Size {
		t.Errorf("entry %+v", e)
	}
}

// TestDetect checks that detection finds every fixture, and an archive
// behind a self-extractor stub.
func TestDetect(t *testing.T) {
	for _, name := range append(jlhaFixtures, "lh1-64k.lzh", "initial.lzs", "h3_subdir.lzh", "h2_lhx.lzh") {
		if f := archive.Detect(testutil.Fixture(t, name), nil, "x"); f != archive.LZH {
			t.Errorf("%s: detected %q", name, f)
		}
	}
	stub := bytes.Repeat([]byte("MZ stub -lh5- not a header "), 3000) // 81 KiB
	data := append(stub, testutil.Fixture(t, "jlha-l0-lh5.lzh")...)
	if f := archive.Detect(data, nil, "x.exe"); f != archive.LZH {
		t.Fatalf("sfx detected %q", f)
	}
	got, err := readAll(data, nil, plain)
	if err != nil || len(got) != 4 {
		t.Fatalf("sfx: %v %v", got, err)
	}
	if _, err := NewReader(bytes.NewReader(stub), nil); !errors.Is(err, ErrNotLZH) {
		t.Errorf("stub alone: %v", err)
	}
	// Other formats are not taken for LHA.
	for _, h := range [][]byte{[]byte("PK\x03\x04-lh5-"), make([]byte, 100), []byte("xx-lh5-xxxxxxxxxxxxxx\x05")} {
		if archive.IsLZHHeader(h) {
			t.Errorf("%q taken for a header", h)
		}
	}
}

// TestTruncated cuts every fixture at many points: each read fails with
// a corrupt-data error or yields only whole entries that verify.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"jlha-l0-lh5.lzh", "jlha-l1-lh6.lzh", "jlha-l2-lh7.lzh", "lh1-64k.lzh", "lz5-64k.lzs", "initial.lzs", "h3_subdir.lzh"} {
		data := testutil.Fixture(t, name)
		full, err := readAll(data, nil, plain)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(data)/97)
		for n := 1; n < len(data)-1; n += step {
			got, err := readAll(data[:n], nil, plain)
			if err != nil {
				if !errors.Is(err, archive.ErrCorrupt) {
					t.Errorf("%s cut at %d: %v is not ErrCorrupt", name, n, err)
				}
				continue
			}
			for k, v := range got {
				if full[k] != v {
					t.Errorf("%s cut at %d: %s read as %q, want %q", name, n, k, v, full[k])
				}
			}
			if len(got) == len(full) {
				t.Errorf("%s cut at %d: read in full", name, n)
			}
		}
	}
}

// TestBitFlips flips bytes all over the fixtures: every read ends in an
// error or in data that matches the original; nothing panics or hangs.
func TestBitFlips(t *testing.T) {
	for _, name := range []string{"jlha-l0-lh5.lzh", "jlha-l2-lh7.lzh", "lh1-64k.lzh", "lz5-64k.lzs", "initial.lzs", "h3_subdir.lzh", "h2_lhx.lzh"} {
		orig := testutil.Fixture(t, name)
		full, _ := readAll(orig, nil, plain)
		step := max(1, len(orig)/211)
		for i := 0; i < len(orig); i += step {
			data := bytes.Clone(orig)
			data[i] ^= 0x10
			got, err := readAll(data, nil, plain)
			if err != nil {
				continue
			}
			for k, v := range got {
				if w, ok := full[k]; ok && w != v && strings.Contains(v, " ") {
					t.Errorf("%s flip at %d: %s read as %q without an error", name, i, k, v)
				}
			}
		}
	}
}

func TestCRCMismatch(t *testing.T) {
	data := testutil.Fixture(t, "jlha-l1-lh0.lzh")
	i := bytes.Index(data, []byte("alpha"))
	data[i] = 'A'
	_, err := readAll(data, nil, plain)
	var m *verify.MismatchError
	if !errors.As(err, &m) || m.Kind != verify.CRC16ARC {
		t.Fatalf("got %v, want a CRC-16/ARC mismatch", err)
	}
}

// TestHeaderChecks breaks a level 0 header's byte sum and a level 2
// header's CRC.
func TestHeaderChecks(t *testing.T) {
	data := testutil.Fixture(t, "jlha-l0-lh5.lzh")
	data[1]++
	if _, err := readAll(data, nil, plain); !errors.Is(err, ErrHeaderSum) {
		t.Errorf("level 0: a wrong byte sum gives %v", err)
	}
	data = testutil.Fixture(t, "jlha-l2-lh7.lzh")
	i := bytes.Index(data, []byte("text.txt"))
	data[i] = 'T'
	if _, err := readAll(data, nil, plain); !errors.Is(err, ErrHeaderCRC) {
		t.Errorf("level 2: %v, want ErrHeaderCRC", err)
	}
}

// level0 returns the first header of the level 0 fixture with method m
// and its byte sum fixed.
func level0(t *testing.T, m string) []byte {
	data := testutil.Fixture(t, "jlha-l0-lh5.lzh")
	copy(data[2:7], m)
	var sum byte
	for _, c := range data[2 : int(data[0])+2] {
		sum += c
	}
	data[1] = sum
	return data
}

func TestUnsupportedAndLimits(t *testing.T) {
	_, err := readAll(level0(t, "-lh2-"), nil, plain)
	if !errors.Is(err, archive.ErrUnsupported) || !testutil.Names(err, "-lh2-") {
		t.Errorf("-lh2-: %v", err)
	}
	_, err = readAll(testutil.Fixture(t, "h2_lhx.lzh"), &archive.Options{MemLimit: 64 << 10}, plain)
	if !errors.Is(err, archive.ErrLimit) {
		t.Errorf("-lhx- under a 64 KiB limit: %v", err)
	}
	// A stored entry whose sizes disagree.
	data := level0(t, "-lh0-")
	if _, err := readAll(data, nil, plain); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("stored with sizes differing: %v", err)
	}
	// Unknown header level.
	data = testutil.Fixture(t, "jlha-l2-lh7.lzh")
	data[20] = 7
	if _, err := readAll(data, nil, plain); !errors.Is(err, ErrLevel) {
		t.Errorf("level 7: %v", err)
	}
}

// TestHugeSizes crafts headers declaring 4 GiB: reading fails without
// allocating by them.
func TestHugeSizes(t *testing.T) {
	data := level0(t, "-lh5-")
	copy(data[11:15], []byte{0xff, 0xff, 0xff, 0xff})
	var sum byte
	for _, c := range data[2 : int(data[0])+2] {
		sum += c
	}
	data[1] = sum
	if _, err := readAll(data, nil, plain); err == nil {
		t.Error("a 4 GiB entry from 5 KiB of data read without an error")
	}
	// A level 3 header claiming a long header.
	h3 := testutil.Fixture(t, "h3_subdir.lzh")
	copy(h3[24:28], []byte{0, 0, 0, 0x40})
	if _, err := readAll(h3, nil, plain); !errors.Is(err, ErrHeader) {
		t.Errorf("1 GiB level 3 header: %v", err)
	}
}

func TestDirectoryMode(t *testing.T) {
	r, err := NewReader(bytes.NewReader(testutil.Fixture(t, "h3_subdir.lzh")), nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Next()
	if err != nil || e.Type != archive.TypeDir || e.Name != "subdir/" || e.Mode != 0o755 {
		t.Fatalf("first entry %+v, %v", e, err)
	}
}

func TestCollapse(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "a/": "a/", "../": "../", "a/../../b/": "a/../../b/", "/x/./y//": "/x/y/", "/../": "/../",
	} {
		if got := tidy(in); got != want {
			t.Errorf("tidy(%q) = %q, want %q", in, got, want)
		}
	}
}

func testdataFile(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }
