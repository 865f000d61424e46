package cli

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/unpack-dev/unpack/internal/archive"
)

// LimitOptions bound what one archive may produce, for every format.
type LimitOptions struct {
	MaxSize    string  // total bytes written (or verified) per archive
	MaxEntries int     // entries per archive
	MaxRatio   float64 // output bytes per input byte
	ratioFlag  *pflag.Flag
}

// ratioGiven reports whether --max-ratio was given (0 then turns the
// stdin default off).
func (o *LimitOptions) ratioGiven() bool {
	return o.MaxRatio != 0 || o.ratioFlag != nil && o.ratioFlag.Changed
}

// stdinRatio is the expansion bound used for standard input when none is
// given: a stream from a pipe can't be inspected first. Real data stays
// far under it (a source tree's tar.gz 5:1, tar.xz and tar.zst 12:1, a
// 1 GiB ext4 image holding it as .gz 48:1), while a bomb passes it soon:
// deflate tops out near 1032:1, so the old 4096 never stopped a gzip of
// zeros; 256 stops 2 GiB of zeros in a 2 MB gzip after about 257 MiB
// (the input is read up to 1 MiB ahead of the decoder, which the ratio
// counts as read). No absolute cap is set: a large stream of real data is
// not a bomb, and --max-size is there for a budget.
const stdinRatio = 256

func addLimitFlags(cmd *cobra.Command, o *LimitOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.MaxSize, "max-size", "", "stop when an archive's output exceeds `SIZE` (exit 5)")
	fl.IntVar(&o.MaxEntries, "max-entries", 0, "stop after `N` entries of one archive (exit 5)")
	fl.Float64Var(&o.MaxRatio, "max-ratio", 0, fmt.Sprintf("stop when output exceeds `R` times the input read (default: off, %d for stdin; 0: off)", stdinRatio))
	o.ratioFlag = fl.Lookup("max-ratio")
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
			return nil, &FlagError{Err: fmt.Errorf("--max-size: %w", err)}
		}
		l.maxSize = n
	}
	if !o.ratioGiven() && stdin {
		l.maxRatio = stdinRatio
	}
	return l, nil
}

// The limit that stopped an archive; its error (also archive.ErrLimit)
// wraps one of these.
var (
	errMaxSize    = errors.New("--max-size")
	errMaxRatio   = errors.New("--max-ratio")
	errMaxEntries = errors.New("--max-entries")
)

// entry checks the entry count before the n-th entry (1-based).
func (l *limits) entry(n int) error {
	if l.maxEntries > 0 && n > l.maxEntries {
		return archive.Limitf("more than %d entries (%w)", l.maxEntries, errMaxEntries)
	}
	return nil
}

// ratioSlack lets small inputs expand freely: the ratio applies past it.
const ratioSlack = 1 << 20

// add counts n more bytes of output and checks the limits.
func (l *limits) add(n int64) error {
	total := l.out.Add(n)
	if l.maxSize > 0 && total > l.maxSize {
		return archive.Limitf("output exceeds %s (%w)", l.sizeText(), errMaxSize)
	}
	if l.maxRatio > 0 && total > ratioSlack {
		in := l.consumed()
		if in < 1 {
			in = 1
		}
		if float64(total-ratioSlack) > l.maxRatio*float64(in) {
			return archive.Limitf("output is more than %g times the input read (%w): a decompression bomb?", l.maxRatio, errMaxRatio)
		}
	}
	return nil
}

func (l *limits) sizeText() string { return archive.SizeText(l.maxSize) }
