package zip

import (
	stdzip "archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// srcSums reads testdata/src.sha256: the files every fixture holds.
func srcSums(t testing.TB) map[string]string {
	data, err := os.ReadFile("testdata/src.sha256")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		m[line[66:]] = line[:64]
	}
	return m
}

// fixtures are made by scripts/testdata/zip.sh.
var fixtures = []struct {
	file     string
	password string
	link     bool   // holds the symlink "link" -> "hello.txt"
	only     string // holds only this file of the source set
	noStream bool   // a set of files: not for streaming
	err      error  // what reading gives instead of success
}{
	{file: "infozip-deflate.zip", link: true},
	{file: "infozip-store.zip", link: true},
	{file: "infozip-zipcrypto.zip", password: "secret"},
	{file: "infozip-zip64.zip"},
	{file: "infozip-pipe.zip"},
	{file: "infozip-zipcrypto-pipe.zip", password: "secret"},
	{file: "7zip-aes256-pipe.zip", password: "secret"},
	{file: "infozip-split.zip", only: "hello.txt", noStream: true},
	{file: "infozip-split.z01", only: "hello.txt", noStream: true},
	{file: "7zip-deflate.zip"},
	{file: "7zip-deflate64.zip"},
	{file: "7zip-bzip2.zip"},
	{file: "7zip-lzma.zip"},
	{file: "7zip-ppmd.zip"},
	{file: "7zip-aes256.zip", password: "secret"},
	{file: "7zip-aes128-lzma.zip", password: "secret"},
	{file: "7zip-zipcrypto.zip", password: "secret"},
	{file: "7zip-split.zip.001", only: "hello.txt", noStream: true},
	{file: "7zip-split.zip.002", only: "hello.txt", noStream: true},
	{file: "go-dd.zip"},
	{file: "go-prefix.zip"},
}

func fixtureOptions(pw string) *archive.Options {
	o := &archive.Options{}
	if pw != "" {
		o.Passwords = []string{pw}
	}
	return o
}

// readAllVia reads every entry, passing the data through wrap.
func readAllVia(r archive.Reader, wrap func(io.Reader) io.Reader) (*extracted, error) {
	x := &extracted{files: map[string]string{}, links: map[string]string{}}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return x, nil
		}
		if err != nil {
			return x, err
		}
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			if _, err := io.Copy(h, wrap(r)); err != nil {
				return x, err
			}
			x.files[e.Name] = hex.EncodeToString(h.Sum(nil))
		case archive.TypeSymlink:
			x.links[e.Name] = e.Linkname
		}
	}
}

func TestFixtures(t *testing.T) {
	sums := srcSums(t)
	wraps := map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
	}
	for _, fx := range fixtures {
		for _, stream := range []bool{false, true} {
			for wname, wrap := range wraps {
				name := fx.file + "/" + wname
				if stream && fx.noStream {
					continue
				}
				if stream {
					name += "/stream"
				}
				t.Run(name, func(t *testing.T) {
					path := filepath.Join("testdata", fx.file)
					f, err := os.Open(path)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					st, _ := f.Stat()
					in := &archive.Input{R: bufio.NewReader(f), RA: f, Size: st.Size(), Path: path, Name: fx.file}
					if stream {
						in = &archive.Input{R: wrap(f), Size: -1, Name: fx.file}
					}
					wantErr := fx.err
					r, err := Open(in, fixtureOptions(fx.password))
					var x *extracted
					if err == nil {
						defer r.Close()
						x, err = readAllVia(r, wrap)
					}
					if wantErr != nil {
						if !errors.Is(err, wantErr) {
							t.Fatalf("got %v, want %v", err, wantErr)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					for file, sum := range sums {
						if fx.only != "" && file != fx.only {
							continue
						}
						if x.files[file] != sum {
							t.Errorf("%s: sha256 %s, want %s", file, x.files[file], sum)
						}
					}
					if fx.link && !stream && x.links["link"] != "hello.txt" {
						t.Errorf("link -> %q, want hello.txt", x.links["link"])
					}
				})
			}
		}
	}
}

func openBytes(b []byte, opt *archive.Options) (archive.Reader, error) {
	return Open(&archive.Input{R: bytes.NewReader(b), RA: bytes.NewReader(b), Size: int64(len(b)), Name: "mem"}, opt)
}

func readFixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPasswords(t *testing.T) {
	for _, file := range []string{"infozip-zipcrypto.zip", "7zip-zipcrypto.zip", "7zip-aes256.zip", "7zip-aes128-lzma.zip"} {
		for _, tc := range []struct {
			opt  *archive.Options
			want error
		}{
			{&archive.Options{}, archive.ErrNeedPassword},
			{&archive.Options{Passwords: []string{"wrong"}}, archive.ErrPassword},
			{&archive.Options{Passwords: []string{"wrong", "secret"}}, nil},
			{&archive.Options{PasswordFunc: func() (string, error) { return "secret", nil }}, nil},
		} {
			r, err := openBytes(readFixture(t, file), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			_, err = readAllVia(r, func(r io.Reader) io.Reader { return r })
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("%s: %v: got %v, want %v", file, tc.opt.Passwords, err, tc.want)
			}
		}
	}
}

func TestUnsupportedNamesMethod(t *testing.T) {
	// 7zip-deflate.zip with every method field (local headers @8, central
	// headers @10) set to 97, a number no reader supports.
	b := readFixture(t, "7zip-deflate.zip")
	for i := 0; i+4 <= len(b); i++ {
		switch string(b[i : i+4]) {
		case "PK\x03\x04":
			binary.LittleEndian.PutUint16(b[i+8:], 97)
		case "PK\x01\x02":
			binary.LittleEndian.PutUint16(b[i+10:], 97)
		}
	}
	r, err := openBytes(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readAllVia(r, func(r io.Reader) io.Reader { return r })
	var me *archive.MethodError
	if !errors.Is(err, archive.ErrUnsupported) || !errors.As(err, &me) || me.Method != "97" {
		t.Fatalf("got %v", err)
	}
}

// TestEntryMetadata checks names, types, modes, times and checksums.
func TestEntryMetadata(t *testing.T) {
	r, err := openBytes(readFixture(t, "infozip-deflate.zip"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*archive.Entry{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name] = e
	}
	if e := got["dir/"]; e == nil || e.Type != archive.TypeDir || e.Mode != 0o755 {
		t.Errorf("dir/: %+v", e)
	}
	if e := got["link"]; e == nil || e.Type != archive.TypeSymlink || e.Linkname != "hello.txt" {
		t.Errorf("link: %+v", e)
	}
	e := got["hello.txt"]
	if e == nil || e.Type != archive.TypeFile || e.Mode != 0o644 || e.Size != 13 || e.Method != "store" && e.Method != "deflate" {
		t.Fatalf("hello.txt: %+v", e)
	}
	if e.ModTime.UTC().Format("2006-01-02") != "2024-05-06" {
		t.Errorf("hello.txt: mtime %v", e.ModTime)
	}
	if e.Checksum != verify.CRC32 || hex.EncodeToString(e.ChecksumValue) != "c59ef6a5" && len(e.ChecksumValue) != 4 {
		t.Errorf("hello.txt: checksum %v %x", e.Checksum, e.ChecksumValue)
	}
}

// TestCorruption flips and truncates fixtures: every outcome is an error
// of a category (or, for flips in unused bytes, success), never a panic.
func TestCorruption(t *testing.T) {
	for _, file := range []string{"infozip-deflate.zip", "infozip-store.zip", "7zip-deflate64.zip", "7zip-aes256.zip", "go-dd.zip", "infozip-pipe.zip"} {
		orig := readFixture(t, file)
		check := func(what string, b []byte, stream bool) {
			var r archive.Reader
			var err error
			if stream {
				r = NewStreamReader(bytes.NewReader(b), fixtureOptions("secret"))
			} else {
				r, err = openBytes(b, fixtureOptions("secret"))
			}
			if err == nil {
				_, err = readAllVia(r, func(r io.Reader) io.Reader { return r })
			}
			if err != nil && !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrChecksum) && !errors.Is(err, archive.ErrUnsupported) &&
				!errors.Is(err, archive.ErrPassword) && !errors.Is(err, archive.ErrLimit) {
				t.Errorf("%s %s (stream %v): uncategorised error %v", file, what, stream, err)
			}
		}
		for _, stream := range []bool{false, true} {
			for n := 0; n < len(orig); n += 1 + len(orig)/97 {
				check("truncated", orig[:n], stream)
				b := bytes.Clone(orig)
				b[n] ^= 0x55
				check("flipped", b, stream)
			}
		}
	}
}

// TestCRCMismatch flips a byte of stored data: the entry fails with a
// *verify.MismatchError and the next entry still reads.
func TestCRCMismatch(t *testing.T) {
	b := readFixture(t, "infozip-store.zip")
	i := bytes.Index(b, []byte("hello, world"))
	if i < 0 {
		t.Fatal("no stored hello.txt")
	}
	b[i] ^= 1
	r, err := openBytes(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mismatches, good int
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(io.Discard, r)
		var me *verify.MismatchError
		switch {
		case errors.As(err, &me) && e.Name == "hello.txt" && errors.Is(err, archive.ErrChecksum):
			mismatches++
		case err == nil:
			good++
		default:
			t.Errorf("%s: %v", e.Name, err)
		}
	}
	if mismatches != 1 || good < 3 {
		t.Errorf("%d mismatches, %d good", mismatches, good)
	}
}

// localOffsets returns the local header offsets of a single-file archive.
func localOffsets(t *testing.T, b []byte) []int {
	var offs []int
	for i := 0; i+4 <= len(b); i++ {
		if binary.LittleEndian.Uint32(b[i:]) == sigLocal {
			offs = append(offs, i)
		}
	}
	return offs
}

func TestHeaderMismatch(t *testing.T) {
	b := readFixture(t, "infozip-store.zip")
	off := localOffsets(t, b)[0]
	b[off+localLen] ^= 0x20 // change the first letter's case in the local name
	r, err := openBytes(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readAllVia(r, func(r io.Reader) io.Reader { return r })
	if !errors.Is(err, ErrHeaderMismatch) || !errors.Is(err, archive.ErrCorrupt) {
		t.Fatalf("got %v, want ErrHeaderMismatch", err)
	}
}

// TestOverlap makes the first entry's stored size reach into the second,
// in the central directory and the local header alike.
func TestOverlap(t *testing.T) {
	b := readFixture(t, "infozip-store.zip")
	loc := localOffsets(t, b)[0]
	cd := bytes.Index(b, []byte("PK\x01\x02"))
	grow := func(at int) {
		binary.LittleEndian.PutUint32(b[at:], binary.LittleEndian.Uint32(b[at:])+100)
	}
	grow(loc + 18)
	grow(loc + 22)
	grow(cd + 20)
	grow(cd + 24)
	_, err := openBytes(b, nil)
	if !errors.Is(err, ErrOverlap) {
		t.Fatalf("got %v, want ErrOverlap", err)
	}
}

// TestRandomAccess reads every entry with Open from several goroutines and
// compares with the sequential run.
func TestRandomAccess(t *testing.T) {
	for _, fx := range fixtures {
		if fx.err != nil {
			continue
		}
		path := filepath.Join("testdata", fx.file)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		in := &archive.Input{R: f, RA: f, Size: st.Size(), Path: path, Name: fx.file}
		r, err := Open(in, fixtureOptions(fx.password))
		if err != nil {
			t.Fatal(err)
		}
		seq, err := readAllVia(r, func(r io.Reader) io.Reader { return r })
		if err != nil {
			t.Fatal(err)
		}
		ra := r.(archive.RandomAccess)
		entries, err := ra.Entries()
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		par := map[string]string{}
		var wg sync.WaitGroup
		for k := 0; k < 4; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, e := range entries {
					if e.Type != archive.TypeFile {
						continue
					}
					rc, err := ra.Open(i)
					if err != nil {
						t.Error(err)
						return
					}
					h := sha256.New()
					_, err = io.Copy(h, rc)
					rc.Close()
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if prev, ok := par[e.Name]; ok && prev != hex.EncodeToString(h.Sum(nil)) {
						t.Errorf("%s: %s differs between goroutines", fx.file, e.Name)
					}
					par[e.Name] = hex.EncodeToString(h.Sum(nil))
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		for name, sum := range seq.files {
			if par[name] != sum {
				t.Errorf("%s: %s: random access differs from sequential", fx.file, name)
			}
		}
		r.Close()
		f.Close()
	}
}

func TestMemLimit(t *testing.T) {
	r, err := openBytes(readFixture(t, "7zip-lzma.zip"), &archive.Options{MemLimit: 4096})
	if err == nil {
		_, err = readAllVia(r, func(r io.Reader) io.Reader { return r })
	}
	if !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
}

// TestPPMdParams checks the refusals of a PPMd entry's parameter word
// (7zip-ppmd.zip's lorem.txt: order 8, 1 MiB, RESTART) and damaged data.
func TestPPMdParams(t *testing.T) {
	orig := readFixture(t, "7zip-ppmd.zip")
	// word returns the offset of the PPMd entry's parameter word.
	word := func(b []byte) int {
		for i := 0; i+30 <= len(b); i++ {
			if string(b[i:i+4]) == "PK\x03\x04" && binary.LittleEndian.Uint16(b[i+8:]) == methodPPMd {
				return i + 30 + int(binary.LittleEndian.Uint16(b[i+26:])) + int(binary.LittleEndian.Uint16(b[i+28:]))
			}
		}
		t.Fatal("no PPMd entry")
		return 0
	}
	for _, tc := range []struct {
		name  string
		patch func(b []byte)
		opt   *archive.Options
		want  error
	}{
		{"limit", func([]byte) {}, &archive.Options{MemLimit: 1 << 19}, archive.ErrLimit},
		{"freeze", func(b []byte) { b[word(b)+1] |= 0x20 }, nil, archive.ErrUnsupported},
		{"order1", func(b []byte) { b[word(b)] &^= 0x0F }, nil, archive.ErrCorrupt},
		{"flipped", func(b []byte) { b[word(b)+40] ^= 0x10 }, nil, archive.ErrCorrupt},
		{"zeroed", func(b []byte) { copy(b[word(b)+100:], make([]byte, 200)) }, nil, archive.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), orig...)
			tc.patch(b)
			r, err := openBytes(b, tc.opt)
			if err == nil {
				_, err = readAllVia(r, func(r io.Reader) io.Reader { return r })
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestPPMdStreamedUnknownSize rewrites 7zip-ppmd.zip's PPMd entry as a
// streaming writer leaves it (flag bit 3, zero sizes in the local header,
// a data descriptor after the data) and reads it from a non-seekable
// stream, where the decoder must stop at the end marker.
func TestPPMdStreamedUnknownSize(t *testing.T) {
	orig := readFixture(t, "7zip-ppmd.zip")
	sums := srcSums(t)
	var b []byte
	for i := 0; i+30 <= len(orig); i++ {
		if string(orig[i:i+4]) != "PK\x03\x04" || binary.LittleEndian.Uint16(orig[i+8:]) != methodPPMd {
			continue
		}
		end := i + 30 + int(binary.LittleEndian.Uint16(orig[i+26:])) + int(binary.LittleEndian.Uint16(orig[i+28:])) +
			int(binary.LittleEndian.Uint32(orig[i+18:]))
		hdr := append([]byte(nil), orig[i:i+30]...)
		dd := append([]byte("PK\x07\x08"), hdr[14:26]...) // CRC, sizes
		hdr[6] |= 0x08
		clear(hdr[14:26])
		b = append(append(append(append(b, orig[:i]...), hdr...), orig[i+30:end]...), dd...)
		b = append(b, orig[end:]...)
		break
	}
	if b == nil {
		t.Fatal("no PPMd entry")
	}
	for _, wrap := range []func(io.Reader) io.Reader{iotest.OneByteReader, iotest.HalfReader} {
		r, err := Open(&archive.Input{R: wrap(bytes.NewReader(b)), Size: -1, Name: "dd"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		x, err := readAllVia(r, func(r io.Reader) io.Reader { return r })
		if err != nil {
			t.Fatal(err)
		}
		if x.files["lorem.txt"] != sums["lorem.txt"] {
			t.Fatalf("lorem.txt: sha256 %s, want %s", x.files["lorem.txt"], sums["lorem.txt"])
		}
		r.Close()
	}
}

func TestMissingVolume(t *testing.T) {
	b := readFixture(t, "infozip-split.zip")
	f := testutil.TempFile(t, "x.zip", b)
	_, err := Open(&archive.Input{R: f, RA: f, Size: int64(len(b)), Path: f.Name(), Name: "x.zip"}, nil)
	var ve *archive.VolumeError
	if !errors.Is(err, archive.ErrMissingVolume) || !errors.As(err, &ve) || ve.Volume != "x.z01" {
		t.Fatalf("got %v, want ErrMissingVolume naming x.z01", err)
	}
}

// TestPrefixed opens archives with data glued in front (as a
// self-extractor stub is, without adjusting offsets), seekable and
// streamed.
func TestPrefixed(t *testing.T) {
	sums := srcSums(t)
	stub := bytes.Repeat([]byte("MZ\x90\x00 not a zip, a stub\n"), 300)
	for _, file := range []string{"infozip-deflate.zip", "infozip-zip64.zip", "7zip-deflate64.zip"} {
		b := append(bytes.Clone(stub), readFixture(t, file)...)
		for _, stream := range []bool{false, true} {
			var r archive.Reader
			var err error
			if stream {
				r = NewStreamReader(bytes.NewReader(b), nil)
			} else {
				r, err = openBytes(b, nil)
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
			}
			x, err := readAllVia(r, func(r io.Reader) io.Reader { return r })
			if err != nil {
				t.Fatalf("%s (stream %v): %v", file, stream, err)
			}
			for name, sum := range sums {
				if x.files[name] != sum {
					t.Errorf("%s (stream %v): %s: sha256 %s, want %s", file, stream, name, x.files[name], sum)
				}
			}
		}
	}
}

// TestNoAllocs checks that reading an entry again allocates nothing once
// the pipeline is warm but the small reader Open returns (encrypted
// entries derive keys per entry, so they are left out).
func TestNoAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	for _, file := range []string{"infozip-deflate.zip", "infozip-store.zip", "7zip-deflate64.zip", "7zip-lzma.zip"} {
		r, err := openBytes(readFixture(t, file), nil)
		if err != nil {
			t.Fatal(err)
		}
		ra := r.(archive.RandomAccess)
		entries, _ := ra.Entries()
		for i, e := range entries {
			if e.Type != archive.TypeFile || e.Size < 1000 {
				continue
			}
			read := func() {
				rc, err := ra.Open(i)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, rc); err != nil {
					t.Fatal(err)
				}
				rc.Close()
			}
			read()
			if n := testing.AllocsPerRun(20, read); n > 1 {
				t.Errorf("%s: %s: %.1f allocations per read", file, e.Name, n)
			} else {
				t.Logf("%s: %s (%s): %.1f allocations per read", file, e.Name, e.Method, n)
			}
		}
	}
}

// handZip builds a stored archive by hand: one local header per data
// entry, then central records that may point anywhere.
type handEntry struct {
	name   string
	offset int // local header the central record points at; -1: its own
}

func handZip(data map[string]string, order []string, central []handEntry) []byte {
	var b []byte
	le16 := func(v int) { b = binary.LittleEndian.AppendUint16(b, uint16(v)) }
	le32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	offs := map[string]int{}
	for _, name := range order {
		offs[name] = len(b)
		d := data[name]
		le32(sigLocal)
		le16(10)
		le16(0)
		le16(0)
		le32(0)
		le32(crc32.ChecksumIEEE([]byte(d)))
		le32(uint32(len(d)))
		le32(uint32(len(d)))
		le16(len(name))
		le16(0)
		b = append(b, name...)
		b = append(b, d...)
	}
	cd := len(b)
	for _, c := range central {
		target := c.name
		off := offs[target]
		if c.offset >= 0 {
			off = c.offset
			for n, o := range offs {
				if o == off {
					target = n
				}
			}
		}
		d := data[target]
		le32(sigCentral)
		le16(3<<8 | 20)
		le16(10)
		le16(0)
		le16(0)
		le32(0)
		le32(crc32.ChecksumIEEE([]byte(d)))
		le32(uint32(len(d)))
		le32(uint32(len(d)))
		le16(len(c.name))
		le16(0)
		le16(0)
		le16(0)
		le16(0)
		le32(0o100644 << 16)
		le32(uint32(off))
		b = append(b, c.name...)
	}
	end := len(b)
	le32(sigEnd)
	le16(0)
	le16(0)
	le16(len(central))
	le16(len(central))
	le32(uint32(end - cd))
	le32(uint32(cd))
	le16(0)
	return b
}

// TestZipBombs refuses the constructions of non-recursive zip bombs:
// central records sharing one local header (full overlap) and a record
// whose data run into the next entry's header (quoted overlap).
func TestZipBombs(t *testing.T) {
	data := map[string]string{"a": "hello, hello, hello", "b": "world"}
	ok := handZip(data, []string{"a", "b"}, []handEntry{{"a", -1}, {"b", -1}})
	r, err := openBytes(ok, nil)
	if err != nil {
		t.Fatalf("control archive: %v", err)
	}
	if x, err := readAllVia(r, func(r io.Reader) io.Reader { return r }); err != nil || len(x.files) != 2 {
		t.Fatalf("control archive: %v %v", x, err)
	}
	for _, tc := range []struct {
		name    string
		central []handEntry
		want    error
	}{
		{"full overlap", []handEntry{{"a", 0}, {"c", 0}}, ErrOverlap},
		{"quoted overlap", []handEntry{{"a", 0}, {"b", 10}}, ErrOverlap},
		{"inside data", []handEntry{{"a", 0}, {"b", 40}}, ErrOverlap},
	} {
		b := handZip(data, []string{"a", "b"}, tc.central)
		_, err := openBytes(b, nil)
		if !errors.Is(err, tc.want) || !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestSizeExceeded: a file whose data decode to more than its declared
// size hands out no byte past that size, only the error, read in one
// call or byte by byte.
func TestSizeExceeded(t *testing.T) {
	body := []byte("0123456789abcdef")
	var packed bytes.Buffer
	fw, _ := flate.NewWriter(&packed, flate.BestCompression)
	fw.Write(body)
	fw.Close()
	var b bytes.Buffer
	w := stdzip.NewWriter(&b)
	raw, err := w.CreateRaw(&stdzip.FileHeader{Name: "f", Method: stdzip.Deflate, CRC32: crc32.ChecksumIEEE(body[:6]),
		CompressedSize64: uint64(packed.Len()), UncompressedSize64: 6})
	if err != nil {
		t.Fatal(err)
	}
	raw.Write(packed.Bytes())
	w.Close()
	for _, chunk := range []int{1 << 20, 1} {
		r, err := openBytes(b.Bytes(), nil)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := r.(archive.RandomAccess).Open(0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := testutil.ReadInChunks(rc, chunk)
		if !errors.Is(err, ErrSize) {
			t.Errorf("chunk %d: error %v, want ErrSize", chunk, err)
		}
		rc.Close()
		if string(got) != "012345" {
			t.Errorf("chunk %d: handed out %q, want the declared 6 bytes", chunk, got)
		}
	}
}
