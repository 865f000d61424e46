package cli

import (
	stdzip "archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// zipOf stores each of names with the same body, deflated.
func zipOf(t *testing.T, names []string, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := stdzip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.CreateHeader(&stdzip.FileHeader{Name: n, Method: stdzip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	zw.Close()
	return buf.Bytes()
}

// dirBytes sums the sizes of the regular files below dir.
func dirBytes(dir string) (n int64, files int) {
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
			files++
		}
		return nil
	})
	return n, files
}

// TestNestedZipBomb: a 42.zip-style zip of zips (5 levels, 8 copies per
// level, 1 MiB of zeros at the bottom: 4 GiB if fully expanded) extracts
// only its outer level, quickly: the inner zips are written as the files
// they are, never opened.
func TestNestedZipBomb(t *testing.T) {
	const copies, levels = 8, 5
	layer := zipOf(t, []string{"zeros.bin"}, make([]byte, 1<<20))
	var inner []byte
	for l := 1; l < levels; l++ {
		inner = layer
		names := make([]string, copies)
		for i := range names {
			names[i] = fmt.Sprintf("l%d-%d.zip", l, i)
		}
		layer = zipOf(t, names, inner)
	}
	dir := t.TempDir()
	arch := write(t, dir, "42.zip", layer)
	dest := filepath.Join(dir, "out")
	start := time.Now()
	code, _, stderr := run(t, nil, "x", arch, "-o", dest)
	took := time.Since(start)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	n, files := dirBytes(dest)
	if files != copies || n != int64(copies*len(inner)) {
		t.Errorf("extracted %d files, %d bytes; want the %d inner zips, %d bytes", files, n, copies, copies*len(inner))
	}
	b, _ := os.ReadFile(filepath.Join(dest, fmt.Sprintf("l%d-0.zip", levels-1)))
	if !bytes.Equal(b, inner) {
		t.Error("an inner zip is not extracted as it is")
	}
	t.Logf("%d-byte nested bomb: outer level (%d bytes) in %v", len(layer), n, took)
	if took > 10*time.Second {
		t.Errorf("took %v", took)
	}
}

// TestRatioAndSizeLimits: one high-ratio layer (32 MiB of zeros in a zip
// entry, about 1000:1) is refused by --max-ratio and --max-size with exit 5
// and a message naming the limit, leaving nothing behind.
func TestRatioAndSizeLimits(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "bomb.zip", zipOf(t, []string{"zeros.bin"}, make([]byte, 32<<20)))
	for _, tc := range []struct {
		flags []string
		msg   string
	}{
		{[]string{"--max-ratio", "100"}, "decompression bomb"},
		{[]string{"--max-size", "1M"}, "output exceeds 1.0 MiB"},
	} {
		dest := filepath.Join(dir, "out-"+tc.flags[0][2:])
		code, _, stderr := run(t, nil, append([]string{"x", arch, "-o", dest}, tc.flags...)...)
		if code != ExitUnsupported || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d, %q", tc.flags, code, stderr)
		}
		if n, files := dirBytes(dest); files != 0 {
			t.Errorf("%v: left %d files, %d bytes", tc.flags, files, n)
		}
		leftovers(t, dest)
	}
	if code, _, stderr := run(t, nil, "t", arch, "--max-ratio", "2000", "--max-size", "64M"); code != ExitOK {
		t.Errorf("within the limits: exit %d %s", code, stderr)
	}
}

// overlapZip builds David Fifield's overlapping-file zip bomb: n local
// headers, each followed by a stored deflate block quoting the next local
// header, and one shared deflated kernel at the end. Every entry's data
// runs to the end of the kernel, so each expands to the kernel's output
// plus the headers it quotes.
func overlapZip(n int, kernelOut []byte) []byte {
	var kb bytes.Buffer
	fw, _ := flate.NewWriter(&kb, flate.BestCompression)
	fw.Write(kernelOut)
	fw.Close()
	kernel := kb.Bytes()

	name := func(i int) string { return fmt.Sprintf("f%03d", i) }
	const lfhLen = 30
	lfhs := make([][]byte, n)
	crcs := make([]uint32, n)
	csizes := make([]uint32, n)
	usizes := make([]uint32, n)
	// From the last entry back: entry i's output is the local headers of
	// entries i+1… then the kernel's output.
	tailC := len(kernel)
	var quoted []byte // the headers entry i quotes, in order
	for i := n - 1; i >= 0; i-- {
		out := append(append([]byte(nil), quoted...), kernelOut...)
		crcs[i] = crc32.ChecksumIEEE(out)
		usizes[i] = uint32(len(out))
		csizes[i] = uint32(tailC)
		h := make([]byte, lfhLen, lfhLen+len(name(i)))
		binary.LittleEndian.PutUint32(h[0:], 0x04034b50)
		binary.LittleEndian.PutUint16(h[4:], 20)
		binary.LittleEndian.PutUint16(h[8:], 8)
		binary.LittleEndian.PutUint16(h[12:], 0x21)
		binary.LittleEndian.PutUint32(h[14:], crcs[i])
		binary.LittleEndian.PutUint32(h[18:], csizes[i])
		binary.LittleEndian.PutUint32(h[22:], usizes[i])
		binary.LittleEndian.PutUint16(h[26:], uint16(len(name(i))))
		h = append(h, name(i)...)
		lfhs[i] = h
		// The entry before quotes this header in a 5-byte stored block.
		quoted = append(append([]byte(nil), h...), quoted...)
		tailC += 5 + len(h)
	}
	var out []byte
	offsets := make([]uint32, n)
	for i := 0; i < n; i++ {
		offsets[i] = uint32(len(out))
		out = append(out, lfhs[i]...)
		if i+1 < n {
			l := uint16(len(lfhs[i+1]))
			out = append(out, 0x00, byte(l), byte(l>>8), ^byte(l), ^byte(l>>8))
		}
	}
	out = append(out, kernel...)
	cdStart := len(out)
	for i := 0; i < n; i++ {
		h := make([]byte, 46, 46+len(name(i)))
		binary.LittleEndian.PutUint32(h[0:], 0x02014b50)
		binary.LittleEndian.PutUint16(h[4:], 20)
		binary.LittleEndian.PutUint16(h[6:], 20)
		binary.LittleEndian.PutUint16(h[10:], 8)
		binary.LittleEndian.PutUint16(h[14:], 0x21)
		binary.LittleEndian.PutUint32(h[16:], crcs[i])
		binary.LittleEndian.PutUint32(h[20:], csizes[i])
		binary.LittleEndian.PutUint32(h[24:], usizes[i])
		binary.LittleEndian.PutUint16(h[28:], uint16(len(name(i))))
		binary.LittleEndian.PutUint32(h[42:], offsets[i])
		out = append(out, append(h, name(i)...)...)
	}
	e := make([]byte, 22)
	binary.LittleEndian.PutUint32(e[0:], 0x06054b50)
	binary.LittleEndian.PutUint16(e[8:], uint16(n))
	binary.LittleEndian.PutUint16(e[10:], uint16(n))
	binary.LittleEndian.PutUint32(e[12:], uint32(len(out)-cdStart))
	binary.LittleEndian.PutUint32(e[16:], uint32(cdStart))
	return append(out, e...)
}

// TestOverlapBomb: an overlapping-entry zip (40 entries sharing one kernel
// of 8 MiB: 320 MiB if each were expanded) is refused at once, from a file
// and from a pipe, and writes nothing. The bomb is checked to be a real one
// first: the standard library reads an entry of it with a right CRC.
func TestOverlapBomb(t *testing.T) {
	const n, kernel = 40, 8 << 20
	bomb := overlapZip(n, make([]byte, kernel))
	zr, err := stdzip.NewReader(bytes.NewReader(bomb), int64(len(bomb)))
	if err != nil || len(zr.File) != n {
		t.Fatalf("not a zip of %d entries: %v", n, err)
	}
	rc, _ := zr.File[n/2].Open()
	got, err := io.ReadAll(rc)
	if err != nil || len(got) < kernel {
		t.Fatalf("entry %d of the bomb: %d bytes, %v", n/2, len(got), err)
	}
	dir := t.TempDir()
	arch := write(t, dir, "overlap.zip", bomb)
	dest := filepath.Join(dir, "out")
	for _, args := range [][]string{{"x", arch, "-o", dest}, {"t", arch}} {
		start := time.Now()
		code, _, stderr := run(t, nil, args...)
		took := time.Since(start)
		if code != ExitCorrupt && code != ExitUnsupported || !strings.Contains(stderr, "overlap (a zip bomb?)") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
		if _, files := dirBytes(dest); files != 0 {
			t.Errorf("%v: %d files written", args, files)
		}
		t.Logf("%v: refused in %v", args[0], took)
		if took > 2*time.Second {
			t.Errorf("%v: took %v", args, took)
		}
	}
	// From a pipe the zip is spooled and read as the file: refused when
	// opened, nothing written.
	dest = filepath.Join(dir, "out-pipe")
	code, _, stderr := run(t, bytes.NewReader(bomb), "x", "-", "-o", dest)
	size, files := dirBytes(dest)
	if code != ExitCorrupt || files != 0 || !strings.Contains(stderr, "overlap") {
		t.Errorf("pipe: exit %d, %d files, %d bytes written\n%s", code, files, size, stderr)
	}
}

// xzWithDict builds a valid one-block xz stream (CRC32 check) holding data
// as one uncompressed LZMA2 chunk, declaring LZMA2 dictionary property p.
func xzWithDict(p byte, data []byte) []byte {
	le32 := binary.LittleEndian.AppendUint32
	out := []byte{0xFD, '7', 'z', 'X', 'Z', 0, 0, 1}
	out = le32(out, crc32.ChecksumIEEE([]byte{0, 1}))
	bh := []byte{2, 0, 0x21, 1, p, 0, 0, 0} // 12-byte header, one filter: LZMA2
	bh = le32(bh, crc32.ChecksumIEEE(bh))
	out = append(out, bh...)
	comp := []byte{0x01, byte((len(data) - 1) >> 8), byte(len(data) - 1)} // uncompressed chunk, dictionary reset
	comp = append(append(comp, data...), 0x00)
	out = append(out, comp...)
	for (len(comp))%4 != 0 {
		out = append(out, 0)
		comp = append(comp, 0)
	}
	out = le32(out, crc32.ChecksumIEEE(data))
	unpadded := len(bh) + 3 + len(data) + 1 + 4 // header, chunk, end marker, CRC32
	idx := []byte{0, 1}
	idx = binary.AppendUvarint(idx, uint64(unpadded))
	idx = binary.AppendUvarint(idx, uint64(len(data)))
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = le32(idx, crc32.ChecksumIEEE(idx))
	out = append(out, idx...)
	foot := le32(nil, uint32(len(idx)/4-1))
	foot = append(foot, 0, 1)
	out = le32(out, crc32.ChecksumIEEE(foot))
	return append(append(out, foot...), 'Y', 'Z')
}

// TestXZHugeDictionary: an xz whose block header declares a 1.5 GiB
// dictionary (over the default --memlimit of 1 GiB) is refused at once,
// before the dictionary is allocated, with exit 5 and the size it needs.
// The same stream with a 4 KiB dictionary is valid (xz and unpack agree);
// xz -lvv says the big one needs 1537 MiB.
func TestXZHugeDictionary(t *testing.T) {
	data := []byte(strings.Repeat("a dictionary bomb\n", 100))
	dir := t.TempDir()
	small := write(t, dir, "small.txt.xz", xzWithDict(0, data))
	if code, _, stderr := run(t, nil, "x", small, "-o", filepath.Join(dir, "small")); code != ExitOK {
		t.Fatalf("4 KiB dictionary: exit %d %s", code, stderr)
	}
	if got := readFile(t, filepath.Join(dir, "small", "small.txt")); got != string(data) {
		t.Fatalf("4 KiB dictionary: got %q", got)
	}
	if _, err := exec.LookPath("xz"); err == nil && testutil.ProcessesOK(t) {
		if out, err := exec.Command("xz", "-t", small).CombinedOutput(); err != nil {
			t.Errorf("xz -t: %v %s", err, out)
		}
	}
	big := write(t, dir, "big.txt.xz", xzWithDict(37, data)) // (2|1) << (37/2 + 11) = 1.5 GiB
	if _, err := exec.LookPath("xz"); err == nil && testutil.ProcessesOK(t) {
		out, _ := exec.Command("xz", "-lvv", big).CombinedOutput()
		if !bytes.Contains(out, []byte("1,537 MiB")) && !bytes.Contains(out, []byte("1537 MiB")) {
			t.Errorf("xz -lvv does not show 1537 MiB needed:\n%s", out)
		}
	}
	for _, args := range [][]string{{"x", big, "-o", filepath.Join(dir, "big")}, {"t", big}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		code, _, stderr := run(t, nil, args...)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: exit %d in %v, %d KiB allocated: %s", args[0], code, took, alloc>>10, strings.TrimSpace(stderr))
		if code != ExitUnsupported || !strings.Contains(stderr, "needs 1610612736 bytes, over the memory limit") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
		if took > time.Second {
			t.Errorf("%v: took %v", args, took)
		}
		if alloc > 64<<20 {
			t.Errorf("%v: %d MiB allocated", args, alloc>>20)
		}
	}
	if n, files := dirBytes(filepath.Join(dir, "big")); files != 0 {
		t.Errorf("left %d files, %d bytes", files, n)
	}
}
