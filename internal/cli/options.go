package cli

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/formats"
)

// promptMarker is the value of a bare --password: ask on the terminal.
const promptMarker = "\x00prompt"

// CommonOptions are the flags every reading command takes.
type CommonOptions struct {
	Format       string
	Passwords    []string
	PasswordFile string
	MemLimit     string
	Threads      int
	Image        int
	Quiet        bool
	Verbose      bool
	Strict       bool
	JSON         bool
	LimitOptions
	SelectOptions
}

func addCommonFlags(cmd *cobra.Command, o *CommonOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.Format, "format", "", "read as this format instead of detecting it (xz, lzma, lzip, gzip, bzip2, zstd, lz4, brotli, tar, zip, rar4, rar5, 7z)")
	// The empty back-quotes name no value: help shows "-p, --password[=PW]".
	fl.VarP(newStrings(&o.Passwords), "password", "p", "password, given as -p=PW or --password=PW; a bare -p or --password asks on the terminal; repeat to try several candidates``")
	fl.Lookup("password").NoOptDefVal = promptMarker
	fl.StringVar(&o.PasswordFile, "password-file", "", "read candidate passwords from `FILE`, one per line")
	fl.StringVar(&o.MemLimit, "memlimit", "1GiB", "refuse dictionaries and windows larger than `SIZE` (e.g. 512MiB, 4GiB)")
	fl.IntVar(&o.Threads, "threads", 0, "decoder threads (0: all cores)")
	fl.IntVar(&o.Image, "image", 0, "WIM: read only image `N` (default: all, each in a folder N/ when there are several)")
	fl.BoolVarP(&o.Quiet, "quiet", "q", false, "print nothing but errors")
	fl.BoolVarP(&o.Verbose, "verbose", "v", false, "name each entry as it is processed")
	fl.BoolVar(&o.Strict, "strict", false, "fail (exit 3) on what other tools read with a warning: trailing data, a lone zero block, ignored pax records, stripped absolute names, a zip without its central directory")
	addLimitFlags(cmd, &o.LimitOptions)
}

// archiveOptions turns the flags into what formats take.
func (o *CommonOptions) archiveOptions(f *Factory) (*archive.Options, error) {
	limit, err := parseSize(o.MemLimit)
	if err != nil {
		return nil, &FlagError{Err: fmt.Errorf("--memlimit: %w", err)}
	}
	limit = min(limit, maxMemLimit)
	if o.Format != "" && !knownFormat(archive.Format(o.Format)) {
		return nil, &FlagError{Err: fmt.Errorf("--format: unknown format %q", o.Format)}
	}
	opt := &archive.Options{MemLimit: limit, Threads: o.Threads, Image: o.Image}
	if o.MaxSize != "" {
		// A spool of the input (7z from a pipe) is bounded as the output.
		if opt.SpoolLimit, err = parseSize(o.MaxSize); err != nil {
			return nil, &FlagError{Err: fmt.Errorf("--max-size: %w", err)}
		}
	}
	prompt := false
	for _, p := range o.Passwords {
		if p == promptMarker {
			prompt = true
			continue
		}
		opt.Passwords = append(opt.Passwords, p)
	}
	if o.PasswordFile != "" {
		pw, err := readPasswordFile(o.PasswordFile)
		if err != nil {
			return nil, err
		}
		opt.Passwords = append(opt.Passwords, pw...)
	}
	if env := f.Getenv("UNPACK_PASSWORD"); env != "" && len(opt.Passwords) == 0 {
		opt.Passwords = []string{env}
	}
	if prompt || len(opt.Passwords) == 0 {
		// Ask only when a format finds it needs a password.
		if f.Prompt != nil {
			opt.PasswordFunc = func() (string, error) {
				pw, err := f.Prompt("Password: ")
				if err != nil {
					return "", fmt.Errorf("%w (%v)", archive.ErrNeedPassword, err)
				}
				return pw, nil
			}
		}
	}
	return opt, nil
}

func knownFormat(f archive.Format) bool {
	for _, k := range formats.All() {
		if k == f {
			return true
		}
	}
	return false
}

func readPasswordFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line != "" {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

// terminalPrompt asks for a password on the controlling terminal, without
// echo; the terminal is restored even when f is interrupted meanwhile. It
// fails when there is no terminal.
func (f *Factory) terminalPrompt(prompt string) (string, error) {
	f.handleInterrupts() // the terminal's echo is turned off
	return askSecret(prompt, f.onInterrupt)
}

// maxMemLimit is the largest --memlimit that takes effect: a larger value
// acts as it. Real dictionaries stay far below (RAR 7 asks at most 64 GiB,
// xz 4 GiB), some decoders refuse a bound past their own maximum (zstd's
// 3.75 TiB, which made "--memlimit 100T" an exit 3), and a 32-bit process
// cannot address more than math.MaxInt anyway.
const maxMemLimit = min(1<<40, math.MaxInt)

// errNoTerminal: a password was to be asked for and there is no terminal.
var errNoTerminal = errors.New("no terminal to ask for a password")

// errSizeRange is a size past int64.
var errSizeRange = errors.New("too large")

// parseSize reads "123", "64K", "512MiB", "1.5G" (powers of 1024). A size
// that does not fit in an int64 is an error.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty size")
	}
	mult := int64(1)
	low := strings.ToLower(s)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1}} {
		if strings.HasSuffix(low, u.suffix) {
			mult = u.m
			low = strings.TrimSpace(strings.TrimSuffix(low, u.suffix))
			break
		}
	}
	v, err := strconv.ParseFloat(low, 64)
	if err != nil || v < 0 || math.IsNaN(v) {
		return 0, fmt.Errorf("bad size %q", s)
	}
	// 2^63 is the first float64 past MaxInt64: converting it or more to
	// int64 is undefined.
	if n := v * float64(mult); n < 1<<63 {
		return int64(n), nil
	}
	return 0, fmt.Errorf("size %q is %w", s, errSizeRange)
}

// stringsValue is a repeatable string flag whose values are kept as given,
// like pflag's StringArray, whose String (called once per flag, at every
// start, for the help's default) formats through a CSV writer with a 4 KiB
// buffer.
type stringsValue struct {
	p   *[]string
	set bool
}

func newStrings(p *[]string) *stringsValue { return &stringsValue{p: p} }

func (s *stringsValue) Set(v string) error {
	if !s.set {
		*s.p, s.set = nil, true
	}
	*s.p = append(*s.p, v)
	return nil
}

// Type names the value as pflag's StringArray does, for the help.
func (s *stringsValue) Type() string { return "stringArray" }

// String is empty without values, which the help takes for no default.
func (s *stringsValue) String() string {
	if len(*s.p) == 0 {
		return ""
	}
	return "[" + strings.Join(*s.p, ",") + "]"
}
