package zstdframe

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

// ringWriter records where the blocks it is given lie in memory.
type ringWriter struct {
	first, lo, hi uintptr
	n             int64
}

func (w *ringWriter) Write(p []byte) (int, error) {
	a := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	if w.n == 0 {
		w.first, w.lo, w.hi = a, a, a
	}
	w.lo, w.hi = min(w.lo, a), max(w.hi, a+uintptr(len(p)))
	w.n += int64(len(p))
	return len(p), nil
}

// TestRingAdvised checks the premises of adviseRing on a frame with a
// 4 MiB window (the smallest it advises) decoded through WriteTo on the
// reader's goroutine: every block the decoder returns lies in one ring that
// starts at the first block and spans at least the window (else the advice
// would fall on other memory), and the window's whole huge pages are
// advised (VmFlags "hg").
func TestRingAdvised(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the premise on klauspost's ring layout does not hold off amd64 (found on arm64 and s390x)")
	}
	const window = 2 * hugePage
	content := ringContent(window + window/4)
	enc, err := zstd.NewWriter(nil, zstd.WithWindowSize(window), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(content, nil)
	enc.Close()

	z, err := NewReader(bytes.NewReader(frame), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if z.w.window != window {
		t.Fatalf("window %d, want %d", z.w.window, window)
	}
	var w ringWriter
	if _, err := z.WriteTo(&w); err != nil {
		t.Fatal(err)
	}
	if w.n != int64(len(content)) {
		t.Fatalf("wrote %d bytes, want %d", w.n, len(content))
	}
	ringMax := uintptr(window + 2*(maxBlockSize+64))
	if w.lo != w.first || w.hi-w.first < window || w.hi-w.first > ringMax {
		t.Fatalf("blocks at [%#x, %#x), the first at %#x: not one ring of the window from the first block", w.lo, w.hi, w.first)
	}
	thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(thp), "[never]") {
		t.Skip("no transparent huge pages")
	}
	mid := (w.first+hugePage-1)&^(hugePage-1) + hugePage/2
	flags, err := vmFlags(mid)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("ring at %#x: VmFlags %q, want hg (MADV_HUGEPAGE)", mid, flags)
	}
}

// vmFlags returns the VmFlags line of /proc/self/smaps for the mapping
// that holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", io.ErrUnexpectedEOF
}
