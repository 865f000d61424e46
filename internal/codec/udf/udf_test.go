package udf

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// builder writes a small UDF image by hand: the recognition sequence, the
// anchor at 256, the volume descriptors at 32, one partition from block
// 300, and optionally a metadata partition whose blocks are those of a
// metadata file (UDF 2.50).
type builder struct {
	img  []byte
	meta bool // directories and entries in the metadata partition
}

const (
	partStart = 300
	partLen   = 200
	metaFile  = 25 // physical block of the metadata file's entry
	metaAt    = 30 // physical block where metadata partition block 0 lies
	metaLen   = 32
)

func newBuilder(meta bool) *builder {
	b := &builder{img: make([]byte, (partStart+partLen)*blockSize), meta: meta}
	for i, id := range []string{"BEA01", "NSR03", "TEA01"} {
		copy(b.img[(16+i)*blockSize+1:], id)
	}
	avdp := make([]byte, 512)
	binary.LittleEndian.PutUint32(avdp[16:], 16*blockSize)
	binary.LittleEndian.PutUint32(avdp[20:], 32)
	binary.LittleEndian.PutUint32(avdp[24:], 16*blockSize)
	binary.LittleEndian.PutUint32(avdp[28:], 32)
	b.abs(256, 256, tagAnchor, avdp)
	b.abs(32, 32, tagPrimaryVD, make([]byte, 512))
	pd := make([]byte, 512)
	binary.LittleEndian.PutUint32(pd[188:], partStart)
	binary.LittleEndian.PutUint32(pd[192:], partLen)
	b.abs(33, 33, tagPartition, pd)
	lvd := make([]byte, blockSize)
	binary.LittleEndian.PutUint32(lvd[212:], blockSize)
	fsdPart := uint16(0)
	maps := []byte{1, 6, 1, 0, 0, 0}
	if meta {
		fsdPart = 1
		m := make([]byte, 64)
		m[0], m[1] = 2, 64
		copy(m[5:], "*UDF Metadata Partition")
		binary.LittleEndian.PutUint32(m[40:], metaFile)
		maps = append(maps, m...)
	}
	putLongAd(lvd[248:], blockSize, 0, fsdPart)
	binary.LittleEndian.PutUint32(lvd[264:], uint32(len(maps)))
	binary.LittleEndian.PutUint32(lvd[268:], uint32(1+btoi(meta)))
	copy(lvd[440:], maps)
	b.abs(34, 34, tagLogicalVolume, lvd[:440+len(maps)])
	b.abs(35, 35, tagTerminating, make([]byte, 512))
	if meta {
		// The metadata file maps metadata blocks 0..metaLen-1 to physical
		// blocks metaAt...
		b.fileEntry(0, metaFile, ftMetadata, 0, metaLen*blockSize, shortAds(metaAt, metaLen*blockSize))
	}
	fsd := make([]byte, 512)
	putLongAd(fsd[400:], blockSize, 1, b.part())
	b.desc(b.part(), 0, tagFileSet, fsd)
	return b
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// part is the partition reference entries and directories go in.
func (b *builder) part() uint16 { return uint16(btoi(b.meta)) }

// phys returns the image block of block n of partition reference p.
func (b *builder) phys(p uint16, n uint32) uint32 {
	if p == 1 {
		return partStart + metaAt + n
	}
	return partStart + n
}

// abs writes a descriptor at image block at whose tag says loc.
func (b *builder) abs(at, loc uint32, id uint16, body []byte) {
	d := b.img[int(at)*blockSize : int(at+1)*blockSize]
	copy(d, body)
	binary.LittleEndian.PutUint16(d, id)
	binary.LittleEndian.PutUint16(d[2:], 3)
	binary.LittleEndian.PutUint32(d[12:], loc)
	n := len(body) - 16
	binary.LittleEndian.PutUint16(d[10:], uint16(n))
	binary.LittleEndian.PutUint16(d[8:], verify.SumCRC16ITU(d[16:16+n]))
	var sum byte
	for i := 0; i < 16; i++ {
		if i != 4 {
			sum += d[i]
		}
	}
	d[4] = sum
}

// desc writes a descriptor at block n of partition reference p.
func (b *builder) desc(p uint16, n uint32, id uint16, body []byte) { b.abs(b.phys(p, n), n, id, body) }

func putLongAd(d []byte, length, block uint32, part uint16) {
	binary.LittleEndian.PutUint32(d, length)
	binary.LittleEndian.PutUint32(d[4:], block)
	binary.LittleEndian.PutUint16(d[8:], part)
}

func shortAds(block uint32, length int) []byte {
	d := make([]byte, 8)
	binary.LittleEndian.PutUint32(d, uint32(length))
	binary.LittleEndian.PutUint32(d[4:], block)
	return d
}

// fileEntry writes a file entry at block n of partition reference p.
func (b *builder) fileEntry(p uint16, n uint32, typ byte, adKind uint16, size int, ads []byte) {
	fe := make([]byte, 176+len(ads))
	binary.LittleEndian.PutUint16(fe[20:], 4)
	fe[27] = typ
	binary.LittleEndian.PutUint16(fe[34:], adKind)
	binary.LittleEndian.PutUint32(fe[44:], 0x5|0x5<<5|0x6<<10) // r-x for others and group, rw- for the owner
	binary.LittleEndian.PutUint64(fe[56:], uint64(size))
	binary.LittleEndian.PutUint16(fe[84:], 1<<12)
	binary.LittleEndian.PutUint16(fe[86:], 2021)
	fe[88], fe[89] = 2, 3
	binary.LittleEndian.PutUint32(fe[172:], uint32(len(ads)))
	copy(fe[176:], ads)
	b.desc(p, n, tagFileEntry, fe)
}

// fid is one file identifier to write in a directory.
type fid struct {
	name  string
	block uint32 // of the child's entry, in the builder's partition
	chars byte
}

func fids(part uint16, parent uint32, entries ...fid) []byte {
	var out []byte
	one := func(f fid, parentEntry bool) {
		name := []byte{}
		if !parentEntry {
			name = append([]byte{8}, f.name...)
		}
		n := (38 + len(name) + 3) &^ 3
		d := make([]byte, n)
		binary.LittleEndian.PutUint16(d, tagFileID)
		binary.LittleEndian.PutUint16(d[2:], 3)
		d[18] = f.chars
		d[19] = byte(len(name))
		putLongAd(d[20:], blockSize, f.block, part)
		copy(d[38:], name)
		crcLen := n - 16
		binary.LittleEndian.PutUint16(d[10:], uint16(crcLen))
		binary.LittleEndian.PutUint16(d[8:], verify.SumCRC16ITU(d[16:16+crcLen]))
		var sum byte
		for i := 0; i < 16; i++ {
			if i != 4 {
				sum += d[i]
			}
		}
		d[4] = sum
		out = append(out, d...)
	}
	one(fid{block: parent, chars: 0x0A}, true)
	for _, f := range entries {
		one(f, false)
	}
	return out
}

// dir writes a directory whose identifiers are embedded in its entry.
func (b *builder) dir(n, parent uint32, entries ...fid) {
	data := fids(b.part(), parent, entries...)
	b.fileEntry(b.part(), n, ftDirectory, adEmbedded, len(data), data)
}

// data writes file data at physical partition block n.
func (b *builder) data(n uint32, d []byte) {
	copy(b.img[int(partStart+n)*blockSize:], d)
}

// file writes a file entry at n whose data are at physical block at.
func (b *builder) file(n, at uint32, size int) {
	ads := shortAds(at, size)
	if b.meta {
		// From the metadata partition, data need a long_ad naming the
		// physical partition.
		ads = make([]byte, 16)
		putLongAd(ads, uint32(size), at, 0)
		b.fileEntry(b.part(), n, ftFile, adLong, size, ads)
		return
	}
	b.fileEntry(b.part(), n, ftFile, adShort, size, ads)
}

func (b *builder) open() (*Reader, error) {
	return NewReader(bytes.NewReader(b.img), int64(len(b.img)), nil)
}

// tree reads every entry: file sums, link targets, hard links.
func tree(r archive.Reader) (map[string]string, error) {
	t := map[string]string{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return t, err
		}
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			if _, err := io.Copy(h, r); err != nil {
				return t, &archive.EntryError{Entry: e.Name, Err: err}
			}
			t[e.Name] = hex.EncodeToString(h.Sum(nil))[:12]
		case archive.TypeDir:
			t[e.Name] = "dir"
		case archive.TypeSymlink:
			t[e.Name] = "-> " + e.Linkname
		case archive.TypeHardlink:
			t[e.Name] = "link " + e.Linkname
		}
	}
}

func show(t map[string]string) string {
	var s []string
	for k, v := range t {
		s = append(s, k+" "+v)
	}
	sort.Strings(s)
	return strings.Join(s, "\n")
}

func sum(d []byte) string { h := sha256.Sum256(d); return hex.EncodeToString(h[:])[:12] }

// sample builds root: a.txt, e.txt (embedded), sub/ with b.txt, link ->
// ../a.txt, and a second name for a.txt.
func sample(meta bool) (*builder, map[string]string) {
	b := newBuilder(meta)
	a := bytes.Repeat([]byte("alpha "), 1000) // 6000 bytes: three blocks
	bt := []byte("beta\n")
	b.data(10, a)
	b.data(20, bt)
	b.dir(1, 1, fid{name: "a.txt", block: 2}, fid{name: "e.txt", block: 3}, fid{name: "sub", block: 4, chars: 0x02},
		fid{name: "again.txt", block: 2})
	b.file(2, 10, len(a))
	b.fileEntry(b.part(), 3, ftFile, adEmbedded, 9, []byte("embedded\n"))
	b.dir(4, 1, fid{name: "b.txt", block: 5}, fid{name: "link", block: 6})
	b.file(5, 20, len(bt))
	link := []byte{3, 0, 0, 0, 5, 6, 0, 0, 8, 'a', '.', 't', 'x', 't'}
	b.fileEntry(b.part(), 6, ftSymlink, adEmbedded, len(link), link)
	want := map[string]string{
		"a.txt": sum(a), "e.txt": sum([]byte("embedded\n")), "sub": "dir", "sub/b.txt": sum(bt),
		"sub/link": "-> ../a.txt", "again.txt": "link a.txt",
	}
	return b, want
}

// TestBuilt reads hand-built images, with and without a metadata
// partition.
func TestBuilt(t *testing.T) {
	for _, meta := range []bool{false, true} {
		b, want := sample(meta)
		r, err := b.open()
		if err != nil {
			t.Fatalf("meta=%v: %v", meta, err)
		}
		got, err := tree(r)
		if err != nil {
			t.Fatalf("meta=%v: %v", meta, err)
		}
		if show(got) != show(want) {
			t.Errorf("meta=%v: got\n%s\nwant\n%s", meta, show(got), show(want))
		}
		es, _ := r.Entries()
		if es[0].ModTime.Year() != 2021 || es[0].Mode.Perm() != 0o655 {
			t.Errorf("meta=%v: %s: %v %v", meta, es[0].Name, es[0].ModTime, es[0].Mode)
		}
	}
}

// TestHostile: loops, overlaps, damaged descriptors and runaway
// allocation extents fail as corrupt, never hang.
func TestHostile(t *testing.T) {
	corrupt := func(name string, b *builder, want error) {
		t.Helper()
		r, err := b.open()
		if err == nil {
			_, err = tree(r)
		}
		if !errors.Is(err, archive.ErrCorrupt) || !errors.Is(err, want) {
			t.Errorf("%s: got %v, want %v", name, err, want)
		}
	}
	b, _ := sample(false)
	b.dir(4, 1, fid{name: "b.txt", block: 5}, fid{name: "up", block: 1, chars: 0x02})
	corrupt("directory loop", b, errDirLoop)

	b, _ = sample(false)
	b.dir(4, 1, fid{name: "self", block: 4, chars: 0x02})
	corrupt("directory in itself", b, errDirTwice)

	b, _ = sample(false)
	b.file(5, 11, 100) // inside a.txt's blocks
	r, err := b.open()
	var oe *archive.OverlapError
	if err == nil {
		_, err = tree(r)
	}
	if !errors.Is(err, archive.ErrCorrupt) || !errors.As(err, &oe) || oe.Format != "udf" {
		t.Errorf("overlap: got %v, want an *archive.OverlapError", err)
	}

	b, _ = sample(false)
	b.img[(partStart+2)*blockSize+100] ^= 1
	corrupt("file entry CRC", b, errDescriptorCRC)

	b, _ = sample(true)
	b.img[(partStart+metaAt+5)*blockSize+60] ^= 1
	corrupt("metadata entry CRC", b, errDescriptorCRC)

	b, _ = sample(false)
	b.desc(0, 7, tagFileEntry, make([]byte, 176)) // tag says 7
	copy(b.img[(partStart+2)*blockSize:], b.img[(partStart+7)*blockSize:(partStart+8)*blockSize])
	corrupt("misplaced descriptor", b, errMisplaced)

	// An allocation extent descriptor that continues into itself.
	b, _ = sample(false)
	ae := make([]byte, 24+8)
	binary.LittleEndian.PutUint32(ae[20:], 8)
	binary.LittleEndian.PutUint32(ae[24:], 3<<30|blockSize)
	binary.LittleEndian.PutUint32(ae[28:], 8)
	b.desc(0, 8, tagAllocExtent, ae)
	b.fileEntry(0, 5, ftFile, adShort, 1<<20, func() []byte { d := shortAds(8, blockSize); d[3] |= 0xC0; return d }())
	corrupt("allocation extent loop", b, errAllocExtents)

	b, _ = sample(false)
	b.file(5, 190, 50*blockSize) // past the image
	r, err = b.open()
	if err != nil {
		t.Fatal(err)
	}
	var ee *archive.EntryError
	if _, err := tree(r); !errors.Is(err, errTruncated) || !errors.As(err, &ee) || ee.Entry != "sub/b.txt" {
		t.Errorf("data past the end: %v", err)
	}
}

// TestFixture reads the UDF side of a genisoimage -udf bridge image and
// compares it with 7-Zip's extraction (scripts/testdata/iso.sh).
func TestFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/bridge.iso")
	if err != nil {
		t.Fatal(err)
	}
	if !Present(bytes.NewReader(b), int64(len(b))) {
		t.Fatal("no UDF recognition sequence")
	}
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tree(r)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/bridge.sums")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		s, name, _ := strings.Cut(line, "  ")
		if got[name] != s[:12] {
			t.Errorf("%s: %q, 7-Zip %q", name, got[name], s[:12])
		}
	}
}

// fuzzBlocks is how much of the partition the fuzzer varies: where the
// sample's descriptors, directories and data lie.
const fuzzBlocks = metaAt + 8

// FuzzReader reads hand-built images whose partition start is mutated
// (the volume descriptors stay valid): typed errors, no panics.
func FuzzReader(f *testing.F) {
	for _, meta := range []bool{false, true} {
		b, _ := sample(meta)
		f.Add(meta, b.img[partStart*blockSize:(partStart+fuzzBlocks)*blockSize])
	}
	templates := map[bool][]byte{false: newBuilder(false).img, true: newBuilder(true).img}
	f.Fuzz(func(t *testing.T, meta bool, part []byte) {
		img := bytes.Clone(templates[meta])
		copy(img[partStart*blockSize:(partStart+fuzzBlocks)*blockSize], part)
		r, err := NewReader(bytes.NewReader(img), int64(len(img)), nil)
		if err != nil {
			if !archive.Categorized(err) {
				t.Fatalf("uncategorized %v", err)
			}
			return
		}
		if _, err := tree(r); err != nil && !archive.Categorized(err) {
			t.Fatalf("uncategorized %v", err)
		}
	})
}

// TestOpenInput: Open takes an image from archive.Input's ReaderAt and
// refuses a pipe; the data of a file whose extent is allocated but not
// recorded read as zeros, through Next and through Open(i) alike.
func TestOpenInput(t *testing.T) {
	b, _ := sample(false)
	b.dir(4, 1, fid{name: "b.txt", block: 5}, fid{name: "hole", block: 7})
	ads := shortAds(0, 3000)
	ads[3] |= 0x40 // allocated, not recorded
	b.fileEntry(b.part(), 7, ftFile, adShort, 3000, ads)
	if _, err := Open(&archive.Input{R: bytes.NewReader(b.img), Size: -1}, nil); !errors.Is(err, archive.ErrUnsupported) {
		t.Errorf("from a pipe: %v", err)
	}
	ar, err := Open(&archive.Input{RA: bytes.NewReader(b.img), Size: int64(len(b.img))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := ar.(*Reader)
	got, err := tree(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := sum(make([]byte, 3000)); got["sub/hole"] != want {
		t.Errorf("hole: %s, want %s", got["sub/hole"], want)
	}
	es, _ := r.Entries()
	for i, e := range es {
		if e.Name != "sub/hole" {
			continue
		}
		rc, err := r.Open(i)
		if err != nil {
			t.Fatal(err)
		}
		d, err := io.ReadAll(rc)
		if err != nil || !bytes.Equal(d, make([]byte, 3000)) {
			t.Errorf("Open(%d): %d bytes, %v", i, len(d), err)
		}
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
}

// TestCutImage: an image cut anywhere fails as corrupt (the volume
// structures, a directory or a file's data past its end), never panics.
func TestCutImage(t *testing.T) {
	b, _ := sample(false)
	for cut := 0; cut < len(b.img); cut += blockSize / 2 {
		r, err := NewReader(bytes.NewReader(b.img[:cut]), int64(cut), nil)
		if err == nil {
			_, err = tree(r)
		}
		if err != nil && !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
}
