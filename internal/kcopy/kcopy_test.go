package kcopy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

func data(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>9)
	}
	return b
}

// TestSendFile: a range reaches a file, the source's own offset stays
// where it was, and a range past the source's end is short without error.
func TestSendFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no kernel copy here")
	}
	b := data(300 << 10)
	src := testutil.TempFile(t, "src", b)
	dst, err := os.Create(filepath.Join(t.TempDir(), "dst"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if n, err := Send(dst, src, 1000, 200<<10); err != nil || n != 200<<10 {
		t.Fatalf("Send: %d, %v", n, err)
	}
	if n, err := Send(dst, src, int64(len(b))-10, 100); err != nil || n != 10 {
		t.Fatalf("Send past the end: %d, %v; want 10, nil", n, err)
	}
	if pos, _ := src.Seek(0, io.SeekCurrent); pos != 0 {
		t.Errorf("source offset moved to %d", pos)
	}
	got, _ := os.ReadFile(dst.Name())
	want := append(append([]byte{}, b[1000:1000+200<<10]...), b[len(b)-10:]...)
	if !bytes.Equal(got, want) {
		t.Errorf("copied bytes differ")
	}
}

// TestSendPipe: a pipe takes a range larger than its buffer while its
// reader drains it.
func TestSendPipe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no kernel copy here")
	}
	b := data(1 << 20)
	src := testutil.TempFile(t, "src", b)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte)
	go func() { got, _ := io.ReadAll(pr); done <- got }()
	n, err := Send(pw, src, 5, int64(len(b)-5))
	pw.Close()
	if err != nil || n != int64(len(b)-5) {
		t.Fatalf("Send: %d, %v", n, err)
	}
	if got := <-done; !bytes.Equal(got, b[5:]) {
		t.Errorf("piped bytes differ")
	}
}

// TestSendRefused: the kernel refuses a destination opened O_APPEND
// (EINVAL): Send copies nothing and says so, for the caller to copy.
func TestSendRefused(t *testing.T) {
	src := testutil.TempFile(t, "src", data(4096))
	dst, err := os.OpenFile(filepath.Join(t.TempDir(), "dst"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	n, err := Send(dst, src, 0, 4096)
	if n != 0 || err == nil {
		t.Fatalf("Send to O_APPEND: %d, %v; want 0 and an error", n, err)
	}
	if runtime.GOOS != "linux" && !errors.Is(err, ErrUnsupported) {
		t.Errorf("error %v, want ErrUnsupported", err)
	}
}

// TestFile: copy_file_range into a file at its offset, which advances; a
// range past the source's end is short without error.
func TestFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no kernel copy here")
	}
	b := data(300 << 10)
	src := testutil.TempFile(t, "src", b)
	dst, err := os.Create(filepath.Join(t.TempDir(), "dst"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	dst.WriteString("head")
	if n, err := File(int(dst.Fd()), src, 100, 200<<10); err != nil || n != 200<<10 {
		t.Fatalf("File: %d, %v", n, err)
	}
	if n, err := File(int(dst.Fd()), src, int64(len(b))-10, 100); err != nil || n != 10 {
		t.Fatalf("File past the end: %d, %v; want 10, nil", n, err)
	}
	if pos, _ := dst.Seek(0, io.SeekCurrent); pos != 4+200<<10+10 {
		t.Errorf("destination offset %d", pos)
	}
	got, _ := os.ReadFile(dst.Name())
	want := append(append([]byte("head"), b[100:100+200<<10]...), b[len(b)-10:]...)
	if !bytes.Equal(got, want) {
		t.Errorf("copied bytes differ")
	}
}
