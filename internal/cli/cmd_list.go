package cli

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/formats"
	"github.com/unpack-dev/unpack/internal/verify"
)

// ListOptions are the flags of `unpack l`.
type ListOptions struct {
	CommonOptions
	Archives []string
}

// NewCmdList builds `unpack l|list`.
func NewCmdList(f *Factory, runF func(*ListOptions) error) *cobra.Command {
	o := &ListOptions{}
	cmd := &cobra.Command{
		Use:     "l ARCHIVE... [-- NAME...]",
		Aliases: []string{"list"},
		Short:   "List the entries of archives",
		Long: `List each ARCHIVE's entries: modification time, mode, size, packed size,
method, checksum kind and name, with totals. With --json, one JSON object per
entry and a summary per archive. A compressed stream is listed as its one
entry (or, when it holds a tar, as the tar's entries).

` + exitStatusHelp,
		Example: `  unpack l archive.7z                  # sizes, ratio, method, check, time, name; totals
  unpack l -v archive.rar              # with comments and per-entry details
  unpack l --json archive.zip          # one JSON object per entry
  unpack l --include '*.txt' a.tar.gz  # only some entries`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Archives, o.Names = splitNames(cmd, args)
			if err := o.SelectOptions.validate(); err != nil {
				return err
			}
			if err := oneStdin(o.Archives); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runList(f, o)
		},
	}
	addCommonFlags(cmd, &o.CommonOptions)
	addSelectFlags(cmd, &o.SelectOptions, false)
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print one JSON object per entry and a summary (JSON Lines)")
	return cmd
}

func runList(f *Factory, o *ListOptions) error {
	r, err := newRunner(f, &o.CommonOptions)
	if err != nil {
		return err
	}
	for _, path := range o.Archives {
		var tw *tabwriter.Writer
		var files, dirs int
		var size, packed int64
		var table bytes.Buffer
		if !o.JSON {
			tw = tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "Modified\tMode\tSize\tPacked\tRatio\tMethod\tCheck\t Name\n")
		}
		var comment string
		r.each(path, formats.OpenOptions{Format: archive.Format(o.Format)}, false,
			func(a *formats.Archive, e *archive.Entry, _ io.Reader) error {
				if c, ok := a.Reader.(archive.Commenter); ok && comment == "" {
					comment = c.Comment()
				}
				if e.Type == archive.TypeDir {
					dirs++
				} else {
					files++
				}
				if e.Size > 0 {
					size += e.Size
				}
				if e.PackedSize >= 0 {
					packed += e.PackedSize
				} else {
					packed = -1 << 62 // unknown for some entry: no total
				}
				if tw != nil {
					name := e.Name
					if e.Linkname != "" {
						name += " -> " + e.Linkname
					}
					if e.Encrypted {
						name = "*" + name
					}
					mt := ""
					if !e.ModTime.IsZero() {
						mt = e.ModTime.Local().Format("2006-01-02 15:04:05")
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t %s\n", mt, modeString(e), num(e.Size), num(e.PackedSize),
						ratio(e.PackedSize, e.Size), e.Method, checkText(e), name)
					if o.Verbose && e.Comment != "" {
						fmt.Fprintf(tw, "\t\t\t\t\t\t\t   comment: %s\n", oneLine(e.Comment))
					}
				}
				return nil
			}, nil)
		if tw != nil && r.opened {
			if packed < 0 {
				packed = -1
			}
			fmt.Fprintf(tw, "\t\t%s\t%s\t%s\t\t\t %d files, %d folders\n", num(size), num(packed), ratio(packed, size), files, dirs)
			tw.Flush()
			if o.Verbose && comment != "" {
				fmt.Fprintf(f.Out, "%s: comment:\n%s\n", path, strings.TrimRight(comment, "\n"))
			}
			f.Out.Write(table.Bytes())
		}
	}
	if r.code != ExitOK {
		return &codeError{r.code}
	}
	return nil
}

func modeString(e *archive.Entry) string {
	m := e.Mode
	switch e.Type {
	case archive.TypeDir:
		m |= 1 << 31
	case archive.TypeSymlink:
		m |= 1 << 27
	}
	return m.String()
}

// ratio is packed/size as a percentage, or "" when either is unknown.
func ratio(packed, size int64) string {
	if packed < 0 || size <= 0 {
		return ""
	}
	return fmt.Sprintf("%d%%", packed*100/size)
}

// checkText is the check kind and the stored value, short ("CRC32:1a2b3c4d").
func checkText(e *archive.Entry) string {
	if e.Checksum == verify.None {
		return ""
	}
	if len(e.ChecksumValue) == 0 {
		return e.Checksum.String()
	}
	v := hex.EncodeToString(e.ChecksumValue)
	if len(v) > 16 {
		v = v[:16] + "…"
	}
	return e.Checksum.String() + ":" + v
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func num(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}
