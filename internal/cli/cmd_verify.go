package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/extract"
	"github.com/unpack-dev/unpack/internal/formats"
)

// VerifyOptions are the flags of `unpack t`.
type VerifyOptions struct {
	CommonOptions
	Archives []string
}

// NewCmdVerify builds `unpack t|verify`.
func NewCmdVerify(f *Factory, runF func(*VerifyOptions) error) *cobra.Command {
	o := &VerifyOptions{}
	cmd := &cobra.Command{
		Use:     "t ARCHIVE...",
		Aliases: []string{"verify", "test"},
		Short:   "Verify archives: decode every entry and check every checksum, writing nothing",
		Long: `Verify each ARCHIVE ("-" reads standard input): every byte is decoded and every
checksum the format carries is checked; nothing is written. Problems are
reported one line each; the other entries are still checked where the format
allows. With --json, one JSON object per entry and a summary per archive.

` + exitStatusHelp,
		Example: `  unpack verify archive.rar --password
  unpack t --json backup.7z | jq .status`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Archives = args
			if err := oneStdin(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runVerify(f, o)
		},
	}
	addCommonFlags(cmd, &o.CommonOptions)
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print one JSON object per entry and a summary (JSON Lines)")
	return cmd
}

func runVerify(f *Factory, o *VerifyOptions) error {
	r, err := newRunner(f, &o.CommonOptions)
	if err != nil {
		return err
	}
	for _, path := range o.Archives {
		code := r.each(path, formats.OpenOptions{Format: archive.Format(o.Format)}, true,
			func(a *formats.Archive, e *archive.Entry, data io.Reader) error {
				err := extract.Discard{}.Put(e, data)
				if o.Verbose && !o.JSON {
					st := "OK"
					if err != nil {
						st = "FAILED"
					}
					fmt.Fprintf(f.Out, "%-6s %s\n", st, e.Name)
				}
				return err
			})
		if !o.Quiet && !o.JSON {
			if code == ExitOK {
				fmt.Fprintf(f.Out, "%s: %d entries, %s, all OK\n", path, r.entries, humanBytes(r.bytes))
			} else if r.entries > 0 {
				fmt.Fprintf(f.Out, "%s: %d entries, %d failed\n", path, r.entries, r.failed)
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

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
