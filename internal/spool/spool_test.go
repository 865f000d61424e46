package spool

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

func TestSpoolRoundTrip(t *testing.T) {
	s, err := Create(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	data := bytes.Repeat([]byte("0123456789"), 100000)
	if n, err := s.ReadFrom(bytes.NewReader(data)); err != nil || n != int64(len(data)) {
		t.Fatalf("ReadFrom = %d, %v", n, err)
	}
	got, err := io.ReadAll(s.Reader())
	if err != nil || !bytes.Equal(got, data) || s.Size() != int64(len(data)) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	var b [10]byte
	if _, err := s.ReadAt(b[:], 12345); err != nil || string(b[:]) != "5678901234" {
		t.Fatalf("ReadAt = %q, %v", b, err)
	}
}

func TestSpoolByteLimit(t *testing.T) {
	s, err := Create(1000)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.ReadFrom(bytes.NewReader(make([]byte, 1001)))
	if !errors.Is(err, archive.ErrLimit) || !errors.Is(err, ErrMaxSize) {
		t.Fatalf("1001 bytes into a 1000-byte spool: %d, %v", n, err)
	}
	s2, _ := Create(1000)
	defer s2.Close()
	if _, err := s2.ReadFrom(bytes.NewReader(make([]byte, 1000))); err != nil {
		t.Fatalf("1000 bytes into a 1000-byte spool: %v", err)
	}
}

// TestSpoolFreeSpace fills a spool on a file system said to have 100 MiB
// free of 1 GiB: it stops, with a limit error, before the free space falls
// under the 64 MiB reserve, and asks the file system again every 8 MiB.
func TestSpoolFreeSpace(t *testing.T) {
	var free uint64 = 100 << 20
	looks := 0
	defer func(f func(string) (uint64, uint64, bool)) { freeSpace = f }(freeSpace)
	freeSpace = func(string) (uint64, uint64, bool) { looks++; return free, 1 << 30, true }
	s, err := Create(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	chunk := make([]byte, 1<<20)
	var err2 error
	for i := 0; i < 100 && err2 == nil; i++ {
		var n int
		n, err2 = s.Write(chunk)
		free -= uint64(n) // the fake file system fills as the spool grows
	}
	if !errors.Is(err2, archive.ErrLimit) || !errors.Is(err2, ErrLowSpace) {
		t.Fatalf("spool did not stop at the reserve: %v", err2)
	}
	if free < minReserve || s.Size() > 100<<20-minReserve {
		t.Errorf("spooled %d MiB, leaving %d MiB free", s.Size()>>20, free>>20)
	}
	if s.Size() < 100<<20-minReserve-checkEvery {
		t.Errorf("stopped early, at %d MiB", s.Size()>>20)
	}
	if looks > 1+int(s.Size()/checkEvery)+1 {
		t.Errorf("%d looks at the free space for %d MiB", looks, s.Size()>>20)
	}
}

func TestReserve(t *testing.T) {
	if Reserve(1<<30) != minReserve || Reserve(1<<40) != 1<<40/20 {
		t.Errorf("Reserve: %d, %d", Reserve(1<<30), Reserve(1<<40))
	}
}
