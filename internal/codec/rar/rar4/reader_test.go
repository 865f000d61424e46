package rar4

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// testFile is one stored entry of a synthetic archive.
type testFile struct {
	name string
	data []byte
	dir  bool
}

// block returns a header block with its CRC.
func block(typ byte, flags uint16, body []byte) []byte {
	h := make([]byte, 7, 7+len(body))
	h[2] = typ
	binary.LittleEndian.PutUint16(h[3:], flags)
	binary.LittleEndian.PutUint16(h[5:], uint16(7+len(body)))
	h = append(h, body...)
	binary.LittleEndian.PutUint16(h, uint16(crc32.ChecksumIEEE(h[2:])))
	return h
}

// buildArchive writes a RAR 2.9 archive of stored entries, as WinRAR would
// lay it out, for tests that need exact control of the bytes.
func buildArchive(files []testFile) []byte {
	out := append([]byte(nil), marker...)
	out = append(out, block(blockMain, 0, make([]byte, 6))...)
	for _, f := range files {
		body := make([]byte, 25)
		flags := uint16(flagLong)
		attr := uint32(0x20)
		if f.dir {
			flags |= fileDictMask
			attr = 0x10
		}
		le := binary.LittleEndian
		le.PutUint32(body, uint32(len(f.data)))
		le.PutUint32(body[4:], uint32(len(f.data)))
		body[8] = hostWin32
		le.PutUint32(body[9:], crc32.ChecksumIEEE(f.data))
		le.PutUint32(body[13:], 0x5b7e6c21)
		body[17], body[18] = 29, 0x30
		le.PutUint16(body[19:], uint16(len(f.name)))
		le.PutUint32(body[21:], attr)
		body = append(body, f.name...)
		out = append(out, block(blockFile, flags, body)...)
		out = append(out, f.data...)
	}
	return append(out, block(blockEnd, 0, nil)...)
}

var synthFiles = []testFile{
	{name: "dir", dir: true},
	{name: `dir\a.txt`, data: []byte("hello, world\n")},
	{name: "empty"},
	{name: "b.bin", data: bytes.Repeat([]byte{0, 1, 2, 3, 250}, 999)},
}

func openBytes(data []byte, opt *archive.Options) (archive.Reader, error) {
	return Open(&archive.Input{R: bytes.NewReader(data), Size: int64(len(data))}, opt, 0)
}

func TestSynthetic(t *testing.T) {
	data := buildArchive(synthFiles)
	wrap := map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
	}
	for name, w := range wrap {
		t.Run(name, func(t *testing.T) {
			r, err := Open(&archive.Input{R: w(bytes.NewReader(data)), Size: -1}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for _, f := range synthFiles {
				e, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				wantName := filepath.ToSlash(string(bytes.ReplaceAll([]byte(f.name), []byte(`\`), []byte("/"))))
				if e.Name != wantName {
					t.Errorf("name %q, want %q", e.Name, wantName)
				}
				if f.dir {
					if e.Type != archive.TypeDir {
						t.Errorf("%s: type %v", e.Name, e.Type)
					}
					continue
				}
				got, err := io.ReadAll(iotest.OneByteReader(r))
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				if !bytes.Equal(got, f.data) {
					t.Errorf("%s: wrong data", e.Name)
				}
				if e.Checksum != verify.CRC32 || binary.BigEndian.Uint32(e.ChecksumValue) != crc32.ChecksumIEEE(f.data) {
					t.Errorf("%s: checksum %v %x", e.Name, e.Checksum, e.ChecksumValue)
				}
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("end: %v", err)
			}
		})
	}
}

// TestSyntheticDamage: a flipped data byte is a checksum mismatch for
// that entry only; a flipped header byte is a header CRC error.
func TestSyntheticDamage(t *testing.T) {
	data := buildArchive(synthFiles)
	i := bytes.Index(data, []byte("hello"))
	bad := append([]byte(nil), data...)
	bad[i] ^= 1
	r, err := openBytes(bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Next()
	e, _ := r.Next()
	_, err = io.Copy(io.Discard, r)
	var mm *verify.MismatchError
	if !errors.As(err, &mm) || !errors.Is(err, verify.ErrChecksum) {
		t.Fatalf("%s: got %v, want a CRC32 mismatch", e.Name, err)
	}
	if e, err := r.Next(); err != nil || e.Name != "empty" {
		t.Fatalf("entry after a bad one: %v %v", e, err)
	}

	bad = append([]byte(nil), data...)
	bad[i-3] ^= 1 // inside the file name
	r, _ = openBytes(bad, nil)
	r.Next()
	if _, err := r.Next(); !errors.Is(err, archive.ErrCorrupt) {
		t.Fatalf("damaged header: %v", err)
	}
}

// TestTruncated cuts archives everywhere: every cut must end in an error
// (or a clean end before the first entry header), never a panic or hang.
func TestTruncated(t *testing.T) {
	data := buildArchive(synthFiles)
	for cut := 0; cut < len(data)-len(block(blockEnd, 0, nil)); cut++ {
		if err := readAllErr(data[:cut]); err == nil {
			t.Fatalf("cut at %d of %d: no error", cut, len(data))
		}
	}
}

func readAllErr(data []byte) error {
	r, err := openBytes(data, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			if n < len(synthFiles) {
				return io.ErrUnexpectedEOF
			}
			return nil
		}
		if err != nil {
			return err
		}
		n++
		if _, err := io.Copy(io.Discard, r); err != nil {
			return err
		}
	}
}

func TestNextVolumeName(t *testing.T) {
	tests := []struct {
		in   string
		new  bool
		want string
	}{
		{"a.part1.rar", true, "a.part2.rar"},
		{"a.part09.rar", true, "a.part10.rar"},
		{"a.part99.rar", true, "a.part100.rar"},
		{"dir/x.part001.rar", true, "dir/x.part002.rar"},
		{"a.rar", false, "a.r00"},
		{"A.RAR", false, "A.R00"},
		{"a.r00", false, "a.r01"},
		{"a.r09", false, "a.r10"},
		{"a.r99", false, "a.s00"},
		{"a.rar", true, "a.r00"}, // no digits: old style
		{"a.part1.exe", true, "a.part2.rar"},
		{"a.exe", false, "a.r00"},
	}
	for _, tt := range tests {
		if got := nextVolumeName(tt.in, tt.new); got != tt.want {
			t.Errorf("nextVolumeName(%q, %v) = %q, want %q", tt.in, tt.new, got, tt.want)
		}
	}
}

func TestDecodeName(t *testing.T) {
	tests := []struct {
		raw  []byte
		want string
	}{
		{[]byte("plain"), "plain"},
		{append([]byte("ab\x00"), 0x04, 0x00, 'a', 'b'), "ab"},
		{append([]byte("xy\x00"), 0x04, 0x50, 0x30, 0x31), "аб"},              // two high-byte ops
		{append([]byte("abcd\x00"), 0x00, 0xc0, 0x02), "abcd"},                // copy 4 from the OEM name
		{append([]byte("q\x00"), 0x00, 0x80, 0x3a, 0x26), "\u263a"},           // one full UTF-16 unit
		{append([]byte("ab\x00"), 0x00, 0xc0), "ab"},                          // truncated: OEM name
		{append([]byte("a\x00"), 0x00, 0xc0, 0x85, 0x01), "b"},                // copy with correction
		{append([]byte("a\x00"), 0x00, 0x40), "a"},                            // flags only
		{append([]byte("ab\x00"), 0x00, 0x80, 0x41), "ab"},                    // short UTF-16 unit
		{append([]byte("\x82t\x82\x00"), 0x00, 0x00, 0xe9, 't', 0xe9), "été"}, // Latin-1 code units
		{[]byte("caf\x82 \x9c"), "café £"},                                    // code page 437
	}
	for _, tt := range tests {
		if got := decodeName(tt.raw); got != tt.want {
			t.Errorf("decodeName(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

func TestExtTime(t *testing.T) {
	base := dosTime(0x5b7e6c21)
	// mtime present, +1 s, 2 extra bytes (0x1234 <<8 = 100 ns units)
	m, a := extTime([]byte{0x00, 0xe0 | 0x00, 0x34, 0x12}, base)
	_ = a
	want := base.Add(time.Second).Add(time.Duration(0x123400) * 100)
	if !m.Equal(want) {
		t.Errorf("mtime %v, want %v", m, want)
	}
	if m2, _ := extTime(nil, base); !m2.Equal(base) {
		t.Errorf("no ext time: %v", m2)
	}
}

// corpusData returns a corpus archive's bytes, skipping when absent.
func corpusData(t testing.TB, rel string) (string, []byte) {
	t.Helper()
	p := filepath.Join(testutil.CorpusDir(t), rel)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Skip(err)
	}
	return p, data
}

// corpusSums reads all regular files of an archive: name → sha256.
func corpusSums(t testing.TB, path string, data []byte, wrap func(io.Reader) io.Reader, opt *archive.Options) (map[string]string, error) {
	t.Helper()
	off := bytes.Index(data, marker)
	if off < 0 {
		return nil, archive.ErrNotArchive
	}
	in := &archive.Input{R: wrap(bytes.NewReader(data[off:])), Size: -1, Path: path}
	r, err := Open(in, opt, int64(off))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sums := map[string]string{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return sums, nil
		}
		if err != nil {
			return sums, err
		}
		h := sha256.New()
		if _, err := io.Copy(h, wrap(r)); err != nil {
			return sums, err
		}
		if e.Type == archive.TypeFile {
			sums[e.Name] = hex.EncodeToString(h.Sum(nil))
		}
	}
}

var corpusReaders = []string{
	"files/sharpcompress/tests/TestArchives/Archives/Rar.rar",
	"files/sharpcompress/tests/TestArchives/Archives/Rar.solid.rar",
	"files/sharpcompress/tests/TestArchives/Archives/Rar2.rar",
	"files/sharpcompress/tests/TestArchives/Archives/Rar.encrypted_filesAndHeader.rar",
	"files/rarfile/test/files/unicode.rar",
	"files/rarfile/test/files/rar3-solid.rar",
}

// TestCorpusReaders reads corpus archives through one-byte and half
// readers (for the input and the output) and compares with plain reads.
func TestCorpusReaders(t *testing.T) {
	for _, rel := range corpusReaders {
		p, data := corpusData(t, rel)
		opt := &archive.Options{Passwords: []string{"test"}}
		want, err := corpusSums(t, p, data, func(r io.Reader) io.Reader { return r }, opt)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for name, w := range map[string]func(io.Reader) io.Reader{"onebyte": iotest.OneByteReader, "half": iotest.HalfReader} {
			got, err := corpusSums(t, p, data, w, opt)
			if err != nil {
				t.Fatalf("%s/%s: %v", rel, name, err)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s/%s: %s differs", rel, name, k)
				}
			}
		}
	}
}

// TestCorpusDamage truncates and flips bytes of compressed corpus
// archives: reading must end in an error of a known category, in time.
func TestCorpusDamage(t *testing.T) {
	for _, rel := range corpusReaders {
		p, data := corpusData(t, rel)
		opt := &archive.Options{Passwords: []string{"test"}}
		check := func(what string, d []byte) {
			done := make(chan error, 1)
			go func() {
				defer func() {
					if x := recover(); x != nil {
						done <- errors.New("panic")
					}
				}()
				_, err := corpusSums(t, p, d, func(r io.Reader) io.Reader { return r }, opt)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					return // a flip in unused bytes (padding, unchecked fields)
				}
				if err.Error() == "panic" {
					t.Fatalf("%s %s: panic", rel, what)
				}
				if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, verify.ErrChecksum) && !errors.Is(err, archive.ErrNotArchive) &&
					!errors.Is(err, archive.ErrPassword) && !errors.Is(err, archive.ErrUnsupported) {
					t.Errorf("%s %s: uncategorised error %v", rel, what, err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%s %s: hang", rel, what)
			}
		}
		step := len(data)/40 + 1
		for cut := 1; cut < len(data); cut += step {
			check("cut", data[:cut])
		}
		for i := 0; i < len(data); i += step {
			d := append([]byte(nil), data...)
			d[i] ^= 0x10
			check("flip", d)
		}
	}
}

// TestWrongPassword: with encrypted headers a wrong password is
// ErrPassword; with encrypted data only it is ErrPassword too, through
// the CRC; none at all is ErrNeedPassword.
func TestWrongPassword(t *testing.T) {
	for _, rel := range []string{
		"files/sharpcompress/tests/TestArchives/Archives/Rar.encrypted_filesAndHeader.rar",
		"files/sharpcompress/tests/TestArchives/Archives/Rar.encrypted_filesOnly.rar",
	} {
		p, data := corpusData(t, rel)
		_, err := corpusSums(t, p, data, func(r io.Reader) io.Reader { return r }, &archive.Options{Passwords: []string{"wrong"}})
		if !errors.Is(err, archive.ErrPassword) {
			t.Errorf("%s: wrong password gave %v", rel, err)
		}
		_, err = corpusSums(t, p, data, func(r io.Reader) io.Reader { return r }, &archive.Options{})
		if !errors.Is(err, archive.ErrNeedPassword) {
			t.Errorf("%s: no password gave %v", rel, err)
		}
	}
}

// TestMemLimit: a limit below the window is ErrLimit before allocating.
func TestMemLimit(t *testing.T) {
	p, data := corpusData(t, "files/sharpcompress/tests/TestArchives/Archives/Rar.rar")
	_, err := corpusSums(t, p, data, func(r io.Reader) io.Reader { return r }, &archive.Options{MemLimit: 512 << 10})
	if !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
}

// TestMissingVolume: a set whose later volume is absent fails with
// ErrMissingVolume.
func TestMissingVolume(t *testing.T) {
	p, data := corpusData(t, "files/rarfile/test/files/rar3-vols.part1.rar")
	dir := t.TempDir()
	q := filepath.Join(dir, filepath.Base(p))
	if err := os.WriteFile(q, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := corpusSums(t, q, data, func(r io.Reader) io.Reader { return r }, nil)
	if !errors.Is(err, archive.ErrMissingVolume) {
		t.Fatalf("got %v, want ErrMissingVolume", err)
	}
}

// TestComments checks archive and old-style file comments against the
// rarfile project's expected listings.
func TestComments(t *testing.T) {
	tests := []struct {
		rel, pass, archive, file1 string
	}{
		{"files/rarfile/test/files/rar3-comment-plain.rar", "", "RARcomment\n", ""},
		{"files/rarfile/test/files/rar3-comment-psw.rar", "password", "RARcomment\n", ""},
		{"files/rarfile/test/files/rar3-comment-hpsw.rar", "password", "RARcomment\n", ""},
		{"files/rarfile/test/files/rar202-comment-nopsw.rar", "", "RARcomment", "file1comment"},
		{"files/rarfile/test/files/rar202-comment-psw.rar", "password", "RARcomment", "file1comment"},
		{"files/rarfile/test/files/rar15-comment.rar", "", "RARcomment -----", "file1comment -----"},
	}
	for _, tt := range tests {
		_, data := corpusData(t, tt.rel)
		opt := &archive.Options{}
		if tt.pass != "" {
			opt.Passwords = []string{"wrong", tt.pass}
		}
		r, err := openBytes(data, opt)
		if err != nil {
			t.Fatalf("%s: %v", tt.rel, err)
		}
		if got := r.(archive.Commenter).Comment(); got != tt.archive {
			t.Errorf("%s: archive comment %q, want %q", tt.rel, got, tt.archive)
		}
		e, err := r.Next()
		if err != nil {
			t.Fatalf("%s: %v", tt.rel, err)
		}
		if e.Comment != tt.file1 {
			t.Errorf("%s: file comment %q, want %q", tt.rel, e.Comment, tt.file1)
		}
		r.Close()
	}
}

// TestSolidSkip skips entries of solid archives without reading them:
// the entries after must still decode (the skipped data is decoded).
func TestSolidSkip(t *testing.T) {
	for _, rel := range []string{
		"files/sharpcompress/tests/TestArchives/Archives/Rar.solid.rar",
		"files/rarfile/test/files/rar3-solid.rar",
		"files/rarfile/test/files/unicode.rar",
	} {
		p, data := corpusData(t, rel)
		want, err := corpusSums(t, p, data, func(r io.Reader) io.Reader { return r }, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := openBytes(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			if i++; i%2 == 1 || e.Type != archive.TypeFile {
				continue // skipped unread
			}
			h := sha256.New()
			if _, err := io.Copy(h, r); err != nil {
				t.Fatalf("%s: %s: %v", rel, e.Name, err)
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != want[e.Name] {
				t.Errorf("%s: %s differs after skipping", rel, e.Name)
			}
		}
		r.Close()
	}
}

// TestRandomAccess opens the entries of non-solid archives independently
// and concurrently and compares them with a sequential read; solid and
// multi-volume archives decline.
func TestRandomAccess(t *testing.T) {
	for _, c := range []struct {
		rel, pass string
		ok        bool
	}{
		{"files/sharpcompress/tests/TestArchives/Archives/Rar.rar", "", true},
		{"files/sharpcompress/tests/TestArchives/Archives/Rar2.rar", "", true},
		{"files/sharpcompress/tests/TestArchives/Archives/Rar15.rar", "", true},
		{"files/sharpcompress/tests/TestArchives/Archives/Rar.encrypted_filesOnly.rar", "test", true},
		{"files/sharpcompress/tests/TestArchives/Archives/Rar.jpeg.jpg", "", true},
		{"files/sharpcompress/tests/TestArchives/Archives/Rar.solid.rar", "", false},
		{"files/sharpcompress/tests/TestArchives/Archives/Rar.encrypted_filesAndHeader.rar", "test", false},
		{"files/rarfile/test/files/rar3-vols.part1.rar", "", false},
	} {
		p, data := corpusData(t, c.rel)
		opt := &archive.Options{Passwords: []string{c.pass}}
		want, err := corpusSums(t, p, data, func(r io.Reader) io.Reader { return r }, opt)
		if err != nil {
			t.Fatal(err)
		}
		off := bytes.Index(data, marker)
		in := &archive.Input{R: bytes.NewReader(data[off:]), RA: bytes.NewReader(data), Size: int64(len(data)), Path: p}
		r, err := Open(in, opt, int64(off))
		if err != nil {
			t.Fatal(err)
		}
		ra := r.(archive.RandomAccess)
		entries, err := ra.Entries()
		if !c.ok {
			if err == nil {
				t.Errorf("%s: Entries succeeded", c.rel)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.rel, err)
		}
		got := make([]string, len(entries))
		errs := make([]error, len(entries))
		var wg sync.WaitGroup
		for i := range entries {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rc, err := ra.Open(i)
				if err != nil {
					errs[i] = err
					return
				}
				defer rc.Close()
				h := sha256.New()
				_, errs[i] = io.Copy(h, rc)
				got[i] = hex.EncodeToString(h.Sum(nil))
			}()
		}
		wg.Wait()
		n := 0
		for i, e := range entries {
			if e.Type != archive.TypeFile {
				continue
			}
			n++
			if errs[i] != nil || got[i] != want[e.Name] {
				t.Errorf("%s: %s: %v (sum matches: %v)", c.rel, e.Name, errs[i], got[i] == want[e.Name])
			}
		}
		if n != len(want) {
			t.Errorf("%s: %d files, want %d", c.rel, n, len(want))
		}
		r.Close()
	}
}

func TestCP437(t *testing.T) {
	if len(cp437Runes) != 128 {
		t.Fatalf("code page table has %d entries", len(cp437Runes))
	}
}

// patternData returns n bytes of deterministic, mildly compressible data.
func patternData(n int, seed uint32) []byte {
	b := make([]byte, n)
	x := seed | 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x%23) + 'a'
	}
	return b
}
