package lzo_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/codec/lzop"
)

// TestLzopBlocks decodes the blocks lzop (LZO1X-1 and LZO1X-999) wrote
// for the lzop package's fixtures, through its reader, which checks the
// decoded length of every block and the fixtures' Adler-32/CRC-32 of the
// decoded data: every instruction kind real encoders emit.
func TestLzopBlocks(t *testing.T) {
	names, _ := filepath.Glob("../lzop/testdata/*.lzo")
	if len(names) < 5 {
		t.Fatalf("%d lzop fixtures", len(names))
	}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		z, err := lzop.NewReader(f, 1<<30)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := io.Copy(io.Discard, z); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
