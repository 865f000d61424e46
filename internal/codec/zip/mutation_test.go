package zip

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// TestMutations runs both readers over fixtures with random byte changes
// and truncations: no panic, and no input may take long.
func TestMutations(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.zip")
	rng := rand.New(rand.NewPCG(7, 9))
	n := 600
	if testing.Short() {
		n = 100
	}
	for iter := 0; iter < n; iter++ {
		b, _ := os.ReadFile(names[rng.IntN(len(names))])
		if len(b) > 64<<10 {
			continue
		}
		for k := rng.IntN(8) + 1; k > 0; k-- {
			switch rng.IntN(3) {
			case 0:
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			case 1:
				b = b[:rng.IntN(len(b))+1]
			default:
				b[rng.IntN(len(b))] = 0xff
			}
		}
		t0 := time.Now()
		opt := &archive.Options{Passwords: []string{"secret"}, MemLimit: fuzzLimit}
		drain(NewStreamReader(bytes.NewReader(b), opt))
		if r, err := Open(&archive.Input{R: bytes.NewReader(b), RA: bytes.NewReader(b), Size: int64(len(b))}, opt); err == nil {
			drain(r)
		}
		if d := time.Since(t0); d > 10*time.Second {
			t.Errorf("iteration %d took %v", iter, d)
		}
	}
}
