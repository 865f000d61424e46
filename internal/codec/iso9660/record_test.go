package iso9660

import (
	"testing"
	"time"
)

// refShortTime is shortTime as time.Date gives it: the wall time read in
// UTC, moved by the GMT offset.
func refShortTime(b []byte) time.Time {
	if b[0] == 0 && b[1] == 0 && b[2] == 0 {
		return time.Time{}
	}
	return time.Date(1900+int(b[0]), time.Month(b[1]), int(b[2]), int(b[3]), int(b[4]), int(b[5]), 0, time.UTC).
		Add(-time.Duration(int8(b[6])) * 15 * time.Minute)
}

// TestShortTime: the counted seconds give time.Date's value (the same
// Time, ==) for every year, month (also out of range), day (also past the
// month's end), and hours, minutes, seconds and offsets at and past their
// ends.
func TestShortTime(t *testing.T) {
	hms := [][3]byte{{0, 0, 0}, {23, 59, 59}, {12, 30, 15}, {24, 60, 60}, {255, 255, 255}}
	offs := []byte{0, 1, 52, 0x80, 0xd0, 0xff}
	n := 0
	for y := 0; y < 256; y++ {
		for m := 0; m <= 14; m++ {
			for d := 0; d <= 32; d++ {
				for i, c := range hms {
					b := []byte{byte(y), byte(m), byte(d), c[0], c[1], c[2], offs[(y+m+d+i)%len(offs)]}
					got, want := shortTime(b), refShortTime(b)
					if got != want {
						t.Fatalf("% x: %v, want %v", b, got, want)
					}
					n++
				}
			}
		}
	}
	if b := []byte{255, 255, 255, 255, 255, 255, 255}; shortTime(b) != refShortTime(b) {
		t.Fatalf("% x: %v, want %v", b, shortTime(b), refShortTime(b))
	}
	t.Logf("%d dates", n)
}

func BenchmarkShortTime(b *testing.B) {
	date := []byte{124, 3, 1, 0, 30, 15, 8}
	var t time.Time
	for b.Loop() {
		t = shortTime(date)
	}
	_ = t
}
