package cfb

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil/entrytree"
)

// node is a storage or stream for build: parent -1 is the root.
type node struct {
	name    string
	data    []byte
	storage bool
	parent  int
}

// build writes a compound file of version 3 (shift 9) or 4 (shift 12)
// holding nodes: streams under 4096 bytes in the mini stream, the others
// in sectors of their own, each sibling list chained by right pointers.
func build(shift uint, nodes []node) []byte {
	S := 1 << shift
	var sectors [][]byte
	var fat []uint32
	alloc := func(b []byte, special uint32) uint32 { // a run of sectors for b
		start := uint32(len(sectors))
		n := max(1, (len(b)+S-1)/S)
		for i := 0; i < n; i++ {
			sec := make([]byte, S)
			copy(sec, b[min(len(b), i*S):])
			sectors = append(sectors, sec)
			next := uint32(len(sectors))
			if i == n-1 {
				next = endOfChain
			}
			if special != 0 {
				next = special
			}
			fat = append(fat, next)
		}
		return start
	}
	starts := make([]uint32, len(nodes))
	var mini []byte
	var miniFAT []uint32
	for i, n := range nodes {
		switch {
		case n.storage || len(n.data) == 0:
			starts[i] = endOfChain
		case len(n.data) < 4096:
			starts[i] = uint32(len(mini) / 64)
			k := (len(n.data) + 63) / 64
			for j := 0; j < k; j++ {
				next := uint32(len(miniFAT) + 1)
				if j == k-1 {
					next = endOfChain
				}
				miniFAT = append(miniFAT, next)
			}
			mini = append(mini, n.data...)
			mini = append(mini, make([]byte, k*64-len(n.data))...)
		default:
			starts[i] = alloc(n.data, 0)
		}
	}
	miniStart := uint32(endOfChain)
	if len(mini) > 0 {
		miniStart = alloc(mini, 0)
	}
	var mf []byte
	for _, v := range miniFAT {
		mf = binary.LittleEndian.AppendUint32(mf, v)
	}
	miniFATStart, nMiniFAT := uint32(endOfChain), 0
	if len(mf) > 0 {
		miniFATStart, nMiniFAT = alloc(mf, 0), (len(mf)+S-1)/S
	}
	// The directory: the root, then the nodes; siblings chained.
	dir := make([]byte, 128*(len(nodes)+1))
	entry := func(i int, name string, typ byte, start uint32, size uint64) {
		p := dir[128*i:]
		u := utf16.Encode([]rune(name))
		for j, c := range u {
			binary.LittleEndian.PutUint16(p[2*j:], c)
		}
		binary.LittleEndian.PutUint16(p[64:], uint16(2*len(u)+2))
		p[66] = typ
		binary.LittleEndian.PutUint32(p[68:], noStream)
		binary.LittleEndian.PutUint32(p[72:], noStream)
		binary.LittleEndian.PutUint32(p[76:], noStream)
		binary.LittleEndian.PutUint32(p[116:], start)
		binary.LittleEndian.PutUint64(p[120:], size)
	}
	entry(0, "Root Entry", typeRoot, miniStart, uint64(len(mini)))
	last := map[int]int{} // parent -> its last child's entry
	for i, n := range nodes {
		typ := byte(typeStream)
		if n.storage {
			typ = typeStorage
		}
		entry(i+1, n.name, typ, starts[i], uint64(len(n.data)))
		pe := n.parent + 1
		if prev, ok := last[pe]; ok {
			binary.LittleEndian.PutUint32(dir[128*prev+72:], uint32(i+1))
		} else {
			binary.LittleEndian.PutUint32(dir[128*pe+76:], uint32(i+1))
		}
		last[pe] = i + 1
	}
	dirStart := alloc(dir, 0)
	// FAT sectors (and DIFAT sectors past the header's 109 entries),
	// enough to cover themselves too.
	per := S/4 - 1 // FAT sector numbers in a DIFAT sector
	nFAT, nDIFAT := 1, 0
	for {
		nDIFAT = max(0, (nFAT-109+per-1)/per)
		if (len(fat)+nFAT+nDIFAT)*4 <= nFAT*S {
			break
		}
		nFAT++
	}
	fatStart := uint32(len(fat))
	for i := 0; i < nFAT; i++ {
		sectors = append(sectors, make([]byte, S))
		fat = append(fat, 0xFFFFFFFD)
	}
	difStart := uint32(len(fat))
	for i := 0; i < nDIFAT; i++ {
		sec := make([]byte, S)
		for j := 0; j < per; j++ {
			v := uint32(freeSect)
			if k := 109 + i*per + j; k < nFAT {
				v = fatStart + uint32(k)
			}
			binary.LittleEndian.PutUint32(sec[4*j:], v)
		}
		next := uint32(endOfChain)
		if i < nDIFAT-1 {
			next = difStart + uint32(i) + 1
		}
		binary.LittleEndian.PutUint32(sec[4*per:], next)
		sectors = append(sectors, sec)
		fat = append(fat, 0xFFFFFFFC)
	}
	for len(fat) < nFAT*S/4 {
		fat = append(fat, freeSect)
	}
	for i, v := range fat {
		binary.LittleEndian.PutUint32(sectors[int(fatStart)+i*4/S][i*4%S:], v)
	}
	h := make([]byte, S)
	copy(h, Magic)
	binary.LittleEndian.PutUint16(h[24:], 0x3E)
	binary.LittleEndian.PutUint16(h[26:], uint16(shift-6)) // 3 or 4
	binary.LittleEndian.PutUint16(h[28:], 0xFFFE)
	binary.LittleEndian.PutUint16(h[30:], uint16(shift))
	binary.LittleEndian.PutUint16(h[32:], 6)
	binary.LittleEndian.PutUint32(h[44:], uint32(nFAT))
	binary.LittleEndian.PutUint32(h[48:], dirStart)
	binary.LittleEndian.PutUint32(h[56:], 4096)
	binary.LittleEndian.PutUint32(h[60:], miniFATStart)
	binary.LittleEndian.PutUint32(h[64:], uint32(nMiniFAT))
	binary.LittleEndian.PutUint32(h[68:], endOfChain)
	if nDIFAT > 0 {
		binary.LittleEndian.PutUint32(h[68:], difStart)
		binary.LittleEndian.PutUint32(h[72:], uint32(nDIFAT))
	}
	for i := 0; i < 109; i++ {
		v := uint32(freeSect)
		if i < nFAT {
			v = fatStart + uint32(i)
		}
		binary.LittleEndian.PutUint32(h[76+4*i:], v)
	}
	out := h
	for _, s := range sectors {
		out = append(out, s...)
	}
	return out
}

// readAll reads every entry: "sha size" per stream, "dir" per storage.
func readAll(b []byte) (map[string]string, error) {
	f, err := OpenFile(bytes.NewReader(b), int64(len(b)), 64<<20)
	if err != nil {
		return nil, err
	}
	return entrytree.Sized(NewReader(f))
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return fmt.Sprintf("%s %d", hex.EncodeToString(s[:]), len(b))
}

// TestFixture reads the wixl-written MSI: every stream as 7-Zip extracts
// it (7zz x -tCompound), names unpacked.
func TestFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/t.msi")
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(b)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/streams.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, line := range lines {
		f := strings.SplitN(line, " ", 3)
		if got[f[2]] != f[0]+" "+f[1] {
			t.Errorf("%s: got %q, want %s %s", f[2], got[f[2]], f[0], f[1])
		}
	}
	if len(got) != len(lines) {
		t.Errorf("%d streams, want %d: %v", len(got), len(lines), got)
	}
}

func testNodes() []node {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16000: FAT sectors
	return []node{
		{name: "\x05SummaryInformation", data: []byte("summary")},
		{name: "Storage", storage: true, parent: -1},
		{name: "big", data: big, parent: 1},
		{name: "small", data: []byte("in the mini stream"), parent: 1},
		{name: "Inner", storage: true, parent: 1},
		{name: "deep", data: bytes.Repeat([]byte{7}, 4096), parent: 4},
		{name: "empty", parent: -1},
	}
}

// TestBuilt reads files of both versions: storages as directories,
// streams in the mini stream and in sectors, [N] names, an empty stream.
func TestBuilt(t *testing.T) {
	nodes := testNodes()
	for i := range nodes {
		if nodes[i].parent == 0 {
			nodes[i].parent = -1
		}
	}
	for _, shift := range []uint{9, 12} {
		got, err := readAll(build(shift, nodes))
		if err != nil {
			t.Fatalf("shift %d: %v", shift, err)
		}
		want := map[string]string{
			"[5]SummaryInformation": sum([]byte("summary")),
			"Storage":               "dir",
			"Storage/big":           sum(nodes[2].data),
			"Storage/small":         sum([]byte("in the mini stream")),
			"Storage/Inner":         "dir",
			"Storage/Inner/deep":    sum(nodes[5].data),
			"empty":                 sum(nil),
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("shift %d:\n got %v\nwant %v", shift, got, want)
		}
	}
}

// TestDIFAT reads a version 3 file whose FAT needs more than the
// header's 109 sector numbers: the rest come from the DIFAT chain.
func TestDIFAT(t *testing.T) {
	big := make([]byte, 7<<20+12345)
	for i := range big {
		big[i] = byte(i * 7 >> 3)
	}
	b := build(9, []node{{name: "big", data: big, parent: -1}, {name: "small", data: []byte("x"), parent: -1}})
	if binary.LittleEndian.Uint32(b[72:]) == 0 {
		t.Fatal("no DIFAT sectors built")
	}
	got, err := readAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if got["big"] != sum(big) || got["small"] != sum([]byte("x")) {
		t.Errorf("%v", got)
	}
	// A DIFAT chain that runs out before the FAT sectors it must list.
	binary.LittleEndian.PutUint32(b[72:], 0)
	if _, err := readAll(b); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("short DIFAT: %v", err)
	}
}

// TestHostile: chain loops, directory loops and shared subtrees, sizes
// past the file, bad sector sizes: each a typed error, never a hang.
func TestHostile(t *testing.T) {
	nodes := testNodes()
	for i := range nodes {
		if nodes[i].parent == 0 {
			nodes[i].parent = -1
		}
	}
	good := build(9, nodes)
	f, err := OpenFile(bytes.NewReader(good), int64(len(good)), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	dirOff := func(i int) int { // where directory entry i is stored
		s := binary.LittleEndian.Uint32(good[48:])
		return int(s+1)<<9 + 128*i
	}
	fatOff := int(binary.LittleEndian.Uint32(good[76:])+1) << 9
	bigStart := int(binary.LittleEndian.Uint32(good[dirOff(3)+116:]))
	cases := map[string]func(b []byte){
		"chain loop": func(b []byte) { binary.LittleEndian.PutUint32(b[fatOff+4*(bigStart+3):], uint32(bigStart)) },
		"chain out":  func(b []byte) { binary.LittleEndian.PutUint32(b[fatOff+4*bigStart:], 0x7FFFFFF) },
		"dir loop":   func(b []byte) { binary.LittleEndian.PutUint32(b[dirOff(3)+72:], 2) },
		"self child": func(b []byte) { binary.LittleEndian.PutUint32(b[dirOff(2)+76:], 2) },
		"dir out":    func(b []byte) { binary.LittleEndian.PutUint32(b[dirOff(1)+72:], 5000) },
		"huge size":  func(b []byte) { binary.LittleEndian.PutUint64(b[dirOff(3)+120:], 1<<31) },
		"shift":      func(b []byte) { binary.LittleEndian.PutUint16(b[30:], 30) },
		"nFAT":       func(b []byte) { binary.LittleEndian.PutUint32(b[44:], 1<<30) },
		"no root":    func(b []byte) { b[dirOff(0)+66] = typeStream },
		"type":       func(b []byte) { b[dirOff(1)+66] = 9 },
	}
	_ = f
	for name, damage := range cases {
		b := bytes.Clone(good)
		damage(b)
		_, err := readAll(b)
		if err == nil || !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrLimit) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestTruncatedAndFlipped: every cut either fails with a corrupt-data
// error or (cut in the last sector's padding) reads the same; bit flips
// never panic and fail only with categorised errors.
func TestTruncatedAndFlipped(t *testing.T) {
	b, err := os.ReadFile("testdata/t.msi")
	if err != nil {
		t.Fatal(err)
	}
	want, err := readAll(b)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n += 97 {
		got, err := readAll(b[:n])
		if err == nil && fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("cut at %d: different streams without an error", n)
		}
		if err != nil && !errors.Is(err, archive.ErrCorrupt) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
	for i := 0; i < len(b); i += 61 {
		c := bytes.Clone(b)
		c[i] ^= 1 << (i % 8)
		if _, err := readAll(c); err != nil && !archive.Categorized(err) {
			t.Fatalf("flip at %d: %v", i, err)
		}
	}
}

func TestDisplayName(t *testing.T) {
	for _, c := range []struct {
		raw  []uint16
		msi  bool
		want string
	}{
		{[]uint16{5, 'S', 'I'}, false, "[5]SI"},
		{[]uint16{0x4840, 0x3800 + 10 | 11<<6}, true, "!AB"},
		{[]uint16{0x4800 + 63}, true, "_"},
		{[]uint16{0x4840, 'x'}, false, "\u4840x"},
	} {
		if got := DisplayName(c.raw, c.msi); got != c.want {
			t.Errorf("%v: %q, want %q", c.raw, got, c.want)
		}
	}
}

// FuzzCFB reads any input as a compound file.
func FuzzCFB(f *testing.F) {
	nodes := testNodes()
	for i := range nodes {
		if nodes[i].parent == 0 {
			nodes[i].parent = -1
		}
	}
	f.Add(build(9, nodes[:4]))
	f.Add(build(12, nodes[:2]))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := readAll(data); err != nil && !archive.Categorized(err) {
			t.Fatalf("error of no category: %v", err)
		}
	})
}

// TestDeepStorages: storages nested past maxDepth are refused (each
// entry's path is built by walking up to the root).
func TestDeepStorages(t *testing.T) {
	var nodes []node
	for i := 0; i <= maxDepth; i++ {
		nodes = append(nodes, node{name: "s", storage: true, parent: i - 1})
	}
	if _, err := readAll(build(9, nodes)); !errors.Is(err, archive.ErrLimit) {
		t.Errorf("%v", err)
	}
	got, err := readAll(build(9, nodes[:3]))
	if err != nil || got["s/s/s"] != "dir" {
		t.Errorf("%v %v", got, err)
	}
}

type countingReaderAt struct {
	r *bytes.Reader
	n int
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.n++
	return c.r.ReadAt(p, off)
}

// TestSectorRuns reads a stream laid out in consecutive sectors with one
// read, and gives the same bytes: not one read per sector (32 here).
func TestSectorRuns(t *testing.T) {
	nodes := testNodes()
	b := build(9, nodes)
	c := &countingReaderAt{r: bytes.NewReader(b)}
	f, err := OpenFile(c, int64(len(b)), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	var big *Entry
	for _, e := range f.Entries {
		if DisplayName(e.Name, false) == "big" {
			big = e
		}
	}
	if big == nil {
		t.Fatal("no stream big")
	}
	r, err := f.Open(big)
	if err != nil {
		t.Fatal(err)
	}
	c.n = 0
	got := make([]byte, big.Size)
	if _, err := io.ReadFull(r, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, nodes[2].data) {
		t.Fatal("stream differs")
	}
	if c.n > 2 {
		t.Errorf("%d reads for %d consecutive sectors", c.n, len(got)/512)
	}
}
