package quantum

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// qtmFolder returns the Quantum folder of the libmspack test cabinet: its
// window bits, its one block's data and uncompressed size.
func qtmFolder(t testing.TB) (int, []byte, int) {
	t.Helper()
	b, err := os.ReadFile("testdata/mszip_lzx_qtm.cab")
	if err != nil {
		t.Fatal(err)
	}
	nf := int(binary.LittleEndian.Uint16(b[26:]))
	for i := 0; i < nf; i++ {
		f := b[36+8*i:]
		comp := binary.LittleEndian.Uint16(f[6:])
		if comp&15 != 2 {
			continue
		}
		off := binary.LittleEndian.Uint32(f)
		if binary.LittleEndian.Uint16(f[4:]) != 1 {
			t.Fatal("expected one block")
		}
		cb := int(binary.LittleEndian.Uint16(b[off+4:]))
		ub := int(binary.LittleEndian.Uint16(b[off+6:]))
		return int(comp >> 8 & 31), b[off+8 : off+8+uint32(cb)], ub
	}
	t.Fatal("no Quantum folder")
	return 0, nil, 0
}

// wantQtm is qtm.txt's SHA-256 as cabextract, 7-Zip and unar give it.
const wantQtm = "bdcfdaf09e54d61f950b165b201d4ad5f5acfdecff1fc5641e382aa382c74b45"

func TestLibmspack(t *testing.T) {
	bits, src, n := qtmFolder(t)
	d, err := NewDecoder(bits)
	if err != nil {
		t.Fatal(err)
	}
	for pass := 0; pass < 2; pass++ {
		out := make([]byte, n)
		if err := d.Decode(out, src); err != nil {
			t.Fatal(err)
		}
		if h := sha256.Sum256(out); hex.EncodeToString(h[:]) != wantQtm {
			t.Fatalf("qtm.txt: %x", h)
		}
		d.Reset()
	}
}

func TestBounds(t *testing.T) {
	for _, b := range []int{0, 9, 22} {
		if _, err := NewDecoder(b); !errors.Is(err, archive.ErrUnsupported) {
			t.Errorf("bits %d: %v", b, err)
		}
	}
	d, _ := NewDecoder(10)
	if err := d.Decode(make([]byte, FrameSize+1), nil); !errors.Is(err, ErrFrame) {
		t.Errorf("big frame: %v", err)
	}
	// Zeros decode to a match before the start of the data.
	if err := d.Decode(make([]byte, 100), make([]byte, 64)); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("zeros: %v", err)
	}
}

func TestTruncated(t *testing.T) {
	bits, src, n := qtmFolder(t)
	// A cut fails, or (when the range coder's read-ahead was all that
	// was cut) decodes the same bytes.
	fails := 0
	for cut := 0; cut < len(src); cut++ {
		d, _ := NewDecoder(bits)
		out := make([]byte, n)
		err := d.Decode(out, src[:cut])
		if err == nil {
			if h := sha256.Sum256(out); hex.EncodeToString(h[:]) != wantQtm {
				t.Errorf("cut to %d: wrong data without an error", cut)
			}
			continue
		}
		if !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("cut to %d: %v", cut, err)
		}
		fails++
	}
	if fails < len(src)-maxOverread-2 {
		t.Errorf("only %d of %d cuts failed", fails, len(src))
	}
}

func TestBitFlips(t *testing.T) {
	bits, src, n := qtmFolder(t)
	d, _ := NewDecoder(bits)
	out := make([]byte, n)
	for i := 0; i < 8*len(src); i++ {
		c := append([]byte(nil), src...)
		c[i/8] ^= 1 << (i % 8)
		d.Reset()
		if err := d.Decode(out, c); err != nil && !errors.Is(err, archive.ErrCorrupt) {
			t.Fatalf("flip %d: %v", i, err)
		}
	}
}

// TestModelRescale checks the model's invariant through both kinds of
// rescaling (halving, and every 50th time the sort).
func TestModelRescale(t *testing.T) {
	var m model
	m.init(0, 7)
	for i := 0; i < 200; i++ {
		m.syms[0].cum += 8
		m.rescale()
		for j := 0; j < m.n; j++ {
			if m.syms[j].cum <= m.syms[j+1].cum {
				t.Fatalf("round %d: cumulative frequencies not decreasing at %d", i, j)
			}
		}
	}
}

func FuzzQuantum(f *testing.F) {
	bits, src, n := qtmFolder(f)
	seed := append([]byte{byte(bits), byte(n >> 8), byte(n)}, src...)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 3 {
			return
		}
		d, err := NewDecoder(MinWindowBits + int(b[0])%(MaxWindowBits-MinWindowBits+1))
		if err != nil {
			t.Fatal(err)
		}
		n := int(b[1])<<8 | int(b[2])
		out := make([]byte, n%(FrameSize+1))
		// Two frames: the models carry from the first to the second.
		if d.Decode(out, b[3:]) == nil {
			d.Decode(out, b[3:])
		}
	})
}
