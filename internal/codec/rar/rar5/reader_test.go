package rar5

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
	"github.com/unpack-dev/unpack/internal/verify"
)

// writeVolumes stores volumes as NAME.partN.rar (or NAME.rar for one) in
// a temporary directory and returns their paths.
func writeVolumes(t testing.TB, vols [][]byte) []string {
	dir := t.TempDir()
	var paths []string
	for i, v := range vols {
		name := "a.rar"
		if len(vols) > 1 {
			name = fmt.Sprintf("a.part%d.rar", i+1)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, v, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// openBytes opens an archive held in memory (standard-input style: no
// path, no random access), reading the input through wrap.
func openBytes(data []byte, opt *archive.Options, wrap func(io.Reader) io.Reader) (archive.Reader, error) {
	var r io.Reader = bytes.NewReader(data)
	if wrap != nil {
		r = wrap(r)
	}
	return Open(&archive.Input{R: r, Size: -1, Name: "-"}, opt, 0)
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// wantFiles returns name → SHA-256 of the regular files among entries.
func wantFiles(entries []testEntry) map[string]string {
	m := map[string]string{}
	for _, e := range entries {
		if !e.dir && e.symlink == "" {
			m[e.name] = sha(e.data)
		}
	}
	return m
}

func sameFiles(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d files, want %d", len(got), len(want))
	}
	for name, sum := range want {
		if got[name] != sum {
			t.Errorf("%s: content differs", name)
		}
	}
}

func TestStored(t *testing.T) {
	small := patternData(1000, 1)
	big := patternData(300<<10, 2)
	tests := []struct {
		name    string
		opts    writerOpts
		entries []testEntry
		pws     []string
	}{
		{"plain", writerOpts{}, []testEntry{{name: "d", dir: true}, {name: "d/a.txt", data: small}, {name: "empty"}, {name: "big", data: big}}, nil},
		{"symlink", writerOpts{}, []testEntry{{name: "a", data: small}, {name: "l", symlink: "a"}}, nil},
		{"encrypted", writerOpts{}, []testEntry{{name: "a", data: small, password: "pw"}, {name: "b", data: big, password: "pw"}}, []string{"pw"}},
		{"encrypted-mac", writerOpts{}, []testEntry{{name: "a", data: small, password: "pw", mac: true}}, []string{"pw"}},
		{"encrypted-nocheck", writerOpts{}, []testEntry{{name: "a", data: small, password: "pw", noCheck: true}}, []string{"pw"}},
		{"per-entry-passwords", writerOpts{}, []testEntry{{name: "a", data: small, password: "one"}, {name: "b", data: big, password: "two"}}, []string{"one", "two"}},
		{"headers", writerOpts{headerPassword: "hp"}, []testEntry{{name: "a", data: small, password: "hp"}, {name: "b", data: big}}, []string{"hp"}},
		{"headers-comment", writerOpts{headerPassword: "hp", comment: "secret"}, []testEntry{{name: "a", data: small}}, []string{"hp"}},
		{"comment", writerOpts{comment: "hello\x00"}, []testEntry{{name: "a", data: small}}, nil},
		{"volumes", writerOpts{volumeSize: 100 << 10}, []testEntry{{name: "a", data: small}, {name: "b", data: big}, {name: "c", data: small}}, nil},
		{"volumes-encrypted", writerOpts{volumeSize: 64 << 10, headerPassword: "x"}, []testEntry{{name: "b", data: big, password: "x", mac: true}}, []string{"x"}},
	}
	wraps := map[string]func(io.Reader) io.Reader{
		"plain": nil, "onebyte": iotest.OneByteReader, "half": iotest.HalfReader,
	}
	for _, tc := range tests {
		vols := buildArchive(t, tc.opts, tc.entries)
		paths := writeVolumes(t, vols)
		want := wantFiles(tc.entries)
		for wname, wrap := range wraps {
			t.Run(tc.name+"/"+wname, func(t *testing.T) {
				opt := &archive.Options{Passwords: tc.pws}
				var r archive.Reader
				var err error
				if len(vols) == 1 {
					r, err = openBytes(vols[0], opt, wrap)
				} else {
					var f *os.File
					r, f, err = openFile(t, paths[0], opt)
					if err == nil {
						defer f.Close()
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if tc.opts.comment != "" {
					if c := r.(archive.Commenter).Comment(); c != strings.TrimRight(tc.opts.comment, "\x00") {
						t.Errorf("comment %q", c)
					}
				}
				if wrap != nil {
					r = wrapRead(r, wrap)
				}
				files, links, err := readAll(r)
				if err != nil {
					t.Fatal(err)
				}
				sameFiles(t, files, want)
				for _, e := range tc.entries {
					if e.symlink != "" && links[e.name] != e.symlink {
						t.Errorf("%s: link %q, want %q", e.name, links[e.name], e.symlink)
					}
				}
			})
		}
	}
}

// readWrapped reads entry data through a wrapping reader (OneByteReader…).
type readWrapped struct {
	archive.Reader
	rd io.Reader
}

func wrapRead(r archive.Reader, wrap func(io.Reader) io.Reader) readWrapped {
	return readWrapped{r, wrap(plainReader{r})}
}

// plainReader hides everything but Read, so wrappers cannot recurse.
type plainReader struct{ r io.Reader }

func (p plainReader) Read(b []byte) (int, error) { return p.r.Read(b) }

func (w readWrapped) Read(p []byte) (int, error) { return w.rd.Read(p) }

func TestEntryFields(t *testing.T) {
	data := patternData(5000, 3)
	vols := buildArchive(t, writerOpts{}, []testEntry{{name: "dir", dir: true}, {name: "dir/f", data: data, password: "p"}})
	r, err := openBytes(vols[0], &archive.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Next()
	if err != nil || e.Type != archive.TypeDir || e.Name != "dir" || e.Mode != 0o755 || e.Checksum != verify.None {
		t.Fatalf("dir entry %+v, %v", e, err)
	}
	e, err = r.Next()
	if err != nil || e.Type != archive.TypeFile || e.Size != 5000 || e.PackedSize != 5008 || !e.Encrypted || e.Method != "store" ||
		e.Checksum != verify.CRC32 || len(e.ChecksumValue) != 4 || e.Mode != 0o644 {
		t.Fatalf("file entry %+v, %v", e, err)
	}
	// Listing works without a password; reading needs one.
	if _, err := r.Read(make([]byte, 10)); !errors.Is(err, archive.ErrNeedPassword) {
		t.Fatalf("read without password: %v", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after last: %v", err)
	}
}

func TestPasswords(t *testing.T) {
	data := patternData(2000, 4)
	entry := vols(t, writerOpts{}, testEntry{name: "a", data: data, password: "right"})
	nocheck := vols(t, writerOpts{}, testEntry{name: "a", data: data, password: "right", noCheck: true})
	hp := vols(t, writerOpts{headerPassword: "right"}, testEntry{name: "a", data: data})
	tests := []struct {
		name string
		arc  []byte
		pws  []string
		want error
	}{
		{"entry-wrong", entry, []string{"wrong"}, archive.ErrPassword},
		{"entry-none", entry, nil, archive.ErrNeedPassword},
		{"entry-second", entry, []string{"wrong", "right"}, nil},
		{"nocheck-wrong", nocheck, []string{"wrong"}, archive.ErrPassword},
		{"headers-wrong", hp, []string{"wrong"}, archive.ErrPassword},
		{"headers-none", hp, nil, archive.ErrNeedPassword},
		{"headers-right", hp, []string{"right"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := openBytes(tc.arc, &archive.Options{Passwords: tc.pws}, nil)
			if err == nil {
				_, _, err = readAll(r)
			}
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.want != nil && errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("password error is also corrupt: %v", err)
			}
		})
	}
}

func vols(t testing.TB, o writerOpts, e ...testEntry) []byte {
	v := buildArchive(t, o, e)
	if len(v) != 1 {
		t.Fatal("expected one volume")
	}
	return v[0]
}

func TestVolumes(t *testing.T) {
	entries := []testEntry{{name: "a", data: patternData(50<<10, 5)}, {name: "b", data: patternData(200<<10, 6)}}
	vols := buildArchive(t, writerOpts{volumeSize: 64 << 10}, entries)
	if len(vols) < 3 {
		t.Fatalf("only %d volumes", len(vols))
	}
	paths := writeVolumes(t, vols)
	want := wantFiles(entries)
	// From any volume.
	for i, p := range paths {
		r, f, err := openFile(t, p, &archive.Options{})
		if err != nil {
			t.Fatalf("open volume %d: %v", i+1, err)
		}
		files, _, err := readAll(r)
		f.Close()
		if err != nil {
			t.Fatalf("from volume %d: %v", i+1, err)
		}
		sameFiles(t, files, want)
	}
	// Damage in the first part is found at the volume switch.
	bad := bytes.Clone(vols[0])
	bad[len(bad)-100] ^= 1
	if err := os.WriteFile(paths[0], bad, 0o644); err != nil {
		t.Fatal(err)
	}
	r, f, err := openFile(t, paths[0], &archive.Options{})
	if err == nil {
		_, _, err = readAll(r)
		f.Close()
	}
	// The part's own checksum, not the file's at its end.
	var ve *archive.VolumeError
	var me *verify.MismatchError
	if !errors.As(err, &ve) || filepath.Base(ve.Volume) != filepath.Base(paths[0]) || !errors.As(err, &me) || !errors.Is(err, archive.ErrCorrupt) {
		t.Fatalf("damaged part: %v", err)
	}
	os.WriteFile(paths[0], vols[0], 0o644)
	// A missing volume is reported by name.
	last := paths[len(paths)-1]
	os.Remove(last)
	r, f, err = openFile(t, paths[0], &archive.Options{})
	if err == nil {
		_, _, err = readAll(r)
		f.Close()
	}
	if !errors.Is(err, archive.ErrMissingVolume) || !errors.As(err, &ve) || ve.Volume != filepath.Base(last) {
		t.Fatalf("missing volume: %v", err)
	}
	// Standard input cannot continue into another volume.
	r, err = openBytes(vols[0], &archive.Options{}, nil)
	if err == nil {
		_, _, err = readAll(r)
	}
	if !errors.Is(err, archive.ErrMissingVolume) {
		t.Fatalf("stdin volume: %v", err)
	}
}

// expectCorrupt checks that reading arc fails with ErrCorrupt (or, for a
// damaged signature, ErrNotArchive) and does not panic.
func readArchive(arc []byte, pws []string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	r, err := openBytes(arc, &archive.Options{Passwords: pws}, nil)
	if err != nil {
		return err
	}
	_, _, err = readAll(r)
	return err
}

func TestTruncated(t *testing.T) {
	arcs := map[string][]byte{
		"stored":    vols(t, writerOpts{comment: "c"}, testEntry{name: "d", dir: true}, testEntry{name: "a", data: patternData(3000, 7)}, testEntry{name: "b", data: patternData(100, 8)}),
		"encrypted": vols(t, writerOpts{headerPassword: "p"}, testEntry{name: "a", data: patternData(3000, 7), password: "p"}),
	}
	if !testing.Short() {
		for _, name := range []string{"rarfile-rar5-solid.rar", "rarfile-rar5-times.rar", "rarfile-rar5-hlink.rar"} {
			arcs[name] = fixtureData(t, name)
		}
	}
	for name, arc := range arcs {
		t.Run(name, func(t *testing.T) {
			if err := readArchive(arc, []string{"p"}); err != nil {
				t.Fatalf("whole archive: %v", err)
			}
			for n := 0; n < len(arc); n++ {
				err := readArchive(arc[:n], []string{"p"})
				if err == nil || strings.HasPrefix(err.Error(), "panic") {
					t.Fatalf("cut at %d: %v", n, err)
				}
				if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrNotArchive) {
					t.Fatalf("cut at %d: not a corruption error: %v", n, err)
				}
			}
		})
	}
}

func TestBitFlip(t *testing.T) {
	// Every byte of a plain archive is covered by a CRC. (Encrypted headers
	// have padding no CRC covers; the flips below check those do not panic.)
	arcs := map[string][]byte{
		"stored": vols(t, writerOpts{}, testEntry{name: "a", data: patternData(500, 9)}, testEntry{name: "b", data: patternData(100, 10)}),
	}
	enc := vols(t, writerOpts{headerPassword: "p"}, testEntry{name: "a", data: patternData(300, 9), password: "p"})
	for i := range enc {
		bad := bytes.Clone(enc)
		bad[i] ^= 0x04
		if err := readArchive(bad, []string{"p"}); err != nil && strings.HasPrefix(err.Error(), "panic") {
			t.Fatalf("encrypted flip at %d: %v", i, err)
		}
	}
	for name, arc := range arcs {
		t.Run(name, func(t *testing.T) {
			for i := range arc {
				bad := bytes.Clone(arc)
				bad[i] ^= 0x10
				err := readArchive(bad, []string{"p"})
				if err == nil || strings.HasPrefix(err.Error(), "panic") {
					t.Fatalf("flip at %d: %v", i, err)
				}
			}
		})
	}
	// Compressed fixtures: any outcome but a panic.
	if testing.Short() {
		return
	}
	for _, rel := range []string{"rarfile-rar5-solid.rar", "rarfile-rar5-quick-open.rar"} {
		data := fixtureData(t, rel)
		for i := range data {
			for _, bit := range []byte{0x01, 0x80} {
				bad := bytes.Clone(data)
				bad[i] ^= bit
				if err := readArchive(bad, nil); err != nil && strings.HasPrefix(err.Error(), "panic") {
					t.Fatalf("%s flip at %d: %v", rel, i, err)
				}
			}
		}
	}
}

// TestSolidSkip reads only the start of each entry of a solid archive:
// Next must decode the rest so later entries still come out right.
func TestSolidSkip(t *testing.T) {
	rows := testutil.Manifest(t)
	for _, row := range rows {
		if row.Format != "rar5" || !row.HasFeature("solid") || !row.IsFirstOfUnit() || row.Expect != "ok" {
			continue
		}
		t.Run(row.Local, func(t *testing.T) {
			want, _ := testutil.ExpectedFiles(row.Expected)
			r, f, err := openFile(t, row.Path, &archive.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for i := 0; ; i++ {
				e, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if e.Type != archive.TypeFile {
					continue
				}
				if i%2 == 0 {
					io.ReadFull(r, make([]byte, 10))
					continue
				}
				data, err := io.ReadAll(iotest.HalfReader(r))
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				if sha(data) != want[e.Name] {
					t.Fatalf("%s: content differs", e.Name)
				}
			}
		})
	}
}

// TestCorpusOneByte reads the corpus archives through short reads, of
// the input and of the entries.
func TestCorpusOneByte(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: reads the corpus through short reads")
	}
	for _, row := range testutil.Manifest(t) {
		if row.Format != "rar5" || row.Expect != "ok" || row.UnitFirst != row.Path && row.UnitFirst != "" || row.Password != "" || row.HasFeature("blake2") {
			continue
		}
		data, err := os.ReadFile(row.Path)
		if err != nil || len(data) > 200<<10 || row.HasFeature("multivolume") {
			continue
		}
		// One byte at a time for small archives, halves for larger ones.
		wrap := iotest.OneByteReader
		if len(data) > 8<<10 {
			wrap = iotest.HalfReader
		}
		r, err := openBytes(data, &archive.Options{}, wrap)
		if err != nil {
			t.Fatalf("%s: %v", row.Local, err)
		}
		files, _, err := readAll(wrapRead(r, wrap))
		if err != nil {
			t.Fatalf("%s: %v", row.Local, err)
		}
		want, _ := testutil.ExpectedFiles(row.Expected)
		for name, sum := range want {
			if files[name] != sum {
				t.Errorf("%s: %s differs", row.Local, name)
			}
		}
	}
}

// TestLimit: a dictionary above the memory limit is refused before it
// is allocated, unless the entry is small enough to need less.
func TestLimit(t *testing.T) {
	const dict4G = 15 << 10 // compression info: dictionary 128 KiB << 15
	tests := []struct {
		name string
		e    testEntry
		want error
	}{
		{"unknown-size", testEntry{name: "a", data: patternData(100, 1), ci: 3<<7 | dict4G, unknownSize: true}, archive.ErrLimit},
		{"large", testEntry{name: "a", data: patternData(100, 1), ci: 3<<7 | dict4G, claimSize: 2 << 30}, archive.ErrLimit},
		{"small", testEntry{name: "a", data: patternData(100, 1), ci: 3<<7 | dict4G}, archive.ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			arc := vols(t, writerOpts{}, tc.e)
			r, err := openBytes(arc, &archive.Options{MemLimit: 64 << 20}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(io.Discard, r)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestContinueAfterDataError: a damaged entry reports a checksum
// mismatch and the next entry still reads.
func TestContinueAfterDataError(t *testing.T) {
	a, b := patternData(1000, 12), patternData(1000, 13)
	arc := vols(t, writerOpts{}, testEntry{name: "a", data: a}, testEntry{name: "b", data: b})
	i := bytes.Index(arc, a[:32])
	arc[i+500] ^= 1
	r, err := openBytes(arc, &archive.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, r); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("damaged entry: %v", err)
	}
	e, err := r.Next()
	if err != nil || e.Name != "b" {
		t.Fatalf("next entry: %v", err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("second entry: %v", err)
	}
}
