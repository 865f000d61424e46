package udf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// refTimestamp is timestamp as time.Date in a FixedZone gives it (the
// fractions' whole seconds given as seconds, so that a 32-bit int holds
// the rest).
func refTimestamp(b []byte) time.Time {
	tz := binary.LittleEndian.Uint16(b)
	year := int(int16(binary.LittleEndian.Uint16(b[2:])))
	if year == 0 && b[4] == 0 {
		return time.Time{}
	}
	loc := time.UTC
	if tz>>12 == 1 {
		off := int(int16(tz<<4) >> 4)
		if off != -2047 {
			loc = time.FixedZone("", off*60)
		}
	}
	ns := int64(b[9])*10_000_000 + int64(b[10])*100_000 + int64(b[11])*1000 // past 2^31: int64
	return time.Date(year, time.Month(b[4]), int(b[5]), int(b[6]), int(b[7]), int(b[8])+int(ns/1e9), int(ns%1e9), loc).UTC()
}

// TestTimestamp: the counted seconds give time.Date's value (the same
// Time, ==) for years across int16 (before year 0 too), months also out
// of range, days past the month's end, fields and fractions past their
// ends, and every kind of time zone field.
func TestTimestamp(t *testing.T) {
	var years []int16
	for y := -32768; y <= 32767; y += 97 {
		years = append(years, int16(y))
	}
	years = append(years, -401, -400, -399, -1, 0, 1, 1600, 1900, 1970, 2000, 2024, 2100, 32767)
	zones := []uint16{0, 0x1000, 0x1000 | 60, 0x1000 | (0x1000 - 60), 0x1000 | 0x801, 0x1000 | 0x800, 0x1000 | 0x7FF, 0x2000 | 120, 0xFFFF}
	fields := [][6]byte{{0, 0, 0, 0, 0, 0}, {23, 59, 59, 99, 99, 99}, {24, 60, 60, 100, 100, 100}, {255, 255, 255, 255, 255, 255}}
	b := make([]byte, 12)
	n := 0
	for i, y := range years {
		for m := 0; m <= 14; m++ {
			for _, d := range []byte{0, 1, 28, 29, 30, 31, 32, 255} {
				for j, f := range fields {
					binary.LittleEndian.PutUint16(b, zones[(i+m+int(d)+j)%len(zones)])
					binary.LittleEndian.PutUint16(b[2:], uint16(y))
					b[4], b[5] = byte(m), d
					copy(b[6:], f[:])
					if got, want := timestamp(b), refTimestamp(b); got != want {
						t.Fatalf("% x: %v, want %v", b, got, want)
					}
					n++
				}
			}
		}
	}
	t.Logf("%d timestamps", n)
}

// refDstring is dstring through []rune and utf16.Decode.
func refDstring(b []byte) (string, bool) {
	if len(b) == 0 {
		return "", false
	}
	var s string
	switch b[0] {
	case 8, 254:
		r := make([]rune, len(b)-1)
		for i, c := range b[1:] {
			r[i] = rune(c)
		}
		s = string(r)
	case 16, 255:
		u := make([]uint16, (len(b)-1)/2)
		for i := range u {
			u[i] = binary.BigEndian.Uint16(b[1+2*i:])
		}
		s = string(utf16.Decode(u))
	default:
		return "", false
	}
	return s, !(s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\x00"))
}

// TestDstring: names decode as through []rune and utf16.Decode (lone and
// reversed surrogates, a pair cut by the end, an odd byte), the same
// names are refused, and appending keeps what was before.
func TestDstring(t *testing.T) {
	cases := [][]byte{
		{}, {8}, {8, 'a'}, {8, '.'}, {8, '.', '.'}, {8, '.', '.', '.'}, {8, 'a', '/', 'b'}, {8, 'a', 0},
		{254, 0xE9, 't', 0xE9}, {8, 0x80, 0xFF}, {7, 'a'},
		{16}, {16, 0}, {16, 0, 'a', 0, 'b'}, {16, 0, 'a', 0}, {255, 0x4E, 0x2D, 0x65, 0x87},
		{16, 0xD8, 0x3D, 0xDE, 0x00}, // U+1F600
		{16, 0xD8, 0x3D},             // lone high
		{16, 0xDE, 0x00, 0, 'x'},     // lone low
		{16, 0xDE, 0x00, 0xD8, 0x3D}, // reversed
		{16, 0xD8, 0x3D, 0xD8, 0x3D, 0xDE, 0x00},
		{16, 0, '/'}, {16, 0, 0}, {16, 0, '.'}, {16, 0, '.', 0, '.'},
	}
	for i := 0; i < 256; i++ {
		cases = append(cases, []byte{8, byte(i)}, []byte{16, byte(i), byte(255 - i), 0xDC, byte(i)})
	}
	for _, c := range cases {
		want, ok := refDstring(c)
		got, err := dstring(c)
		if (err == nil) != ok || ok && got != want {
			t.Errorf("% x: %q, %v; want %q, ok %v", c, got, err, want, ok)
		}
		if ok {
			if b, err := appendDstring([]byte("dir/"), c); err != nil || string(b) != "dir/"+want {
				t.Errorf("% x appended: %q, %v", c, b, err)
			}
		}
	}
}

// failAt is an image whose reads fail from byte at on.
type failAt struct {
	b  []byte
	at int64
}

var errFail = errors.New("read failed")

func (f failAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.at {
		return 0, errFail
	}
	n := copy(p, f.b[off:min(int64(len(f.b)), f.at)])
	if n < len(p) {
		if off+int64(n) >= int64(len(f.b)) {
			return n, io.EOF
		}
		return n, errFail
	}
	return n, nil
}

// TestBlockWindow: blocks read through the window are the image's, in any
// order; near the end the window is what the image has; a read failing
// inside a window fails only the blocks from the failure on, with the
// source's error, and past the end they are cut short.
func TestBlockWindow(t *testing.T) {
	b, _ := sample(false)
	img := b.img
	for i := range img {
		img[i] ^= byte(i / blockSize) // every block different
	}
	nb := len(img) / blockSize
	m := &image{ra: bytes.NewReader(img), size: int64(len(img))}
	order := []int{0, 1, 2, 17, 16, 15, 3, nb - 1, nb - 2, nb - 20, 40, 39, 38, 41, 100}
	for i := 0; i < nb; i += 7 {
		order = append(order, i, nb-1-i)
	}
	for _, k := range order {
		got, err := m.read(int64(k) * blockSize)
		if err != nil || !bytes.Equal(got, img[k*blockSize:(k+1)*blockSize]) {
			t.Fatalf("block %d: %v", k, err)
		}
	}
	if _, err := m.read(int64(nb) * blockSize); !errors.Is(err, errTruncated) {
		t.Errorf("block past the end: %v", err)
	}
	fail := int64(10*blockSize + 100)
	m = &image{ra: failAt{img, fail}, size: int64(len(img))}
	for k := 5; k < 13; k++ {
		got, err := m.read(int64(k) * blockSize)
		if int64(k+1)*blockSize <= fail {
			if err != nil || !bytes.Equal(got, img[k*blockSize:(k+1)*blockSize]) {
				t.Errorf("block %d before the failure: %v", k, err)
			}
		} else if !errors.Is(err, errFail) {
			t.Errorf("block %d at or past the failure: %v", k, err)
		}
	}
}

// TestTagSum: the lane sum is the bytewise one, byte 4 left out, for
// patterns and every byte value at every place.
func TestTagSum(t *testing.T) {
	ref := func(d []byte) byte {
		var s byte
		for i := 0; i < 16; i++ {
			if i != 4 {
				s += d[i]
			}
		}
		return s
	}
	d := make([]byte, 16)
	check := func() {
		if got, want := tagSum(d), ref(d); got != want {
			t.Fatalf("% x: %02x, want %02x", d, got, want)
		}
	}
	for _, fill := range []byte{0, 1, 0x7F, 0x80, 0xFF} {
		for i := range d {
			d[i] = fill
		}
		check()
		for i := range d {
			old := d[i]
			for v := 0; v < 256; v++ {
				d[i] = byte(v)
				check()
			}
			d[i] = old
		}
	}
	for k := 0; k < 1000; k++ {
		for i := range d {
			d[i] = byte(k*31 + i*i*7 + k*i)
		}
		check()
	}
}
