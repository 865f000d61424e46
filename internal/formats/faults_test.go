package formats

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"sort"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// faultFormats maps the corpus' format names to unpack's, for every format
// whose reader TestReaderFaults drives.
var faultFormats = map[string]archive.Format{
	"xz": archive.XZ, "lzma": archive.LZMA, "lz": archive.Lzip, "gz": archive.Gzip, "bz2": archive.Bzip2,
	"zst": archive.Zstd, "lz4": archive.LZ4, "br": archive.Brotli, "tar": archive.Tar, "zip": archive.Zip,
	"7z": archive.SevenZip, "rar4": archive.RAR4, "rar5": archive.RAR5,
}

// faultRows picks, per format, up to two plain corpus rows (expected to
// extract, not encrypted, not split) of at most 300 KiB, the largest first
// so that decoders read past their first buffers.
func faultRows(t *testing.T) map[string][]testutil.Row {
	known := knownFailures(t)
	byFormat := map[string][]testutil.Row{}
	for _, row := range testutil.Manifest(t) {
		if _, ok := faultFormats[row.Format]; !ok || row.Expect != "ok" || row.UnitFirst != row.Path ||
			row.Password != "" || row.HasFeature("encrypted-data") || row.HasFeature("encrypted-headers") ||
			row.HasFeature("multivolume") || known[row.Local] != "" {
			continue
		}
		if fi, err := os.Stat(row.Path); err != nil || fi.Size() > 300<<10 || fi.Size() < 64 {
			continue
		}
		byFormat[row.Format] = append(byFormat[row.Format], row)
	}
	for f, rows := range byFormat {
		sort.Slice(rows, func(i, j int) bool {
			a, _ := os.Stat(rows[i].Path)
			b, _ := os.Stat(rows[j].Path)
			return a.Size() > b.Size()
		})
		if len(rows) > 2 {
			byFormat[f] = rows[:2]
		}
	}
	return byFormat
}

// transientReader fails one Read with iotest.ErrTimeout once at least at
// bytes were given, then reads on as if nothing happened; each Read gives
// at most chunk bytes, so that the failure lands inside the decoder.
type transientReader struct {
	r         io.Reader
	at, n     int64
	chunk     int
	triggered bool
}

func (t *transientReader) Read(p []byte) (int, error) {
	if !t.triggered && t.n >= t.at {
		t.triggered = true
		return 0, iotest.ErrTimeout
	}
	if len(p) > t.chunk {
		p = p[:t.chunk]
	}
	n, err := t.r.Read(p)
	t.n += int64(n)
	return n, err
}

// outcome is what reading an archive gave: one line per entry (type, name,
// SHA-256 of its data or link target), and the error that ended it.
type outcome struct {
	lines []string
	err   error
}

// readThrough opens data as format f from r (non-seekable, as a pipe) at
// the level the format's reader works, and reads every entry.
func readThrough(f archive.Format, r io.Reader) outcome {
	opt := &archive.Options{Threads: 2}
	var o outcome
	add := func(e *archive.Entry, body io.Reader) error {
		h := sha256.New()
		if e.Type == archive.TypeFile {
			if _, err := io.Copy(h, body); err != nil {
				return err
			}
		} else {
			h.Write([]byte(e.Linkname))
		}
		o.lines = append(o.lines, e.Type.String()+" "+e.Name+" "+hex.EncodeToString(h.Sum(nil)))
		return nil
	}
	if open, ok := streams[f]; ok {
		d, err := open(r, opt)
		if err != nil {
			o.err = err
			return o
		}
		if c, ok := d.(io.Closer); ok {
			defer c.Close()
		}
		o.err = add(&archive.Entry{Type: archive.TypeFile, Name: "stream"}, d)
		return o
	}
	in := &archive.Input{R: bufio.NewReaderSize(r, 4096), Size: -1, Name: "faults"}
	ar, err := containers[f](in, opt)
	if err != nil {
		o.err = err
		return o
	}
	defer ar.Close()
	for {
		e, err := ar.Next()
		if err == io.EOF {
			return o
		}
		if err == nil {
			err = add(e, ar)
		}
		if err != nil {
			o.err = err
			return o
		}
	}
}

// TestReaderFaults drives every format's reader (corpus rows: xz, lzma,
// lzip, gzip, bzip2, zstd, lz4, brotli, tar, zip as a stream, 7z, RAR 4 and
// 5) through inputs that return short reads (iotest.OneByteReader,
// HalfReader, DataErrReader): the same entries and bytes as a plain read.
// Then through a transient error (iotest.ErrTimeout once, at several
// offsets). unpack does not retry a failed read: the rule is that a
// transient error never yields wrong output. The read either ends with that
// error, unchanged (an I/O error, exit 1, not "corrupt data"), every entry
// before it being right, or gives the right output.
func TestReaderFaults(t *testing.T) {
	rows := faultRows(t)
	for name := range faultFormats {
		if len(rows[name]) == 0 {
			t.Errorf("no corpus row for %s", name)
		}
	}
	for name, list := range rows {
		f := faultFormats[name]
		for _, row := range list {
			t.Run(name+"/"+strings.TrimPrefix(row.Local, "files/"), func(t *testing.T) {
				data, err := os.ReadFile(row.Path)
				if err != nil {
					t.Fatal(err)
				}
				want := readThrough(f, bytes.NewReader(data))
				if want.err != nil {
					t.Skipf("not readable as a stream: %v", want.err)
				}
				for _, w := range []struct {
					name string
					wrap func(io.Reader) io.Reader
				}{
					{"OneByteReader", iotest.OneByteReader},
					{"HalfReader", iotest.HalfReader},
					{"DataErrReader", iotest.DataErrReader},
				} {
					got := readThrough(f, w.wrap(bytes.NewReader(data)))
					if got.err != nil || strings.Join(got.lines, "\n") != strings.Join(want.lines, "\n") {
						t.Errorf("%s: %d entries, %v; want %d entries", w.name, len(got.lines), got.err, len(want.lines))
					}
				}
				for _, at := range []int64{0, 1, int64(len(data)) / 3, int64(len(data)) / 2, int64(len(data)) - 1} {
					got := readThrough(f, &transientReader{r: bytes.NewReader(data), at: at, chunk: 1000})
					if got.err == nil {
						if strings.Join(got.lines, "\n") != strings.Join(want.lines, "\n") {
							t.Errorf("transient error at %d: no error and different output", at)
						}
						continue
					}
					if !errors.Is(got.err, iotest.ErrTimeout) {
						t.Errorf("transient error at %d: reported as %v", at, got.err)
					}
					if len(got.lines) > len(want.lines) || strings.Join(got.lines, "\n") != strings.Join(want.lines[:len(got.lines)], "\n") {
						t.Errorf("transient error at %d: wrong entries before the error", at)
					}
				}
			})
		}
	}
}
