package formats

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// consumedCheck is a RangeWriter that checks, at every range, that the
// archive counts the range as read before it is output (--max-ratio).
type consumedCheck struct {
	t        *testing.T
	a        *Archive
	out      int64
	ranges   int
	contents bytes.Buffer
}

func (c *consumedCheck) Write(p []byte) (int, error) {
	c.out += int64(len(p))
	return c.contents.Write(p)
}

func (c *consumedCheck) WriteRange(f *os.File, off, n int64) (int64, error) {
	c.ranges++
	c.out += n
	if in := c.a.Consumed(); in < c.out {
		c.t.Errorf("range of %d bytes: %d bytes output, only %d read", n, c.out, in)
	}
	return archive.CopyRange(&c.contents, f, off, n)
}

// TestSendRange: an image file hands its stored files to a RangeWriter as
// ranges counted as read; the same image read from a pipe (spooled) gives
// the same bytes.
func TestSendRange(t *testing.T) {
	const image = "../codec/iso9660/testdata/rr-joliet.iso"
	read := func(a *Archive) *consumedCheck {
		c := &consumedCheck{t: t, a: a}
		for {
			e, err := a.Next()
			if err == io.EOF {
				return c
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Type == archive.TypeFile {
				if _, err := archive.Copy(c, a); err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
			}
		}
	}
	a, err := Open(image, &archive.Options{}, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fromFile := read(a)
	if fromFile.ranges == 0 {
		t.Fatal("no file went as a range")
	}
	f, err := os.Open(image)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Open("-", &archive.Options{}, OpenOptions{Stdin: struct{ io.Reader }{f}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if fromPipe := read(p); !bytes.Equal(fromPipe.contents.Bytes(), fromFile.contents.Bytes()) {
		t.Errorf("from a pipe: %d bytes, from the file %d", fromPipe.contents.Len(), fromFile.contents.Len())
	}
}
