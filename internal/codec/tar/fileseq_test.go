package tar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// readEntries reads every entry's data through WriteTo, as extraction
// does: each entry's bytes and error, and the archive's error.
func readEntries(r archive.Reader) (out []string, err error) {
	for {
		e, err := r.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		var b bytes.Buffer
		_, werr := r.(io.WriterTo).WriteTo(&b)
		out = append(out, fmt.Sprintf("%s %x %v", e.Name, b.Bytes(), werr))
	}
}

// TestOpenFileAgainstStream: Open of a file (long runs of data through
// archive.FileSeq) reads every fixture, whole and cut short at many
// points, as the stream reader does: the same entries, bytes and errors.
func TestOpenFileAgainstStream(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000) // runs past FileSeq's 64 KiB
	for _, p := range append(fixtures(t), "") {
		var data []byte
		if p == "" {
			data = tarOf(ustarHdr("a", '0', int64(len(big))).bytes(), padded(big),
				ustarHdr("b", '0', 3).bytes(), padded([]byte("abc")),
				ustarHdr("c", '0', int64(len(big))).bytes(), padded(big))
		} else {
			var err error
			if data, err = os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
		for _, cut := range []int{len(data), len(data) - 1, len(data) - 1024, len(data) / 2, len(data) / 3, 700, 512} {
			if cut > len(data) || cut < 0 {
				continue
			}
			b := data[:cut]
			want, wantErr := readEntries(NewReader(bytes.NewReader(b), nil))
			f := filepath.Join(t.TempDir(), "a.tar")
			if err := os.WriteFile(f, b, 0o600); err != nil {
				t.Fatal(err)
			}
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			r, _ := Open(&archive.Input{R: fh, RA: fh, Size: int64(len(b)), Name: "a.tar"}, nil)
			got, gotErr := readEntries(r)
			fh.Close()
			if fmt.Sprint(got) != fmt.Sprint(want) || !errors.Is(gotErr, wantErr) && fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s cut at %d: file %d entries, %v; stream %d entries, %v", filepath.Base(p), cut, len(got), gotErr, len(want), wantErr)
			}
		}
	}
}
