package rar5

import (
	"bytes"
	"errors"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// TestGrowWindow: a solid entry with a larger dictionary keeps every byte
// of the window at its absolute position.
func TestGrowWindow(t *testing.T) {
	var d decoder
	d.win = make([]byte, minWindow)
	d.mask = minWindow - 1
	d.unpPtr = 3*minWindow + 1234 // wrapped several times
	for i := uint64(1); i <= minWindow; i++ {
		p := d.unpPtr - i
		d.win[p&d.mask] = byte(p * 7)
	}
	d.growWindow(4 * minWindow)
	d.mask = 4*minWindow - 1
	for i := uint64(1); i <= minWindow; i++ {
		p := d.unpPtr - i
		if d.win[p&d.mask] != byte(p*7) {
			t.Fatalf("position %d lost", p)
		}
	}
}

// TestWindowSize: windows are sized by what the stream can refer to: the
// dictionary, or the bytes of the stream by the entry's end when fewer.
func TestWindowSize(t *testing.T) {
	tests := []struct {
		dict, unp uint64
		size      int64
		want      uint64
	}{
		{128 << 10, 0, 10, minWindow},
		{4 << 30, 0, 1000, minWindow},
		{4 << 30, 0, 100 << 10, 128 << 10},
		{4 << 30, 0, 128 << 10, 256 << 10}, // a filter block over all of it fits
		{4 << 30, 0, 5 << 20, 8 << 20},
		{4 << 30, 0, 64 << 20, 64 << 20},     // no filter block is that long
		{4 << 30, 3 << 20, 5 << 20, 8 << 20}, // a solid entry after 3 MiB
		{4 << 20, 3 << 20, 5 << 20, 4 << 20},
		{4 << 30, 0, -1, 4 << 30},
		{3 << 20, 0, -1, 4 << 20}, // a 7.0 fractional dictionary
	}
	for _, tc := range tests {
		if got := windowSize(tc.dict, tc.unp, tc.size); got != tc.want {
			t.Errorf("windowSize(%d, %d, %d) = %d, want %d", tc.dict, tc.unp, tc.size, got, tc.want)
		}
	}
}

// TestDecoder5Errors: malformed block headers and table data are
// corruption errors, a solid continuation without a predecessor too.
func TestDecoder5Errors(t *testing.T) {
	hdr := func(flags byte, size int) []byte {
		b := []byte{flags, 0, byte(size)}
		b[1] = 0x5a ^ flags ^ byte(size)
		return b
	}
	tests := []struct {
		name  string
		data  []byte
		solid bool
	}{
		{"empty", nil, false},
		{"bad-checksum", []byte{0xc7, 0, 1, 0}, false},
		{"size-bytes-4", []byte{0xd8, 0x5a ^ 0xd8, 0, 0, 0, 0}, false},
		{"no-tables", append(hdr(0x47, 1), 0), false},
		{"truncated-tables", hdr(0xc7, 200), false},
		{"solid-first", append(hdr(0xc7, 1), 0), true},
	}
	for _, tc := range tests {
		var d decoder
		err := d.Reset(bytes.NewReader(tc.data), 1<<20, -1, tc.solid, false, 1<<30)
		if err == nil {
			_, err = d.Read(make([]byte, 100))
		}
		if !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
