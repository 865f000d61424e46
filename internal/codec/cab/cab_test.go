package cab

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil/entrytree"
)

func openFile(t testing.TB, path string) *Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	r, err := Open(&archive.Input{R: f, RA: f, Size: st.Size(), Path: path, Name: path}, &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r.(*Reader)
}

func TestGcab(t *testing.T) {
	want := map[string]string{}
	b, err := os.ReadFile("testdata/files.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		want[f[2]] = f[0] + " " + f[1]
	}
	for _, name := range []string{"t-none.cab", "t-mszip.cab"} {
		t.Run(name, func(t *testing.T) {
			r := openFile(t, "testdata/"+name)
			got, err := entrytree.Sized(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d files, want %d", len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %s, want %s", k, got[k], v)
				}
			}
			if !r.Checked() {
				t.Error("gcab writes checksums: Checked should say so")
			}
		})
	}
}

// TestLibmspack reads libmspack's LZX, Quantum and MSZIP cabinets; the sums are
// those cabextract, 7-Zip and unar agree on (the shared corpus).
func TestLibmspack(t *testing.T) {
	for name, want := range map[string]map[string]string{
		"normal_2files_2folders.cab": {
			"mszip1.txt": "74830f0b25143889f3e6f79798ac90bed21462b50faa33818fb75af01ed9dc67",
			"mszip2.txt": "97a5f0999ca55a8aecaced20fd0c5c28df0d0035691264e3964dbe1a9123f891",
			"lzx1.txt":   "a9cf18335bc692ceaba67292da1864382869a7009e0e638d95020d9e84f2f70c",
			"lzx2.txt":   "c88392cfceb1cc9a2582e8f466a7748e92da2bddd3cc489baae39ad87f6e9626",
		},
		"mszip_lzx_qtm.cab": {
			"lzx.txt":   "e978598104671296857e0543f4280f4d4e0506dd3cad5162e9f2a4f604fafc78",
			"mszip.txt": "6a2d9536b995c42a9b9daa2c2eaabf9a1e13e594669a420f8d3e66150af33cff",
			"qtm.txt":   "bdcfdaf09e54d61f950b165b201d4ad5f5acfdecff1fc5641e382aa382c74b45",
		},
	} {
		got, err := entrytree.Sized(openFile(t, "testdata/"+name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k, v := range want {
			if s, _, _ := strings.Cut(got[k], " "); s != v {
				t.Errorf("%s: %s: %s, want %s", name, k, s, v)
			}
		}
	}
}

// Test cabinets are built here, to make sets and hostile headers.

type tblock struct {
	data   []byte
	uncomp int
	nosum  bool
}

type tfolder struct {
	comp   uint16
	blocks []tblock
}

type tfile struct {
	name   string
	size   uint32
	off    uint32
	folder uint16
	attr   uint16
}

type tcab struct {
	flags      uint16
	prev, next string
	setID      uint16
	index      uint16
	res        [3]int // header, folder, data reserve
	folders    []tfolder
	files      []tfile
}

func (c *tcab) bytes() []byte {
	var hdr []byte
	hdr = append(hdr, "MSCF\x00\x00\x00\x00"...)
	hdr = binary.LittleEndian.AppendUint32(hdr, 0) // cbCabinet, set below
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	hdr = binary.LittleEndian.AppendUint32(hdr, 0) // coffFiles, set below
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	hdr = append(hdr, 3, 1)
	hdr = binary.LittleEndian.AppendUint16(hdr, uint16(len(c.folders)))
	hdr = binary.LittleEndian.AppendUint16(hdr, uint16(len(c.files)))
	flags := c.flags
	if c.res != [3]int{} {
		flags |= flagReserve
	}
	hdr = binary.LittleEndian.AppendUint16(hdr, flags)
	hdr = binary.LittleEndian.AppendUint16(hdr, c.setID)
	hdr = binary.LittleEndian.AppendUint16(hdr, c.index)
	if flags&flagReserve != 0 {
		hdr = binary.LittleEndian.AppendUint16(hdr, uint16(c.res[0]))
		hdr = append(hdr, byte(c.res[1]), byte(c.res[2]))
		hdr = append(hdr, make([]byte, c.res[0])...)
	}
	if flags&flagPrev != 0 {
		hdr = append(hdr, c.prev+"\x00disk\x00"...)
	}
	if flags&flagNext != 0 {
		hdr = append(hdr, c.next+"\x00disk\x00"...)
	}
	folderAt := len(hdr)
	hdr = append(hdr, make([]byte, len(c.folders)*(8+c.res[1]))...)
	binary.LittleEndian.PutUint32(hdr[16:], uint32(len(hdr)))
	for _, f := range c.files {
		hdr = binary.LittleEndian.AppendUint32(hdr, f.size)
		hdr = binary.LittleEndian.AppendUint32(hdr, f.off)
		hdr = binary.LittleEndian.AppendUint16(hdr, f.folder)
		hdr = binary.LittleEndian.AppendUint16(hdr, 0x5821) // 2024-01-01
		hdr = binary.LittleEndian.AppendUint16(hdr, 0x6000) // 12:00
		hdr = binary.LittleEndian.AppendUint16(hdr, f.attr)
		hdr = append(hdr, f.name+"\x00"...)
	}
	for i, fo := range c.folders {
		p := hdr[folderAt+i*(8+c.res[1]):]
		binary.LittleEndian.PutUint32(p, uint32(len(hdr)))
		binary.LittleEndian.PutUint16(p[4:], uint16(len(fo.blocks)))
		binary.LittleEndian.PutUint16(p[6:], fo.comp)
		for _, b := range fo.blocks {
			var h [8]byte
			binary.LittleEndian.PutUint16(h[4:], uint16(len(b.data)))
			binary.LittleEndian.PutUint16(h[6:], uint16(b.uncomp))
			if !b.nosum {
				binary.LittleEndian.PutUint32(h[:], checksum(h[4:8], checksum(b.data, 0)))
			}
			hdr = append(hdr, h[:]...)
			hdr = append(hdr, make([]byte, c.res[2])...)
			hdr = append(hdr, b.data...)
		}
	}
	binary.LittleEndian.PutUint32(hdr[8:], uint32(len(hdr)))
	return hdr
}

func stored(data []byte) tblock { return tblock{data: data, uncomp: len(data)} }

func openBytes(b []byte) (*Reader, error) {
	return NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{})
}

// TestSet reads a set of three cabinets opened from the first: a file
// spanning all three in a folder that continues, with a data block split
// between the first two, names matched without regard to case.
func TestSet(t *testing.T) {
	dir := t.TempDir()
	a := bytes.Repeat([]byte("a"), 100)
	b := []byte(strings.Repeat("0123456789", 30))
	c := []byte("cccc")
	// Folder data: a (100) then b (300) then c (4), in blocks:
	// cab1: [a + b[:50]] and the first 20 bytes of a split block;
	// cab2: the split block's rest (b[50:200]), then b[200:250];
	// cab3: b[250:] + c.
	fdata := append(append(append([]byte(nil), a...), b...), c...)
	cab1 := &tcab{flags: flagNext, next: "PART2.CAB", setID: 7, folders: []tfolder{{blocks: []tblock{
		stored(fdata[:150]), {data: fdata[150:170], uncomp: 0}}}},
		files: []tfile{{name: "a.txt", size: 100}, {name: "dir\\b.txt", size: 300, off: 100, folder: contToNext}}}
	cab2 := &tcab{flags: flagPrev | flagNext, prev: "part1.cab", next: "part3.cab", setID: 7, index: 1,
		folders: []tfolder{{blocks: []tblock{{data: fdata[170:300], uncomp: 150}, stored(fdata[300:350])}}},
		files:   []tfile{{name: "dir\\b.txt", size: 300, off: 100, folder: contPrevAndNext}}}
	cab3 := &tcab{flags: flagPrev, prev: "part2.cab", setID: 7, index: 2,
		folders: []tfolder{{blocks: []tblock{stored(fdata[350:])}}},
		files:   []tfile{{name: "dir\\b.txt", size: 300, off: 100, folder: contFromPrev}, {name: "c.txt", size: 4, off: 400}}}
	for name, c := range map[string]*tcab{"part1.cab": cab1, "part2.cab": cab2, "part3.cab": cab3} {
		if err := os.WriteFile(filepath.Join(dir, name), c.bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := openFile(t, filepath.Join(dir, "part1.cab"))
	got, err := entrytree.Sized(r)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(b []byte) string {
		h := sha256.Sum256(b)
		return hex.EncodeToString(h[:]) + " " + strconv.Itoa(len(b))
	}
	want := map[string]string{"a.txt": sum(a), "dir/b.txt": sum(b), "c.txt": sum(c)}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	// Without the third cabinet, b.txt fails naming the missing volume,
	// a.txt still reads.
	os.Remove(filepath.Join(dir, "part3.cab"))
	r = openFile(t, filepath.Join(dir, "part1.cab"))
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		_, err = io.Copy(io.Discard, r)
		switch e.Name {
		case "a.txt":
			if err != nil {
				t.Errorf("a.txt: %v", err)
			}
		case "dir/b.txt":
			if !errors.Is(err, archive.ErrMissingVolume) {
				t.Errorf("b.txt without part 3: %v", err)
			}
		}
	}
	// Opened from the second cabinet, b.txt cannot be read.
	r = openFile(t, filepath.Join(dir, "part2.cab"))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, r); !errors.Is(err, archive.ErrMissingVolume) {
		t.Errorf("opened from part 2: %v", err)
	}
}

func TestChecksums(t *testing.T) {
	data := []byte("some file data, checked")
	good := &tcab{folders: []tfolder{{blocks: []tblock{stored(data)}}}, files: []tfile{{name: "f", size: uint32(len(data))}}}
	b := good.bytes()
	r, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entrytree.Sized(r); err != nil || !r.Checked() {
		t.Fatalf("good cabinet: %v, checked %v", err, r.Checked())
	}
	// A flipped data byte fails the block's checksum.
	b[len(b)-3] ^= 0x20
	r, _ = openBytes(b)
	if _, err := entrytree.Sized(r); !errors.Is(err, archive.ErrChecksum) || !errors.Is(err, archive.ErrCorrupt) {
		t.Fatalf("flipped byte: %v", err)
	}
	// Without a checksum the data are read, and Checked says so.
	good.folders[0].blocks[0].nosum = true
	r, _ = openBytes(good.bytes())
	if _, err := entrytree.Sized(r); err != nil || r.Checked() {
		t.Fatalf("no checksum: %v, checked %v", err, r.Checked())
	}
}

// TestReserved reads cabinets with every combination of reserved areas.
func TestReserved(t *testing.T) {
	data := []byte("reserved areas around")
	for _, res := range [][3]int{{0, 0, 0}, {20, 0, 0}, {0, 7, 0}, {0, 0, 9}, {5, 255, 255}} {
		c := &tcab{res: res, folders: []tfolder{{blocks: []tblock{stored(data[:10]), stored(data[10:])}}},
			files: []tfile{{name: "x", size: uint32(len(data))}}}
		r, err := openBytes(c.bytes())
		if err != nil {
			t.Fatalf("%v: %v", res, err)
		}
		got, err := entrytree.Sized(r)
		h := sha256.Sum256(data)
		if err != nil || got["x"] != hex.EncodeToString(h[:])+" 21" {
			t.Fatalf("%v: %v %v", res, got, err)
		}
	}
}

// TestHostile feeds crafted cabinets: each must fail with a typed error.
func TestHostile(t *testing.T) {
	data := []byte("0123456789")
	base := func() *tcab {
		return &tcab{folders: []tfolder{{blocks: []tblock{stored(data)}}}, files: []tfile{{name: "f", size: 10}}}
	}
	cases := map[string]struct {
		mod  func(*tcab)
		want error
	}{
		"no folders":    {func(c *tcab) { c.folders = nil; c.files[0].folder = 0 }, ErrNoFolders},
		"no files":      {func(c *tcab) { c.files = nil }, ErrNoFiles},
		"bad folder":    {func(c *tcab) { c.files[0].folder = 3 }, ErrFolderIndex},
		"empty name":    {func(c *tcab) { c.files[0].name = "" }, ErrName},
		"beyond end":    {func(c *tcab) { c.files[0].size = 11 }, ErrBeyond},
		"far offset":    {func(c *tcab) { c.files[0].off = 1 << 31 }, ErrBeyond},
		"method":        {func(c *tcab) { c.folders[0].comp = 9 }, ErrMethod},
		"lzx window":    {func(c *tcab) { c.folders[0].comp = 3 | 25<<8 }, archive.ErrUnsupported},
		"stored size":   {func(c *tcab) { c.folders[0].blocks[0].uncomp = 5 }, ErrBlock},
		"split at end":  {func(c *tcab) { c.folders[0].blocks[0].uncomp = 0 }, ErrMissingNext},
		"mszip sig":     {func(c *tcab) { c.folders[0].comp = 1 }, ErrMSZIPSignature},
		"mszip garbage": {func(c *tcab) { c.folders[0].comp = 1; c.folders[0].blocks[0].data = []byte("CK\xff\xff\xff") }, archive.ErrCorrupt},
		"lzx garbage":   {func(c *tcab) { c.folders[0].comp = 3 | 15<<8 }, archive.ErrCorrupt},
		"next not found": {func(c *tcab) {
			c.flags = flagNext
			c.next = "nope.cab"
			c.files[0].folder = contToNext
			c.folders[0].blocks[0].uncomp = 0
		}, archive.ErrMissingVolume},
	}
	for name, tc := range cases {
		c := base()
		tc.mod(c)
		r, err := openBytes(c.bytes())
		if err == nil {
			_, err = entrytree.Sized(r)
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	// A 2 MiB LZX window over a 1 MiB memory limit.
	c := base()
	c.folders[0].comp = 3 | 21<<8
	b := c.bytes()
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{MemLimit: 1 << 20})
	if err == nil {
		_, err = entrytree.Sized(r)
	}
	if !errors.Is(err, archive.ErrLimit) {
		t.Errorf("window over the limit: %v", err)
	}
}

// TestTruncated cuts the fixtures at many lengths: every cut fails with a
// typed error (or, cut inside the last block's unused tail, reads).
func TestTruncated(t *testing.T) {
	for _, name := range []string{"t-mszip.cab", "t-none.cab", "normal_2files_2folders.cab"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for cut := 0; cut < len(b); cut += 1 + cut/16 {
			r, err := openBytes(b[:cut])
			if err == nil {
				_, err = entrytree.Sized(r)
			}
			if err == nil {
				t.Errorf("%s cut to %d: no error", name, cut)
			} else if !errors.Is(err, archive.ErrCorrupt) {
				t.Errorf("%s cut to %d: %v is not ErrCorrupt", name, cut, err)
			}
		}
	}
}

// TestBitFlips flips a bit at many places: reading must end, with the
// data right or a typed error.
func TestBitFlips(t *testing.T) {
	b, err := os.ReadFile("testdata/t-mszip.cab")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(b); i += 1 + i/8 {
		c := append([]byte(nil), b...)
		c[i] ^= 1 << (i % 8)
		r, err := openBytes(c)
		if err == nil {
			_, err = entrytree.Sized(r)
		}
		if err != nil && !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrUnsupported) &&
			!errors.Is(err, archive.ErrMissingVolume) && !errors.Is(err, archive.ErrLimit) {
			t.Errorf("flip at %d: untyped error %v", i, err)
		}
	}
}

func TestStdin(t *testing.T) {
	b, err := os.ReadFile("testdata/t-mszip.cab")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(&archive.Input{R: bytes.NewReader(b), Size: -1, Name: "-"}, &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := entrytree.Sized(r)
	if err != nil || len(got) != 4 {
		t.Fatalf("%v %v", got, err)
	}
}

func FuzzCAB(f *testing.F) {
	for _, name := range []string{"t-mszip.cab", "normal_2files_2folders.cab", "mszip_lzx_qtm.cab"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{MemLimit: 1 << 22})
		if err != nil {
			return
		}
		for {
			if _, err := r.Next(); err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, r); err != nil {
				return
			}
		}
	})
}
