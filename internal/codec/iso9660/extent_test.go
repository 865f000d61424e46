package iso9660

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// TestMultiExtent: a file in three extents reads as their bytes in
// order; a second name with the same extents is a hard link, one sharing
// only the first extent is refused.
func TestMultiExtent(t *testing.T) {
	a := bytes.Repeat([]byte("a"), sectorSize)
	b := bytes.Repeat([]byte("b"), sectorSize)
	c := []byte("tail")
	parts := []rec{
		{name: "M", extent: 22, size: sectorSize, flags: flagMultiExtent},
		{name: "M", extent: 20, size: sectorSize, flags: flagMultiExtent},
		{name: "M", extent: 24, size: uint32(len(c))},
	}
	want := append(append(append([]byte{}, b...), a...), c...)
	sectors := map[uint32][]byte{20: a, 22: b, 24: c}

	t.Run("read", func(t *testing.T) {
		sectors[18] = dir(18, 18, parts...)
		r, err := openImg(img{sectors})
		if err != nil {
			t.Fatal(err)
		}
		e, err := r.Next()
		if err != nil || e.Name != "M" || e.Size != int64(len(want)) {
			t.Fatalf("%v %+v", err, e)
		}
		// Small reads cross the extents' ends.
		got, err := io.ReadAll(io.LimitReader(r, 1<<20))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v: %d bytes, want %d", err, len(got), len(want))
		}
	})
	t.Run("same extents", func(t *testing.T) {
		again := append(append([]rec{}, parts...), parts...)
		for i := 3; i < 6; i++ {
			again[i].name = "N"
		}
		sectors[18] = dir(18, 18, again...)
		r, err := openImg(img{sectors})
		if err != nil {
			t.Fatal(err)
		}
		es, _ := r.Entries()
		if len(es) != 2 || es[0].Type != archive.TypeFile || es[1].Type != archive.TypeHardlink || es[1].Linkname != "M" {
			t.Fatalf("%+v %+v", es[0], es[1])
		}
	})
	t.Run("first extent only", func(t *testing.T) {
		sectors[18] = dir(18, 18, append(append([]rec{}, parts...), rec{name: "N", extent: 22, size: sectorSize})...)
		_, err := openImg(img{sectors})
		var oe *archive.OverlapError
		if !errors.As(err, &oe) {
			t.Fatalf("got %v, want an overlap", err)
		}
	})
	t.Run("extent cut short", func(t *testing.T) {
		short := append([]rec{}, parts...)
		short[2].extent = 40 // past the image's last sector
		sectors[18] = dir(18, 18, short...)
		r, err := openImg(img{sectors})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if !errors.Is(err, archive.ErrCorrupt) || n != 2*sectorSize {
			t.Fatalf("%d bytes, %v; want %d and corrupt", n, err, 2*sectorSize)
		}
	})
}

// TestTimeZones: record and Rock Ridge times with a GMT offset are the
// instant they name.
func TestTimeZones(t *testing.T) {
	for _, off := range []int8{0, 8, -20, 52, -48} {
		zone := time.FixedZone("", int(off)*15*60)
		want := time.Date(2024, 3, 1, 0, 30, 15, 0, zone).UTC()
		if got := shortTime([]byte{124, 3, 1, 0, 30, 15, byte(off)}); !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("short, offset %d: %v, want %v", off, got, want)
		}
		long := append([]byte("2024030100301500"), byte(off))
		if got := longTime(long); !got.Equal(want) || got != want {
			t.Errorf("long, offset %d: %v, want %v", off, got, want)
		}
	}
}
