package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/extract"
	"github.com/unpack-dev/unpack/internal/formats"
	"github.com/unpack-dev/unpack/internal/hugemem"
	"github.com/unpack-dev/unpack/internal/osnames"
	"github.com/unpack-dev/unpack/internal/quarantine"
	"github.com/unpack-dev/unpack/internal/termtext"
)

// ExtractOptions are the flags of `unpack x`.
type ExtractOptions struct {
	CommonOptions
	Output       string
	Stdout       bool
	Overwrite    bool
	SkipExisting bool
	KeepBroken   bool
	KeepSetID    bool
	NoTimes      bool
	StoredName   bool
	ToTar        bool
	// AllowOutsideLinks creates symlinks whose targets leave the
	// destination (never writing through them).
	AllowOutsideLinks bool
	Archives          []string
}

// NewCmdExtract builds `unpack x|extract`. runF replaces the action in tests.
func NewCmdExtract(f *Factory, runF func(*ExtractOptions) error) *cobra.Command {
	o := &ExtractOptions{}
	cmd := &cobra.Command{
		Use:     "x ARCHIVE... [-- NAME...]",
		Aliases: []string{"extract"},
		Short:   "Extract archives (format found by magic bytes), verifying every checksum",
		Long: `Extract each ARCHIVE ("-" reads standard input, which need not be seekable).

Without -o, an archive whose entries share one top-level item extracts into the
current directory; otherwise into a new folder named after the archive (like
unar). A compressed stream holding a tar is extracted as the tar.

Every file is written under a temporary name (unnamed on Linux where it can be)
and put in place only after its checksum passed: a failed entry leaves nothing behind (unless --keep-broken).
Into a new or empty directory, files are written in a hidden stage there
(.unpack-stage-*), a failed one removed, and the stage's items moved into the
directory at the end, never replacing a name that appeared meanwhile.
Entries whose path would leave the destination (absolute, "..", through a
symlink) are refused; the others still extract. Existing files are never
replaced silently: choose --overwrite or --skip-existing. --to-tar holds its
stream to the same rules for the tar reader on the other side.

Limits stop an archive with exit 5: --max-size, --max-entries, --max-ratio.
From standard input --max-ratio is 256 unless given (real data stays far
below: a source tree's tar.gz is 5:1; deflate reaches 1032:1 on zeros);
--max-ratio 0 turns it off. Temporary copies (a zip, 7z, ISO, squashfs,
CAB, CHM, MSI/OLE or WIM read from a pipe, which is then read as the file
would be; a RAR 5 read from a pipe with -c or --to-tar, whose file copies
are decoded again from it; a --to-tar entry of unknown size) are bounded by --max-size and leave 5% of $TMPDIR's file
system (at least 64 MiB) free.

` + exitStatusHelp,
		Example: `  unpack x archive.tar.xz -o out/                  # into out/ (created when missing)
  unpack x -c big.tar.zst | tar x                   # the decompressed tar to stdout
  curl -sL URL | unpack x - -o out/                 # a non-seekable stdin
  unpack x --to-tar backup.rar | tar t              # any archive as a pax tar stream
  unpack x a.zip --password-file pws.txt -o out/    # try candidates, one per line
  unpack x -p a.7z                                  # ask for the password on the terminal
  unpack x src.tar.gz --strip-components 1 --include '*.go' -o src/`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Archives, o.Names, err = readArgs(cmd, args, &o.SelectOptions); err != nil {
				return err
			}
			if o.ToTar && (o.Stdout || o.Output != "") {
				return &FlagError{Err: fmt.Errorf("--to-tar writes to stdout: it excludes -c and -o")}
			}
			if o.Overwrite && o.SkipExisting {
				return &FlagError{Err: fmt.Errorf("--overwrite and --skip-existing exclude each other")}
			}
			if runF != nil {
				return runF(o)
			}
			return runExtract(f, o)
		},
	}
	addCommonFlags(cmd, &o.CommonOptions)
	addSelectFlags(cmd, &o.SelectOptions, true)
	fl := cmd.Flags()
	fl.StringVarP(&o.Output, "output", "o", "", "extract into `DIR` (created when missing)")
	fl.BoolVarP(&o.Stdout, "stdout", "c", false, "write to stdout: a compressed stream's bytes, or the files' contents in order")
	fl.BoolVar(&o.Overwrite, "overwrite", false, "replace existing files")
	fl.BoolVar(&o.SkipExisting, "skip-existing", false, "keep existing files, skip those entries")
	fl.BoolVar(&o.KeepBroken, "keep-broken", false, "keep files whose data failed verification, as NAME.broken")
	fl.BoolVar(&o.KeepSetID, "keep-setid", false, "keep setuid/setgid bits")
	fl.BoolVar(&o.NoTimes, "no-times", false, "do not restore modification times")
	fl.BoolVar(&o.AllowOutsideLinks, "allow-outside-links", false, "create symlinks whose targets leave the destination, as stored (nothing is written through them)")
	fl.BoolVar(&o.ToTar, "to-tar", false, "write the entries as a POSIX pax tar stream to stdout (any format to tar)")
	fl.BoolVarP(&o.StoredName, "name", "N", false, "name a gzip file's output by the name stored in it (gunzip -N)")
	return cmd
}

// splitNames separates archives from the member names given after "--".
func splitNames(cmd *cobra.Command, args []string) (archives, names []string) {
	if i := cmd.ArgsLenAtDash(); i >= 0 {
		return args[:i], args[i:]
	}
	return args, nil
}

// readArgs takes the arguments of a command that reads archives: the
// archives, and the member names after "--", with the checks all such
// commands make (the selection flags, standard input named once).
func readArgs(cmd *cobra.Command, args []string, sel *SelectOptions) (archives, names []string, err error) {
	archives, names = splitNames(cmd, args)
	if err := sel.validate(); err != nil {
		return nil, nil, err
	}
	if err := oneStdin(archives); err != nil {
		return nil, nil, err
	}
	return archives, names, nil
}

func oneStdin(args []string) error {
	n := 0
	for _, a := range args {
		if a == "-" {
			n++
		}
	}
	if n > 1 {
		return &FlagError{Err: fmt.Errorf("standard input (-) can be read only once")}
	}
	return nil
}

// writeBuffer is the bound on the bytes of held files buffered for the
// directory sink's writers: an eighth of --memlimit, from 1 to 16 MiB.
func writeBuffer(memLimit int64) int64 {
	return min(max(memLimit/8, 1<<20), 16<<20)
}

// settleAll settles held entries through the sink, all at once when it
// can (extract.Dir commits independent files in parallel).
func settleAll(sink extract.Sink, vs []archive.Verdict) []error {
	if s, ok := sink.(interface {
		SettleAll([]archive.Verdict) []error
	}); ok {
		return s.SettleAll(vs)
	}
	errs := make([]error, len(vs))
	for i, v := range vs {
		errs[i] = sink.Settle(v.Entry, v.Err)
	}
	return errs
}

// abortable is a sink whose files in flight can be removed on interrupt.
type abortable interface{ Abort() }

func runExtract(f *Factory, o *ExtractOptions) error {
	r, err := newRunner(f, &o.CommonOptions)
	if err != nil {
		return err
	}
	// Standard output and a tar stream cannot copy a file they wrote: a
	// RAR 5 file copy read from a pipe is decoded again from a spool.
	r.opt.CopySources = o.Stdout || o.ToTar
	if o.Stdout || o.ToTar {
		switch o.Threads {
		case 1:
			f.singleThread()
		case 0:
			f.mayGovern()
		}
	}
	if !o.Stdout && !o.ToTar {
		f.handleInterrupts() // before a stage or a file is made
		if n := heapReserve(o.Archives); n > 0 {
			hugemem.Heap(n) // the records of many files
		}
	}
	for _, path := range o.Archives {
		sink, finish, err := extractSink(f, o, path, writeBuffer(r.opt.MemLimit), func(entry, msg string) { r.warn(path, entry, msg) })
		if err != nil {
			r.problem(path, "", err)
			continue
		}
		w := &wrapUp{sink: sink, finish: finish}
		remove := f.onInterrupt(w.interrupt)
		// laidOut maps a Pending entry as read to the entry the sink holds
		// when layout may rename it (else it is the entry as read: the
		// verdicts are of entries put, see held). An entry with a Hold
		// needs none: its copy keeps the Hold its verdict names.
		renames := o.renames()
		laidOut := map[*archive.Entry]*archive.Entry{}
		var inline sync.Once
		r.each(path, formats.OpenOptions{Format: archive.Format(o.Format), Raw: o.Stdout, StoredName: o.StoredName}, !o.Stdout && !o.ToTar,
			func(a *formats.Archive, e *archive.Entry, data io.Reader) error {
				read := e
				if e = o.layout(e); e == nil {
					return nil
				}
				if o.Verbose {
					r.aside(func() { fmt.Fprintln(f.ErrOut, termtext.Escape(e.Name)) }) // one line at a time from the workers
				}
				if e.Pending && renames && e.Hold == 0 {
					laidOut[read] = e
				}
				inline.Do(func() { writeHeldInline(sink, a) })
				return sink.Put(e, data)
			},
			func(vs []archive.Verdict) []error {
				if !renames {
					return settleAll(sink, vs)
				}
				errs := make([]error, len(vs))
				var todo []archive.Verdict
				var at []int
				for i, v := range vs {
					if v.Hold != 0 {
						todo, at = append(todo, v), append(at, i)
						continue
					}
					held, ok := laidOut[v.Entry]
					if !ok {
						errs[i] = v.Err // skipped by layout: nothing was written
						continue
					}
					delete(laidOut, v.Entry)
					todo, at = append(todo, archive.Verdict{Entry: held, Err: v.Err}), append(at, i)
				}
				for k, err := range settleAll(sink, todo) {
					errs[at[k]] = err
				}
				return errs
			})
		if s, ok := sink.(interface{ Stripped() int64 }); ok && s.Stripped() > 0 {
			r.tolerate(path, archive.WarnAbsoluteName, fmt.Sprintf("removed a leading \"/\" or drive letter from %d member names", s.Stripped()))
		}
		closeErr, finishErr := w.run()
		if closeErr != nil {
			r.problem(path, "", closeErr)
		}
		if finishErr != nil {
			r.problem(path, "", finishErr)
		}
		remove()
	}
	if f.Context.Err() != nil {
		fmt.Fprintln(f.ErrOut, "unpack: interrupted")
		return &codeError{ExitInterrupted}
	}
	if r.code != ExitOK {
		return &codeError{r.code}
	}
	return nil
}

// wrapUp closes a sink and runs its finish (the move out of a stage) once,
// whichever comes first of the extraction's end and an interrupt; the
// other waits for it, so an interrupt during the final move lets the move
// complete instead of running a second one beside it.
type wrapUp struct {
	sink   extract.Sink
	finish func() error // nil: nothing to move

	mu                  sync.Mutex
	done                bool
	closeErr, finishErr error
}

func (w *wrapUp) run() (closeErr, finishErr error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.done = true
		w.closeErr = w.sink.Close()
		if w.finish != nil {
			w.finishErr = w.finish()
		}
	}
	return w.closeErr, w.finishErr
}

// interrupt removes what is in flight, unless the sink is already
// closed; from a stage, the completed files then go into place.
func (w *wrapUp) interrupt() {
	w.mu.Lock()
	if a, ok := w.sink.(abortable); ok && !w.done {
		a.Abort()
	}
	w.mu.Unlock()
	if w.finish != nil {
		w.run()
	}
}

// writeHeldInline tells a directory sink to write the held files of a tar
// whose stream is decoded on a goroutine of its own, ahead of the entries
// (formats' DecodedAhead: a tar.zst or tar.gz, unless --threads 1 or one
// core), itself and with one writer, directory by directory: the pool's
// several writers would only compete with the decoder (measured in
// docs/BENCHMARKS.md, sessions 14, 15 and 16). Else a tar.gz's held
// files, decoded on the reading goroutine, go through the pool.
func writeHeldInline(sink extract.Sink, a *formats.Archive) {
	if !a.Tar || !a.DecodedAhead() {
		return
	}
	if d, ok := sink.(interface{ WriteHeldInline() }); ok {
		d.WriteHeldInline()
	}
}

// The heap's growth an extraction puts on huge pages (hugemem.Heap): the
// archives' size, within these bounds (minHeapReserve is about what the
// records of 100k small files from a tar take).
const (
	minHeapReserve = 64 << 20
	maxHeapReserve = 256 << 20
)

// largeArchive is the size from which an extraction's heap is put on huge
// pages: a smaller archive has too few entries to keep records of.
const largeArchive = 16 << 20

// heapReserve returns how much of the heap's growth to put on huge pages
// for extracting the archives at paths: their total size (standard input,
// of unknown size, counted as minHeapReserve) within minHeapReserve and
// maxHeapReserve, or 0 under largeArchive.
func heapReserve(paths []string) int {
	var total int64
	for _, p := range paths {
		if p == "-" {
			total += minHeapReserve
		} else if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
		}
	}
	if total < largeArchive {
		return 0
	}
	return int(min(max(total, minHeapReserve), maxHeapReserve))
}

// extractSink chooses where path's entries go. The finish function, when
// not nil, moves a staged extraction into place.
func extractSink(f *Factory, o *ExtractOptions, path string, buffer int64, warn func(entry, msg string)) (extract.Sink, func() error, error) {
	if o.Stdout {
		return extract.Stdout{W: f.Out}, nil, nil
	}
	if o.ToTar {
		return extract.NewTar(f.Out, extract.TarOptions{KeepSetID: o.KeepSetID}), nil, nil
	}
	dopt := extract.DirOptions{KeepSetID: o.KeepSetID, KeepBroken: o.KeepBroken, NoTimes: o.NoTimes,
		AllowOutsideLinks: o.AllowOutsideLinks, Names: osnames.Default(), Warn: warn, Buffer: buffer}
	if path != "-" {
		dopt.Quarantine, _ = quarantine.Of(path)
	}
	switch {
	case o.Overwrite:
		dopt.Policy = extract.Overwrite
	case o.SkipExisting:
		dopt.Policy = extract.Skip
	}
	if o.Output != "" {
		// Into a new or empty directory through a stage in it: files are
		// created under their own names there (see extract.DirOptions).
		if stage := newStage(o.Output); stage != "" {
			sopt := dopt
			sopt.Staged = true
			if d, err := extract.NewDir(stage, sopt); err == nil {
				return d, func() error { return moveOut(stage, o.Output) }, nil
			}
			os.Remove(stage)
		}
		d, err := extract.NewDir(o.Output, dopt)
		return d, nil, err
	}
	// Stage in a hidden folder, then move its one top-level item into the
	// current directory, or the folder itself under the archive's name.
	stage, err := os.MkdirTemp(".", ".unpack-stage-")
	if err != nil {
		return nil, nil, err
	}
	dopt.Staged = true
	d, err := extract.NewDir(stage, dopt)
	if err != nil {
		os.Remove(stage)
		return nil, nil, err
	}
	return d, func() error { return unstage(f, o, stage, path) }, nil
}

func unstage(f *Factory, o *ExtractOptions, stage, path string) error {
	items, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	switch {
	case len(items) == 0:
		return os.Remove(stage)
	case len(items) == 1:
		name := items[0].Name()
		switch err := moveItem(filepath.Join(stage, name), name); {
		case err == nil:
			return os.Remove(stage)
		case !errors.Is(err, fs.ErrExist):
			return err
		}
		if o.Overwrite && !items[0].IsDir() {
			if fi, err := os.Lstat(name); err == nil && !fi.IsDir() {
				if err := os.Rename(filepath.Join(stage, name), name); err != nil {
					return err
				}
				return os.Remove(stage)
			}
		}
	}
	dest := freeName(archive.Stem(path))
	for err := moveItem(stage, dest); err != nil; err = moveItem(stage, dest) {
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		dest = freeName(archive.Stem(path)) // taken meanwhile
	}
	if len(items) == 1 && !o.Quiet {
		fmt.Fprintf(f.ErrOut, "unpack: %s: %s exists; extracted into %s/\n", termtext.Escape(path), termtext.Escape(items[0].Name()), termtext.Escape(dest))
	}
	return nil
}

// freeName returns base, or base-1, base-2… whichever does not exist.
func freeName(base string) string {
	name := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(name); os.IsNotExist(err) {
			return name
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
}

// newStage makes a hidden stage in dest, made if missing, when dest is
// new or empty, and returns its path; "" when dest holds anything or the
// stage cannot be made (the ordinary way then). Nothing but this
// extraction writes in the stage (mode 0700, a random name).
func newStage(dest string) string {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return ""
	}
	f, err := os.Open(dest)
	if err != nil {
		return ""
	}
	_, err = f.Readdirnames(1)
	f.Close()
	if err != io.EOF {
		return ""
	}
	stage, err := os.MkdirTemp(dest, ".unpack-stage-")
	if err != nil {
		return ""
	}
	return stage
}

// moveOut moves the top-level items of stage into dest, never replacing
// a name: an item whose name appeared in dest during the extraction stays
// in the stage, and the error names it. The stage is removed once empty.
func moveOut(stage, dest string) error {
	if testBeforeMoveOut != nil {
		testBeforeMoveOut(stage, dest)
	}
	items, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	var left []string
	for _, it := range items {
		n := it.Name()
		if err := moveItem(filepath.Join(stage, n), filepath.Join(dest, n)); err != nil {
			if !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%w (what is not moved is left in %s)", err, termtext.Escape(stage))
			}
			left = append(left, termtext.Escape(n))
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("not replaced: %s appeared in %s during the extraction; the extracted ones are left in %s",
			strings.Join(left, ", "), termtext.Escape(dest), termtext.Escape(stage))
	}
	return os.Remove(stage)
}

// testBeforeMoveOut, when set, is called before a stage is moved out (the
// tests' changes to the destination meanwhile).
var testBeforeMoveOut func(stage, dest string)

// moveItem renames old to new unless new exists (fs.ErrExist). A
// directory without write permission for its owner (needed to move it
// into another directory) gets it for the move.
func moveItem(old, new string) error {
	err := renameNoReplace(old, new)
	if !errors.Is(err, fs.ErrPermission) {
		return err
	}
	fi, serr := os.Lstat(old)
	if serr != nil || !fi.IsDir() || fi.Mode()&0o200 != 0 {
		return err
	}
	mode := fi.Mode() & (fs.ModePerm | fs.ModeSticky | fs.ModeSetgid)
	if os.Chmod(old, mode|0o200) != nil {
		return err
	}
	if err := renameNoReplace(old, new); err != nil {
		os.Chmod(old, mode)
		return err
	}
	return os.Chmod(new, mode)
}
