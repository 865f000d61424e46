package arj

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

func readAll(data []byte, path string, wrap func(io.Reader) io.Reader) (map[string]string, error) {
	in := &archive.Input{R: wrap(bytes.NewReader(data)), Path: path}
	ar, err := Open(in, nil)
	if err != nil {
		return nil, err
	}
	defer ar.Close()
	return entrytree.Sized(ar)
}

func plain(r io.Reader) io.Reader { return r }

func want(t *testing.T) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(testutil.Fixture(t, "files.txt"))), "\n") {
		f := strings.Fields(line)
		m[f[2]] = f[0] + " " + f[1]
	}
	return m
}

var fixtures = []string{"arj-m0.arj", "arj-m1.arj", "arj-m2.arj", "arj-m3.arj", "arj-m4.arj"}

func TestFixtures(t *testing.T) {
	w := want(t)
	for _, name := range append(fixtures, "vol.arj") {
		for _, wrap := range []func(io.Reader) io.Reader{plain, iotest.OneByteReader, iotest.HalfReader} {
			got, err := readAll(testutil.Fixture(t, name), filepath.Join("testdata", name), wrap)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(got) != len(w) {
				t.Errorf("%s: %d entries, want %d", name, len(got), len(w))
			}
			for n, v := range w {
				if got[n] != v {
					t.Errorf("%s: %s: got %q, want %q", name, n, got[n], v)
				}
			}
		}
	}
}

func TestEntryAndComment(t *testing.T) {
	z, err := NewReader(bytes.NewReader(testutil.Fixture(t, "arj-m1.arj")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if z.Comment() != "an archive comment\n" && z.Comment() != "an archive comment" {
		t.Errorf("comment %q", z.Comment())
	}
	e, err := z.Next()
	if err != nil {
		t.Fatal(err)
	}
	wantTime := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	if e.Name != "text.txt" || e.Method != "arj1" || e.Checksum != verify.CRC32 || len(e.ChecksumValue) != 4 ||
		!e.ModTime.Equal(wantTime) || e.Mode != 0o644 || e.PackedSize >= e.Size {
		t.Errorf("entry %+v", e)
	}
}

// TestVolumes reads the set from its first volume, then without the last
// volume, and from a stream, which cannot open the others.
func TestVolumes(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"vol.arj", "vol.a01", "vol.a02"} {
		if err := os.WriteFile(filepath.Join(dir, v), testutil.Fixture(t, v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := testutil.Fixture(t, "vol.arj")
	_, err := readAll(first, filepath.Join(dir, "vol.arj"), plain)
	if !errors.Is(err, archive.ErrMissingVolume) || !testutil.Names(err, "vol.a03") {
		t.Errorf("without vol.a03: %v", err)
	}
	if _, err := readAll(first, "", plain); !errors.Is(err, archive.ErrMissingVolume) {
		t.Errorf("from a stream: %v", err)
	}
	// A volume that does not continue the file.
	os.WriteFile(filepath.Join(dir, "vol.a03"), testutil.Fixture(t, "vol.a01"), 0o644)
	if _, err := readAll(first, filepath.Join(dir, "vol.arj"), plain); !errors.Is(err, ErrVolume) {
		t.Errorf("wrong continuation: %v", err)
	}
	if got := volumeName("/x/A.ARJ", 2); got != "/x/A.A02" {
		t.Errorf("volumeName upper: %s", got)
	}
	if got := volumeName("a.arj", 120); got != "a.120" {
		t.Errorf("volumeName 120: %s", got)
	}
}

// TestSkipUnread skips entries (and the parts of a spanning file)
// without reading them.
func TestSkipUnread(t *testing.T) {
	for _, name := range append(fixtures, "vol.arj") {
		in := &archive.Input{R: bytes.NewReader(testutil.Fixture(t, name)), Path: filepath.Join("testdata", name)}
		ar, err := Open(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			_, err := ar.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			n++
		}
		ar.Close()
		if n != 4 {
			t.Errorf("%s: %d entries", name, n)
		}
	}
}

func TestDirectory(t *testing.T) {
	z, err := NewReader(bytes.NewReader(testutil.Fixture(t, "dir.arj")), nil)
	if err != nil {
		t.Fatal(err)
	}
	var dir *archive.Entry
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == archive.TypeDir {
			dir = e
		}
	}
	if dir == nil || dir.Name != "sub" || dir.Mode != 0o755 {
		t.Fatalf("directory entry %+v", dir)
	}
}

func TestGarbled(t *testing.T) {
	_, err := readAll(testutil.Fixture(t, "garbled.arj"), "", plain)
	if !errors.Is(err, archive.ErrUnsupported) || !testutil.Names(err, "garbled") {
		t.Errorf("garbled: %v", err)
	}
}

func TestDetectAndStub(t *testing.T) {
	for _, name := range append(fixtures, "vol.arj", "vol.a01") {
		if f := archive.Detect(testutil.Fixture(t, name), nil, "x"); f != archive.ARJ {
			t.Errorf("%s: detected %q", name, f)
		}
	}
	stub := bytes.Repeat([]byte("MZ\x60\xea stub "), 2000)
	data := append(stub, testutil.Fixture(t, "arj-m4.arj")...)
	if f := archive.Detect(data, nil, "x.exe"); f != archive.ARJ {
		t.Errorf("sfx detected %q", f)
	}
	if got, err := readAll(data, "", plain); err != nil || len(got) != 4 {
		t.Errorf("sfx: %v %v", got, err)
	}
	if _, err := NewReader(bytes.NewReader(stub), nil); !errors.Is(err, ErrNotARJ) {
		t.Errorf("stub alone: %v", err)
	}
}

func TestCorruption(t *testing.T) {
	// A flipped data byte of a stored file: CRC-32 mismatch.
	data := testutil.Fixture(t, "arj-m0.arj")
	i := bytes.Index(data, []byte("robert"))
	data[i] = 'R'
	var m *verify.MismatchError
	if _, err := readAll(data, "", plain); !errors.As(err, &m) || m.Kind != verify.CRC32 {
		t.Errorf("data flip: %v", err)
	}
	// A flipped byte in a file header: header CRC mismatch.
	data = testutil.Fixture(t, "arj-m1.arj")
	i = bytes.Index(data, []byte("text.txt"))
	data[i] = 'T'
	if _, err := readAll(data, "", plain); !errors.Is(err, ErrHeaderCRC) {
		t.Errorf("header flip: %v", err)
	}
	// A basic header size over 2600.
	data = testutil.Fixture(t, "arj-m1.arj")
	j := bytes.Index(data[4:], []byte{0x60, 0xEA}) + 4
	data[j+2], data[j+3] = 0xff, 0xff
	if _, err := readAll(data, "", plain); !errors.Is(err, ErrHeader) {
		t.Errorf("huge header: %v", err)
	}
}

func TestTruncated(t *testing.T) {
	for _, name := range fixtures {
		data := testutil.Fixture(t, name)
		full, _ := readAll(data, "", plain)
		step := max(1, len(data)/89)
		for n := 1; n < len(data)-4; n += step {
			got, err := readAll(data[:n], "", plain)
			if err == nil {
				t.Errorf("%s cut at %d: no error (%d entries)", name, n, len(got))
				continue
			}
			if !errors.Is(err, archive.ErrCorrupt) {
				t.Errorf("%s cut at %d: %v is not ErrCorrupt", name, n, err)
			}
			for k, v := range got {
				if full[k] != v {
					t.Errorf("%s cut at %d: %s read as %q", name, n, k, v)
				}
			}
		}
	}
}

func TestBitFlips(t *testing.T) {
	for _, name := range fixtures {
		orig := testutil.Fixture(t, name)
		full, _ := readAll(orig, "", plain)
		step := max(1, len(orig)/157)
		for i := 0; i < len(orig); i += step {
			data := bytes.Clone(orig)
			data[i] ^= 0x04
			got, err := readAll(data, "", plain)
			if err != nil {
				continue
			}
			for k, v := range got {
				if w, ok := full[k]; ok && w != v {
					t.Errorf("%s flip at %d: %s read as %q without an error", name, i, k, v)
				}
			}
		}
	}
}

func TestMethodUnknown(t *testing.T) {
	data := testutil.Fixture(t, "arj-m1.arj")
	// The second header (text.txt): set method 7 and fix its CRC.
	j := bytes.Index(data[4:], []byte{0x60, 0xEA}) + 4
	n := int(data[j+2]) | int(data[j+3])<<8
	data[j+4+5] = 7
	crc := verify.UpdateCRC32(0, data[j+4:j+4+n])
	data[j+4+n], data[j+5+n], data[j+6+n], data[j+7+n] = byte(crc), byte(crc>>8), byte(crc>>16), byte(crc>>24)
	if _, err := readAll(data, "", plain); !errors.Is(err, archive.ErrUnsupported) {
		t.Errorf("method 7: %v", err)
	}
}
