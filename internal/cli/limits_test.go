package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/spool"
)

// countingWriter counts what the command writes to stdout.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// zerosGzip is a gzip of n×16 MiB of zeros (n copies of one 16 MiB
// member, 16 KB each: deflate's best, about 1030:1).
func zerosGzip(t *testing.T, n int) []byte {
	var member bytes.Buffer
	w, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	w.Write(make([]byte, 16<<20))
	w.Close()
	return bytes.Repeat(member.Bytes(), n)
}

// TestStdinGzipBomb: 1 GiB of zeros in a 1 MB gzip, from a pipe, is
// stopped by the default stdin ratio with exit 5, long before its end;
// with --max-ratio 0 it decodes whole.
func TestStdinGzipBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes hundreds of MiB")
	}
	bomb := zerosGzip(t, 64)
	t.Logf("%d bytes of gzip for 1 GiB", len(bomb))
	for _, args := range [][]string{{"x", "-c", "-"}, {"x", "--to-tar", "-"}} {
		out := &countWriter{}
		var errOut bytes.Buffer
		f := &Factory{In: bytes.NewReader(bomb), Out: out, ErrOut: &errOut, Getenv: func(string) string { return "" },
			Context: context.Background()}
		var errs []error
		f.reported = func(err error) { errs = append(errs, err) }
		code := Run(f, args)
		if code != ExitUnsupported || !reported(errs, errMaxRatio) {
			t.Errorf("%v: exit %d: %s", args, code, errOut.String())
		}
		t.Logf("%v: stopped after %d MiB", args, out.n>>20)
		// The bound: the slack, then 256 times the input read, which runs
		// up to 1 MiB ahead of the decoder.
		if out.n > ratioSlack+stdinRatio*(int64(len(bomb))/8+1<<20) {
			t.Errorf("%v: %d MiB written before the stop", args, out.n>>20)
		}
	}
	code, _, errOut := run(t, bytes.NewReader(zerosGzip(t, 8)), "t", "--max-ratio", "0", "-")
	if code != ExitOK {
		t.Errorf("--max-ratio 0: exit %d: %s", code, errOut)
	}
}

// TestStdinRatioRealData: real data from a pipe passes the default.
func TestStdinRatioRealData(t *testing.T) {
	var text bytes.Buffer
	for i := range 200000 {
		io.WriteString(&text, strings.Repeat("log line ", i%7+1)+"number "+string(rune('a'+i%26))+"\n")
	}
	code, _, errOut := run(t, bytes.NewReader(gz(t, text.Bytes())), "t", "-")
	if code != ExitOK {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestStdinSpoolLimit: a 7z from a pipe is spooled whole before it can be
// read (its index is at its end); --max-size bounds the spool, exit 5,
// and a spool within it reads as before.
func TestStdinSpoolLimit(t *testing.T) {
	arch := write7z([]wentry{{name: "big.bin", body: strings.Repeat("0123456789", 20000)}})
	code, _, errOut, errs := runErrs(t, bytes.NewReader(arch), "t", "--max-size", "100K", "-")
	if code != ExitUnsupported || !reported(errs, spool.ErrMaxSize) {
		t.Errorf("7z spool past --max-size: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, bytes.NewReader(arch), "t", "--max-size", "1M", "-"); code != ExitOK {
		t.Errorf("7z spool within --max-size: exit %d: %s", code, errOut)
	}
}

// TestToTarUnknownSize: --to-tar spools an entry of unknown size (a
// compressed stream from a pipe) to write its header first; --max-size
// stops the spool, exit 5, with no entry in the stream.
func TestToTarUnknownSize(t *testing.T) {
	data := bytes.Repeat([]byte("some text\n"), 50000)
	code, out, errOut := run(t, bytes.NewReader(gz(t, data)), "x", "--to-tar", "-")
	if code != ExitOK || !bytes.Contains([]byte(out), data[:1000]) || len(out) < len(data) {
		t.Fatalf("exit %d, %d bytes: %s", code, len(out), errOut)
	}
	code, out, errOut, errs := runErrs(t, bytes.NewReader(gz(t, data)), "x", "--to-tar", "--max-size", "100K", "-")
	if code != ExitUnsupported || !reported(errs, errMaxSize) || len(out) != 0 {
		t.Errorf("exit %d, %d bytes out: %s", code, len(out), errOut)
	}
}
