package rar4

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// TestPPMContinueAfterError: a PPMd block that continues the model (no
// reset flag) is refused once a block of that model failed: the model may
// be halfway through an update (FuzzRAR29 found a later block dividing by
// a zero frequency sum). A failed reset leaves no model to continue
// either.
func TestPPMContinueAfterError(t *testing.T) {
	var ppm []byte
	for _, s := range packedSeeds29(t) {
		if len(s) > 8 && s[0]&0xe0 == 0xa0 { // PPMd, reset, no escape byte
			ppm = s
			break
		}
	}
	if ppm == nil {
		t.Fatal("no PPMd fixture among the seeds")
	}
	buf := make([]byte, 1<<10)
	readAll := func(u *unpacker) (int, error) {
		total := 0
		for {
			n, err := u.read(buf)
			total += n
			if err != nil || total > 1<<20 {
				return total, err
			}
		}
	}
	cont := append([]byte{0x80}, make([]byte, 64)...) // PPMd, no reset
	// The reset header (flags, size, the range coder's 4 bytes) followed
	// by bytes no encoder wrote, the first of a fixed sequence on which
	// decoding fails inside the block.
	var bad []byte
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		b := bytes.Clone(ppm[:6])
		for range 256 {
			b = append(b, byte(rng.Uint32()))
		}
		var u unpacker
		u.limit = 64 << 20
		if err := u.init(bytes.NewReader(b), 29, false, -1, maxWin); err != nil {
			t.Fatal(err)
		}
		if _, err := readAll(&u); errors.Is(err, errBadPPM) && u.dec.(*unpack29).ppmBlock {
			bad = b
			break
		}
	}
	if bad == nil {
		t.Fatal("no sequence fails inside a PPMd block")
	}
	for _, tc := range []struct {
		name  string
		first []byte
		limit int64
	}{
		{"failed block", bad, 64 << 20},
		// The model is over the memory limit: never made.
		{"failed reset", ppm, 1 << 20},
	} {
		var u unpacker
		u.limit = tc.limit
		if err := u.init(bytes.NewReader(tc.first), 29, false, -1, maxWin); err != nil {
			t.Fatal(err)
		}
		if _, err := readAll(&u); err == nil || err == io.EOF {
			t.Fatalf("%s: decoded without an error", tc.name)
		}
		u.limit = 64 << 20
		if err := u.init(bytes.NewReader(cont), 29, false, -1, maxWin); err != nil {
			t.Fatal(err)
		}
		n, err := readAll(&u)
		if n != 0 || !errors.Is(err, errBadPPM) || u.dec.(*unpack29).ppmBlock {
			t.Errorf("%s, then a block continuing the model: %d bytes, %v, block started %v; want it refused (errBadPPM)",
				tc.name, n, err, u.dec.(*unpack29).ppmBlock)
		}
	}
}
