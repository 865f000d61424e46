package tar

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

func fixtures(t testing.TB) []string {
	m, _ := filepath.Glob("testdata/*.tar")
	if len(m) == 0 {
		t.Skip("no fixtures")
	}
	return m
}

// readers are the ways an archive reaches the reader: through a
// bufio.Reader (WriteTo writes from its buffer), one byte at a time, in
// short reads with the last data coming with io.EOF.
var readers = map[string]func([]byte) io.Reader{
	"bufio":   func(b []byte) io.Reader { return bufio.NewReader(bytes.NewReader(b)) },
	"onebyte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
	"half":    func(b []byte) io.Reader { return iotest.DataErrReader(iotest.HalfReader(bytes.NewReader(b))) },
}

// TestFixtures reads every fixture made by GNU tar, bsdtar and Python's
// tarfile, by Read and by WriteTo, and compares each regular file (hard
// links too) with what GNU tar extracted from it.
func TestFixtures(t *testing.T) {
	for _, p := range fixtures(t) {
		data, _ := os.ReadFile(p)
		want := gnuSums(t, p+".sha256s")
		for how, mk := range readers {
			for _, writeTo := range []bool{false, true} {
				var warns []string
				opt := &archive.Options{Warn: func(m string) { warns = append(warns, m) }}
				got := map[string]string{}
				r := NewReader(mk(data), opt)
				var sparse int
				for {
					e, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s (%s): %v", p, how, err)
					}
					name := strings.TrimPrefix(path.Clean(e.Name), "./")
					switch e.Type {
					case archive.TypeFile:
						if e.Sparse != nil {
							sparse++
						}
						h := sha256.New()
						var n int64
						if writeTo {
							n, err = r.WriteTo(h)
						} else {
							n, err = io.Copy(h, struct{ io.Reader }{r})
						}
						if err != nil || n != e.Size {
							t.Fatalf("%s (%s): %s: %d bytes of %d, %v", p, how, e.Name, n, e.Size, err)
						}
						got[name] = hex.EncodeToString(h.Sum(nil))
					case archive.TypeHardlink:
						got[name] = got[strings.TrimPrefix(path.Clean(e.Linkname), "./")]
					}
				}
				if len(warns) > 0 {
					t.Errorf("%s: warnings %q", p, warns)
				}
				if strings.HasPrefix(filepath.Base(p), "sparse-") && sparse == 0 {
					t.Errorf("%s: %d sparse entries marked", p, sparse)
				}
				for name, sum := range want {
					if got[name] != sum {
						t.Errorf("%s (%s, WriteTo %v): %s: sha256 %s, GNU tar %s", p, how, writeTo, name, got[name], sum)
					}
				}
				if len(got) != len(want) {
					t.Errorf("%s: %d files, GNU tar %d", p, len(got), len(want))
				}
			}
		}
	}
}

// gnuSums reads a sha256sum listing made by scripts/testdata/tar.sh.
func gnuSums(t *testing.T, p string) map[string]string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, _ := strings.Cut(line, "  ")
		m[name] = sum
	}
	return m
}

func TestTruncated(t *testing.T) {
	for _, p := range fixtures(t) {
		data, _ := os.ReadFile(p)
		for _, cut := range []int{100, 511, 512, 700, len(data) / 2} {
			if cut >= len(data) || cut < 0 {
				continue
			}
			r := NewReader(bytes.NewReader(data[:cut]), nil)
			var err error
			for err == nil {
				if _, err = r.Next(); err == nil {
					_, err = io.Copy(io.Discard, r)
				}
			}
			if err == io.EOF && cut%512 == 0 {
				continue // a cut at a block boundary may look like an end
			}
			if !errors.Is(err, archive.ErrCorrupt) {
				t.Errorf("%s cut at %d: %v", p, cut, err)
			}
		}
	}
}

// failAfter returns data's first n bytes, then err.
type failAfter struct {
	data []byte
	err  error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestInputErrors: an error of the input is the input's, not damage; an
// error already categorised (a stream codec's checksum) passes unchanged;
// an early end is a truncated archive. By Read and by WriteTo, in a
// header and in data.
func TestInputErrors(t *testing.T) {
	data, err := os.ReadFile("testdata/ustar-gnutar.tar")
	if err != nil {
		t.Fatal(err)
	}
	disk := errors.New("disk on fire")
	crc := archive.Corruptf("gzip: CRC mismatch")
	for _, cut := range []int{100, 512 + 3, 1024 + 100} {
		for _, c := range []struct {
			err  error
			want func(error) bool
		}{
			{disk, func(e error) bool { return errors.Is(e, disk) && !errors.Is(e, archive.ErrCorrupt) }},
			{crc, func(e error) bool { return e == crc }},
			{io.EOF, func(e error) bool { return errors.Is(e, archive.ErrCorrupt) }},
		} {
			for _, writeTo := range []bool{false, true} {
				r := NewReader(bufio.NewReader(&failAfter{data[:cut], c.err}), nil)
				var err error
				for err == nil {
					if _, err = r.Next(); err == nil {
						if writeTo {
							_, err = r.WriteTo(io.Discard)
						} else {
							_, err = io.Copy(io.Discard, struct{ io.Reader }{r})
						}
					}
				}
				if !c.want(err) {
					t.Errorf("cut at %d by %v (WriteTo %v): %v", cut, c.err, writeTo, err)
				}
				if _, err2 := r.Next(); err2 != err {
					t.Errorf("cut at %d by %v: Next after the error: %v", cut, c.err, err2)
				}
			}
		}
	}
}
