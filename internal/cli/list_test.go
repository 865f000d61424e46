package cli

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/unpack-dev/unpack/internal/archive"
)

// heapWatch is an output that records the largest live heap seen while
// the listing is written (after a collection, every 2000 writes) and keeps
// only the output's size and last lines.
type heapWatch struct {
	writes, bytes int
	peak          uint64
	tail          []string
}

func (h *heapWatch) Write(p []byte) (int, error) {
	h.writes++
	h.bytes += len(p)
	if h.writes%2000 == 0 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	h.tail = append(h.tail, string(p))
	if len(h.tail) > 4 {
		h.tail = h.tail[1:]
	}
	return len(p), nil
}

// TestListBoundedMemory lists a .tar.zst of 20000 entries with 2000-byte
// names (40 MB of names from 140 KB of input): the rows stream, so the
// heap stays far below the names' size. Held whole as a table (as before),
// the listing's heap grew with the names (2.5 GB for 100k 4000-byte names).
func TestListBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 50 MB of tar")
	}
	const n, nameLen = 20000, 2000
	var zbuf bytes.Buffer
	zw, _ := zstd.NewWriter(&zbuf)
	tw := tar.NewWriter(zw)
	for i := range n {
		name := strings.Repeat("n", nameLen-8) + fmt.Sprintf("%08d", i)
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()
	path := write(t, t.TempDir(), "big.tar.zst", zbuf.Bytes())
	zbuf = bytes.Buffer{}
	runtime.GC()

	out := &heapWatch{}
	var errOut bytes.Buffer
	f := &Factory{In: strings.NewReader(""), Out: out, ErrOut: &errOut, Getenv: func(string) string { return "" },
		Context: context.Background()}
	if code := Run(f, []string{"l", path}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if last := out.tail[len(out.tail)-1]; !strings.Contains(last, fmt.Sprintf("%d files, 0 folders", n)) {
		t.Errorf("last line %q", last)
	}
	if out.bytes < n*nameLen {
		t.Errorf("listing has %d bytes, want at least the names' %d", out.bytes, n*nameLen)
	}
	t.Logf("peak live heap %.1f MiB for %d MiB of names", float64(out.peak)/(1<<20), n*nameLen>>20)
	if out.peak > 16<<20 {
		t.Errorf("peak live heap %d MiB while listing: the rows are held", out.peak>>20)
	}
}

func TestListTable(t *testing.T) {
	var buf bytes.Buffer
	tb := &listTable{w: &buf}
	tb.add(listRow{cells: [listCols]string{"a", "bb", "", "", "", "", ""}, name: "first"})
	tb.add(listRow{cells: [listCols]string{"aaa", "b", "", "", "", "", ""}, name: "second"})
	tb.flush()
	gap := strings.Repeat(" ", 2*(listCols-2)+1) // five empty cells, then one space
	want := "    a  bb" + gap + "first\n" +
		"  aaa   b" + gap + "second\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}

	// Past the held prefix, rows stream at once with the prefix's widths;
	// a wider cell pushes its own line only.
	buf.Reset()
	tb = &listTable{w: &buf}
	for i := range listHoldRows {
		tb.add(listRow{cells: [listCols]string{"x"}, name: fmt.Sprint(i)})
	}
	if buf.Len() != 0 || tb.streaming {
		t.Fatal("rows written before the prefix was complete")
	}
	tb.add(listRow{cells: [listCols]string{"wide"}, name: "late"})
	if !tb.streaming || len(tb.held) != 0 {
		t.Fatal("the table did not start streaming")
	}
	gap = strings.Repeat(" ", 2*(listCols-1)+1)
	if !strings.HasSuffix(buf.String(), "  wide"+gap+"late\n") || !strings.HasPrefix(buf.String(), "  x"+gap+"0\n") {
		t.Errorf("got %q…%q", buf.String()[:40], buf.String()[buf.Len()-40:])
	}
	n := buf.Len()
	tb.add(listRow{cells: [listCols]string{"y"}, name: "next"})
	if buf.Len() == n {
		t.Error("a row after the prefix was held")
	}

	// A held prefix is also bounded by its names' bytes.
	tb = &listTable{w: &buf}
	long := strings.Repeat("n", 64<<10)
	for range listHoldBytes / len(long) {
		tb.add(listRow{name: long})
	}
	if !tb.full() {
		t.Error("a prefix of 1 MiB of names is not full")
	}
}

func TestModeString(t *testing.T) {
	for _, tc := range []struct {
		e    archive.Entry
		want string
	}{
		{archive.Entry{Type: archive.TypeFile, Mode: 0o644}, "-rw-r--r--"},
		{archive.Entry{Type: archive.TypeDir, Mode: 0o755}, "drwxr-xr-x"},
		{archive.Entry{Type: archive.TypeSymlink, Mode: 0o777}, "lrwxrwxrwx"},
		{archive.Entry{Type: archive.TypeHardlink, Mode: 0o600}, "hrw-------"},
		{archive.Entry{Type: archive.TypeOther, Device: "FIFO", Mode: 0o644}, "prw-r--r--"},
		{archive.Entry{Type: archive.TypeOther, Device: "fifo", Mode: 0o600}, "prw-------"},
		{archive.Entry{Type: archive.TypeOther, Device: "character device", Mode: 0o666}, "crw-rw-rw-"},
		{archive.Entry{Type: archive.TypeOther, Device: "char device", Mode: 0o600}, "crw-------"},
		{archive.Entry{Type: archive.TypeOther, Device: "block device", Mode: 0o660}, "brw-rw----"},
		{archive.Entry{Type: archive.TypeOther, Device: "socket", Mode: 0o755}, "srwxr-xr-x"},
		{archive.Entry{Type: archive.TypeOther, Device: "tar entry of type X", Mode: 0o644}, "?rw-r--r--"},
		{archive.Entry{Type: archive.TypeFile, Mode: 0o755 | fs.ModeSetuid | fs.ModeSetgid}, "-rwsr-sr-x"},
		{archive.Entry{Type: archive.TypeFile, Mode: 0o644 | fs.ModeSetuid}, "-rwSr--r--"},
		{archive.Entry{Type: archive.TypeDir, Mode: 0o777 | fs.ModeSticky}, "drwxrwxrwt"},
		{archive.Entry{Type: archive.TypeDir, Mode: 0o776 | fs.ModeSticky}, "drwxrwxrwT"},
	} {
		if got := modeString(&tc.e); got != tc.want {
			t.Errorf("modeString(%v %q %v) = %q, want %q", tc.e.Type, tc.e.Device, tc.e.Mode, got, tc.want)
		}
	}
}

// TestListDevices lists a tar holding a FIFO and devices: each shows its
// type letter.
func TestListDevices(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "dev.tar", makeTar(t, []tarEntry{
		{name: "fifo", typ: tar.TypeFifo},
		{name: "tty", typ: tar.TypeChar},
		{name: "sda", typ: tar.TypeBlock},
	}))
	code, out, errOut := run(t, nil, "l", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"prw-r--r--  ", "crw-r--r--  ", "brw-r--r--  "} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}
}
