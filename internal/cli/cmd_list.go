package cli

import (
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/formats"
	"github.com/unpack-dev/unpack/internal/termtext"
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
		var t *listTable
		if !o.JSON {
			t = &listTable{w: f.Out}
			t.add(listRow{cells: [listCols]string{"Modified", "Mode", "Size", "Packed", "Ratio", "Method", "Check"}, name: "Name"})
		}
		var files, dirs int
		var size, packed int64
		comment, commentShown := "", false
		showComment := func() {
			if o.Verbose && comment != "" && !commentShown {
				commentShown = true
				t.printComment(path, comment)
			}
		}
		r.each(path, formats.OpenOptions{Format: archive.Format(o.Format), Listing: true}, false,
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
				if t == nil {
					return nil
				}
				name := termtext.Escape(e.Name)
				if e.Linkname != "" && !e.Copy {
					name += " -> " + termtext.Escape(e.Linkname)
				}
				if e.Encrypted {
					name = "*" + name
				}
				mt := ""
				if !e.ModTime.IsZero() {
					mt = e.ModTime.Local().Format("2006-01-02 15:04:05")
				}
				if t.full() {
					showComment() // before the first rows, as soon as it is known
				}
				t.add(listRow{cells: [listCols]string{mt, modeString(e), num(e.Size), num(e.PackedSize),
					ratio(e.PackedSize, e.Size), termtext.Escape(e.Method), checkText(e)}, name: name})
				if o.Verbose && e.Comment != "" {
					t.add(listRow{name: "  comment: " + termtext.Escape(oneLine(e.Comment))})
				}
				return nil
			}, nil)
		if t != nil && r.opened {
			if packed < 0 {
				packed = -1
			}
			if !t.streaming {
				showComment()
			}
			t.add(listRow{cells: [listCols]string{2: num(size), 3: num(packed), 4: ratio(packed, size)},
				name: fmt.Sprintf("%d files, %d folders", files, dirs)})
			t.flush()
			showComment() // known only once the rows were out
		}
	}
	if r.code != ExitOK {
		return &codeError{r.code}
	}
	return nil
}

// listCols is the number of right-aligned columns before the name.
const listCols = 7

// listRow is one line of the listing: the right-aligned cells, then the
// name (escaped), left-aligned and last.
type listRow struct {
	cells [listCols]string
	name  string
}

// The listing holds its first rows to size the columns, then streams: its
// memory is bounded whatever the number of entries (a listing held whole
// took gigabytes for 100k long names). Rows past the prefix that are
// wider than their column push only their own line.
const (
	listHoldRows  = 1000
	listHoldBytes = 1 << 20
)

// listTable writes a listing's rows with columns right-aligned, two
// spaces apart, as text/tabwriter would for the rows it has seen.
type listTable struct {
	w         io.Writer
	held      []listRow
	heldBytes int
	width     [listCols]int
	streaming bool // the widths are fixed, rows are written as they come
	line      []byte
}

// full reports whether the next row would make the table stream.
func (t *listTable) full() bool {
	return !t.streaming && (len(t.held) >= listHoldRows || t.heldBytes >= listHoldBytes)
}

func (t *listTable) add(row listRow) {
	if t.streaming {
		t.write(row)
		return
	}
	if t.full() {
		t.flush()
		t.streaming = true
		t.write(row)
		return
	}
	for i, c := range row.cells {
		t.width[i] = max(t.width[i], utf8.RuneCountInString(c))
	}
	t.held = append(t.held, row)
	t.heldBytes += len(row.name)
}

// flush writes the rows held.
func (t *listTable) flush() {
	for _, row := range t.held {
		t.write(row)
	}
	t.held, t.heldBytes = nil, 0
}

func (t *listTable) write(row listRow) {
	l := t.line[:0]
	for i, c := range row.cells {
		pad := max(t.width[i]-utf8.RuneCountInString(c), 0) + 2
		for ; pad > 0; pad-- {
			l = append(l, ' ')
		}
		l = append(l, c...)
	}
	l = append(l, ' ')
	l = append(l, row.name...)
	l = append(l, '\n')
	t.line = l
	t.w.Write(l)
}

// printComment writes an archive's comment, each line escaped and marked
// so that no line of it can pass for a row of the listing.
func (t *listTable) printComment(path, comment string) {
	fmt.Fprintf(t.w, "%s: comment:\n", termtext.Escape(path))
	for _, line := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
		fmt.Fprintf(t.w, "  | %s\n", termtext.Escape(strings.TrimSuffix(line, "\r")))
	}
}

// modeString is the entry's type and permissions as tar -tv shows them:
// d directory, l symlink, h hard link, p FIFO, c and b devices, s socket,
// ? another kind; setuid, setgid and sticky as s/S and t/T.
func modeString(e *archive.Entry) string {
	var b [10]byte
	b[0] = '-'
	switch e.Type {
	case archive.TypeDir:
		b[0] = 'd'
	case archive.TypeSymlink:
		b[0] = 'l'
	case archive.TypeHardlink:
		if !e.Copy { // a copy is a file of its own
			b[0] = 'h'
		}
	case archive.TypeOther:
		b[0] = deviceLetter(e.Device)
	}
	const rwx = "rwxrwxrwx"
	m := e.Mode
	for i := range 9 {
		b[1+i] = '-'
		if m&(1<<(8-i)) != 0 {
			b[1+i] = rwx[i]
		}
	}
	setBit := func(i int, on bool, c byte) {
		if !on {
			return
		}
		if b[i] == '-' {
			b[i] = c - 'a' + 'A'
		} else {
			b[i] = c
		}
	}
	setBit(3, m&fs.ModeSetuid != 0, 's')
	setBit(6, m&fs.ModeSetgid != 0, 's')
	setBit(9, m&fs.ModeSticky != 0, 't')
	return string(b[:])
}

// deviceLetter is the type letter for an entry of TypeOther, from the
// formats' Device text ("character device", "char device", "FIFO"…).
func deviceLetter(device string) byte {
	d := strings.ToLower(device)
	switch {
	case strings.Contains(d, "char"):
		return 'c'
	case strings.Contains(d, "block"):
		return 'b'
	case strings.Contains(d, "fifo"), strings.Contains(d, "pipe"):
		return 'p'
	case strings.Contains(d, "socket"):
		return 's'
	}
	return '?'
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
