package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/extract"
	"github.com/unpack-dev/unpack/internal/formats"
	"github.com/unpack-dev/unpack/internal/termtext"
)

// runner processes archives for one command and collects the exit code.
type runner struct {
	f    *Factory
	o    *CommonOptions
	opt  *archive.Options
	code ExitCode
	json *jsonOut // --json output, nil without
	archiveState
	out  atomic.Int64 // bytes of entry data read, all archives
	sums *sumBook     // SHA-256 of each entry's data, with --manifest/--expect
	// discardRuns: entry data are only read and discarded (t), so stored
	// files may be read in long runs of the archive (readStored).
	discardRuns bool
	pw          candidates // which password candidates passed, in the current archive
	screen
	warnMu sync.Mutex // guards archiveState.warnings and --strict's reports
}

// archiveState is what the runner knows of the archive being read; each
// archive starts from a new one.
type archiveState struct {
	entries, failed int
	bytes           int64
	opened          bool               // the archive was recognised and opened
	lim             *limits            // its limits
	current         string             // its path
	arch            *formats.Archive   // the archive, once open
	unverified      []string           // data decoded without its check
	warnings        []archive.WarnKind // the kinds of irregularity tolerated, each once
}

func newRunner(f *Factory, o *CommonOptions) (*runner, error) {
	opt, err := o.archiveOptions(f)
	if err != nil {
		return nil, err
	}
	r := &runner{f: f, o: o, opt: opt}
	opt.Warn = func(msg string) { r.warn(r.current, "", msg) }
	opt.Warning = func(kind archive.WarnKind, msg string) { r.tolerate(r.current, kind, msg) }
	opt.Unverified = func(msg string) { r.unverified = append(r.unverified, msg) }
	opt.PasswordAccepted = r.pw.accept
	if ask := opt.PasswordFunc; ask != nil {
		// Asked once for the whole run, however many formats and
		// goroutines need it; the prompt is not drawn over the bar.
		opt.PasswordFunc = sync.OnceValues(func() (pw string, err error) {
			r.aside(func() { pw, err = ask() })
			return pw, err
		})
	}
	if o.JSON {
		r.json = &jsonOut{enc: json.NewEncoder(&termtext.JSONWriter{W: f.Out})}
	}
	return r, nil
}

// problem reports one failure on stderr, "unpack: ARCHIVE: ENTRY: what",
// and folds its exit code in.
func (r *runner) problem(arch, entry string, err error) {
	r.code = worse(r.code, exitCodeOf(err))
	r.aside(func() {
		if r.f.reported != nil {
			r.f.reported(err)
		}
		// Escaped whole: the error's own text may quote a name or a link
		// target too.
		fmt.Fprintf(r.f.ErrOut, "unpack: %s\n", termtext.Escape((&archive.EntryError{Archive: arch, Entry: entry, Err: describe(err)}).Error()))
	})
}

// warn reports something that does not change the exit code.
func (r *runner) warn(arch, entry, msg string) {
	if r.o.Quiet {
		return
	}
	r.aside(func() {
		switch {
		case arch == "":
			fmt.Fprintf(r.f.ErrOut, "unpack: warning: %s\n", termtext.Escape(msg))
		case entry == "":
			fmt.Fprintf(r.f.ErrOut, "unpack: %s: warning: %s\n", termtext.Escape(arch), termtext.Escape(msg))
		default:
			fmt.Fprintf(r.f.ErrOut, "unpack: %s: %s: warning: %s\n", termtext.Escape(arch), termtext.Escape(entry), termtext.Escape(msg))
		}
	})
}

// tolerate reports an irregularity other tools read with a warning: once
// per archive and kind as a warning, or with --strict as a failure (exit
// 3) each time. Readers may call it from several goroutines.
func (r *runner) tolerate(arch string, kind archive.WarnKind, msg string) {
	r.warnMu.Lock()
	if r.o.Strict {
		r.problem(arch, "", archive.Corruptf("%s (--strict: %s)", msg, kind))
		r.warnMu.Unlock()
		return
	}
	seen := slices.Contains(r.warnings, kind)
	if !seen {
		r.warnings = append(r.warnings, kind)
	}
	r.warnMu.Unlock()
	if !seen {
		r.warn(arch, "", msg)
	}
}

// describe adds what a user needs to an error's text where the category
// alone would be unclear.
func describe(err error) error {
	switch {
	case errors.Is(err, archive.ErrNotArchive):
		return archive.ErrNotArchive
	case errors.Is(err, archive.ErrNeedPassword) && err == archive.ErrNeedPassword:
		return fmt.Errorf("encrypted: a password is required (-p, --password-file or UNPACK_PASSWORD)")
	}
	return err
}

// status names the outcome of an entry for JSON output.
func status(err error) string {
	if errors.Is(err, extract.ErrSkipped) {
		return "skipped"
	}
	return archive.Classify(err).String()
}

// entryMeter counts an entry's data (into n and, for progress, the
// runner's total) and holds it to the current archive's limits. One is
// reused from entry to entry by the goroutine that reads them.
type entryMeter struct {
	archive.Meter
	r   *runner
	lim *limits
	n   int64 // bytes of the current entry
}

func (r *runner) newMeter() *entryMeter {
	m := &entryMeter{r: r, lim: r.lim}
	m.Fn = m.count
	return m
}

// reader returns src counted, from zero, as the next entry's data.
func (m *entryMeter) reader(src io.Reader) io.Reader {
	m.R, m.n = src, 0
	return &m.Meter
}

func (m *entryMeter) count(k int64) error {
	if err := m.lim.add(k); err != nil {
		return err
	}
	m.n += k
	m.r.out.Add(k)
	return nil
}

// each opens path and calls fn for every entry; fn reads the entry's data
// from the reader it is given. It reports archive-level problems and
// returns the archive's exit code.
//
// With parallel set, a seekable indexed archive is processed on several
// cores instead (see runner.parallel).
//
// settle is the sink's SettleAll: an entry the reader returns Pending that fn
// took without an error is settled through it, and reported, when the
// reader decides on it (see held). Nil settle: nothing is held.
func (r *runner) each(path string, oo formats.OpenOptions, parallel bool, fn func(a *formats.Archive, e *archive.Entry, data io.Reader) error, settle settleFunc) ExitCode {
	saved := r.code
	r.code, r.archiveState = ExitOK, archiveState{current: path}
	r.pw.reset()
	defer func() {
		r.reportPassword(path)
		for _, msg := range r.unverified {
			r.problem(path, "", archive.Unsupportedf("%s", msg))
		}
		r.code = worse(saved, r.code)
	}()
	if oo.Stdin == nil {
		oo.Stdin = r.f.In
	}
	a, err := formats.Open(path, r.opt, oo)
	r.opened = err == nil
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && slices.Contains(r.o.Passwords, promptMarker) {
			// "-p secret a.zip" is a bare -p and two archives; say so
			// (without repeating the word, which may be a password).
			err = fmt.Errorf("%w (to give a password on the command line write -p=PW or --password=PW; a bare -p asks on the terminal)", err)
		}
		r.problem(path, "", err)
		r.json.summary(path, "", &r.archiveState, r.pw.numbers(), r.code, err)
		return r.code
	}
	defer a.Close()
	r.arch = a
	defer func() { r.arch = nil }()
	stop := r.progress(a)
	defer stop()
	lim, err := r.o.LimitOptions.start(a.Consumed, path == "-")
	if err != nil {
		r.problem(path, "", err)
		return r.code
	}
	r.lim = lim
	if parallel && len(r.o.Include)+len(r.o.Exclude)+len(r.o.Names) == 0 && r.parallel(path, a, func(e *archive.Entry, data io.Reader) error { return fn(a, e, data) }) {
		r.json.summary(path, a.Format, &r.archiveState, r.pw.numbers(), r.code, nil)
		return r.code
	}
	h := newHeld(r, path, a.Reader, settle)
	m := r.newMeter()
	var archErr error
	for {
		if err := r.f.Context.Err(); err != nil {
			r.code = ExitInterrupted
			archErr = err
			break
		}
		e, err := a.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			archErr = err
			r.problem(path, "", err)
			break
		}
		if !r.o.selected(e.Name) {
			continue
		}
		r.entries++
		if err := lim.entry(r.entries); err != nil {
			archErr = err
			r.problem(path, "", err)
			break
		}
		if e.Copy {
			// A copy's bytes come from a file already written, not
			// through the meter; they are output all the same.
			if err := lim.add(max(e.Size, 0)); err != nil {
				archErr = err
				r.problem(path, "", err)
				break
			}
		}
		r.setEntry(e.Name)
		err = fn(a, e, m.reader(a))
		n := m.n
		r.bytes += n
		size := e.Size
		if e.Type == archive.TypeFile && n > 0 || size < 0 && err == nil {
			size = n
		}
		h.put(e, size, err)
		h.drain()
		if r.f.Context.Err() != nil {
			r.code = ExitInterrupted
			archErr = r.f.Context.Err()
			break
		}
	}
	if archErr != nil {
		h.fail(archErr)
	} else {
		h.fail(errUnsettled)
	}
	r.json.summary(path, a.Format, &r.archiveState, r.pw.numbers(), r.code, archErr)
	return r.code
}

// report records one entry's outcome: its JSON line, and a problem line
// (or a warning for a skipped entry).
func (r *runner) report(path string, e *archive.Entry, size int64, err error) {
	r.json.entry(path, e, size, err, r.sums.get(e.Name), r.arch != nil && r.arch.StreamChecked())
	switch {
	case err == nil:
	case errors.Is(err, extract.ErrSkipped):
		r.warn(path, e.Name, err.Error())
	default:
		r.failed++
		r.problem(path, e.Name, err)
	}
}

// reportPassword says on stderr which candidates opened the archive, by
// number, never by value: when several were given, or with -v.
func (r *runner) reportPassword(path string) {
	n := len(r.opt.Passwords)
	if r.o.Quiet || n == 0 || n == 1 && !r.o.Verbose {
		return
	}
	var nums []string
	for _, i := range r.pw.numbers() {
		nums = append(nums, strconv.Itoa(i))
	}
	switch len(nums) {
	case 0:
	case 1:
		fmt.Fprintf(r.f.ErrOut, "unpack: %s: password candidate %s of %d accepted\n", termtext.Escape(path), nums[0], n)
	default:
		fmt.Fprintf(r.f.ErrOut, "unpack: %s: password candidates %s of %d accepted\n", termtext.Escape(path), strings.Join(nums, ", "), n)
	}
}

// candidates records which password candidates passed a format's own
// password check (archive.Options.PasswordAccepted); formats may report
// from several goroutines.
type candidates struct {
	mu     sync.Mutex
	passed []bool // by candidate index
}

func (c *candidates) accept(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.passed) <= i {
		c.passed = append(c.passed, false)
	}
	c.passed[i] = true
}

func (c *candidates) reset() {
	c.mu.Lock()
	c.passed = c.passed[:0]
	c.mu.Unlock()
}

// numbers returns the numbers (from 1) of the candidates that passed.
func (c *candidates) numbers() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var nums []int
	for i, ok := range c.passed {
		if ok {
			nums = append(nums, i+1)
		}
	}
	return nums
}
