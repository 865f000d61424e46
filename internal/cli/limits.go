package cli

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/archive"
)

// LimitOptions bound what one archive may produce, for every format.
type LimitOptions struct {
	MaxSize    string  // total bytes written (or verified) per archive
	MaxEntries int     // entries per archive
	MaxRatio   float64 // output bytes per input byte
}

// stdinRatio is the expansion bound used for standard input when none is
// given: a stream from a pipe can't be inspected first.
const stdinRatio = 4096

func addLimitFlags(cmd *cobra.Command, o *LimitOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.MaxSize, "max-size", "", "stop when an archive's output exceeds `SIZE` (exit 5)")
	fl.IntVar(&o.MaxEntries, "max-entries", 0, "stop after `N` entries of one archive (exit 5)")
	fl.Float64Var(&o.MaxRatio, "max-ratio", 0, fmt.Sprintf("stop when output exceeds `R` times the input read (0: off; %d for stdin)", stdinRatio))
}

// limits is the state of the limits while one archive is read.
type limits struct {
	maxSize    int64 // 0: none
	maxEntries int
	maxRatio   float64
	out        atomic.Int64
	consumed   func() int64
}

func (o *LimitOptions) start(consumed func() int64, stdin bool) (*limits, error) {
	l := &limits{maxEntries: o.MaxEntries, maxRatio: o.MaxRatio, consumed: consumed}
	if o.MaxSize != "" {
		n, err := parseSize(o.MaxSize)
		if err != nil {
			return nil, &FlagError{Err: fmt.Errorf("--max-size: %v", err)}
		}
		l.maxSize = n
	}
	if l.maxRatio == 0 && stdin {
		l.maxRatio = stdinRatio
	}
	return l, nil
}

// entry checks the entry count before the n-th entry (1-based).
func (l *limits) entry(n int) error {
	if l.maxEntries > 0 && n > l.maxEntries {
		return archive.Limitf("more than %d entries (--max-entries)", l.maxEntries)
	}
	return nil
}

// reader wraps an entry's data so that every limit is enforced while it
// streams.
func (l *limits) reader(r io.Reader) io.Reader {
	if l.maxSize == 0 && l.maxRatio == 0 {
		return r
	}
	return &limitedReader{r: r, l: l}
}

type limitedReader struct {
	r io.Reader
	l *limits
}

// ratioSlack lets small inputs expand freely: the ratio applies past it.
const ratioSlack = 1 << 20

func (lr *limitedReader) Read(p []byte) (int, error) {
	n, err := lr.r.Read(p)
	total := lr.l.out.Add(int64(n))
	if lr.l.maxSize > 0 && total > lr.l.maxSize {
		return n, archive.Limitf("output exceeds %s (--max-size)", lr.l.sizeText())
	}
	if lr.l.maxRatio > 0 && total > ratioSlack {
		in := lr.l.consumed()
		if in < 1 {
			in = 1
		}
		if float64(total-ratioSlack) > lr.l.maxRatio*float64(in) {
			return n, archive.Limitf("output is more than %g times the input read (--max-ratio): a decompression bomb?", lr.l.maxRatio)
		}
	}
	return n, err
}

func (l *limits) sizeText() string { return humanBytes(l.maxSize) }
