package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/extract"
	"github.com/unpack-dev/unpack/internal/formats"
	"github.com/unpack-dev/unpack/internal/termtext"
)

// VerifyOptions are the flags of `unpack t`.
type VerifyOptions struct {
	CommonOptions
	Manifest bool   // print sha256sum lines
	Expect   string // compare against a sha256sum manifest
	Archives []string
}

// NewCmdVerify builds `unpack t|verify`.
func NewCmdVerify(f *Factory, runF func(*VerifyOptions) error) *cobra.Command {
	o := &VerifyOptions{}
	cmd := &cobra.Command{
		Use:     "t ARCHIVE... [-- NAME...]",
		Aliases: []string{"verify", "test"},
		Short:   "Verify archives: decode every entry and check every checksum, writing nothing",
		Long: `Verify each ARCHIVE ("-" reads standard input): every byte is decoded and every
checksum the format carries is checked; nothing is written. Problems are
reported one line each; the other entries are still checked where the format
allows. With --json, one JSON object per entry and a summary per archive.

` + exitStatusHelp,
		Example: `  unpack verify archive.rar --password           # ask for the password on the terminal
  unpack t --json backup.7z | jq .status         # one JSON object per entry, then a summary
  unpack t -p=one -p=two a.rar                   # candidates; the one accepted is named by number
  unpack t --manifest release.zip > SHA256SUMS   # sha256sum lines, same pass as the checks
  unpack t --expect SHA256SUMS release.zip       # report missing, extra and differing files`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Archives, o.Names, err = readArgs(cmd, args, &o.SelectOptions); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runVerify(f, o)
		},
	}
	addCommonFlags(cmd, &o.CommonOptions)
	addSelectFlags(cmd, &o.SelectOptions, false)
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print one JSON object per entry and a summary (JSON Lines)")
	cmd.Flags().BoolVar(&o.Manifest, "manifest", false, "print sha256sum-compatible lines for every file, computed in the same pass")
	cmd.Flags().StringVar(&o.Expect, "expect", "", "compare every file with a sha256sum manifest `FILE` (e.g. SHA256SUMS): report missing, extra and differing")
	return cmd
}

func runVerify(f *Factory, o *VerifyOptions) error {
	r, err := newRunner(f, &o.CommonOptions)
	if err != nil {
		return err
	}
	switch o.Threads {
	case 1:
		f.singleThread()
	case 0:
		f.mayGovern()
	}
	var expect map[string]string
	if o.Expect != "" {
		if expect, err = readManifest(o.Expect); err != nil {
			return err
		}
	}
	// say prints an entry's outcome with -v.
	say := func(e *archive.Entry, err error) {
		if !o.Verbose || o.JSON {
			return
		}
		st := "OK"
		if err != nil {
			st = "FAILED"
		}
		r.aside(func() { fmt.Fprintf(f.Out, "%-6s %s\n", st, termtext.Escape(e.Name)) }) // one line at a time from the workers
	}
	for _, path := range o.Archives {
		if o.Manifest || expect != nil {
			r.sums = &sumBook{m: map[string]string{}}
		}
		// Without hashes or a line per entry, the data only pass through.
		r.discardRuns = r.sums == nil && !o.Verbose
		code := r.each(path, formats.OpenOptions{Format: archive.Format(o.Format)}, true,
			func(a *formats.Archive, e *archive.Entry, data io.Reader) error {
				err := extract.Discard{}.Put(e, r.sums.hashing(e.Name, data))
				if e.Type == archive.TypeHardlink {
					r.sums.link(e.Name, e.Linkname) // the same bytes as its target
				}
				if !e.Pending || err != nil {
					say(e, err)
				}
				return err
			}, func(vs []archive.Verdict) []error {
				errs := make([]error, len(vs))
				for i, v := range vs {
					say(v.Entry, v.Err) // a held entry's line waits for its verdict
					errs[i] = v.Err
				}
				return errs
			})
		if o.Manifest {
			printManifest(f.Out, r.sums.all())
		}
		if expect != nil {
			r.compareManifest(path, expect)
			code = worse(code, r.code)
		}
		if !o.Quiet && !o.JSON && !o.Manifest {
			if code == ExitOK {
				fmt.Fprintf(f.Out, "%s: %d entries, %s, all OK\n", termtext.Escape(path), r.entries, archive.SizeText(r.bytes))
			} else if r.entries > 0 {
				fmt.Fprintf(f.Out, "%s: %d entries, %d failed\n", termtext.Escape(path), r.entries, r.failed)
			}
		}
	}
	if f.Context.Err() != nil {
		return &codeError{ExitInterrupted}
	}
	if r.code != ExitOK {
		return &codeError{r.code}
	}
	return nil
}
