// Package cli holds unpack's commands: extract (x), verify (t), list (l)
// and version. It knows no format: formats.Open detects and decodes, the
// extract package writes; this package wires them, reports problems one
// line each and maps errors to exit codes in one place.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/unpack-dev/unpack/internal/gcpace"
	"github.com/unpack-dev/unpack/internal/procs"
	"github.com/unpack-dev/unpack/internal/termtext"
)

// Factory carries the process's streams and environment, so commands can be
// tested with buffers.
type Factory struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrIsTerminal reports whether ErrOut is a terminal (progress bars).
	ErrIsTerminal bool
	// TermWidth returns the terminal's width in columns (nil or 0: 80).
	TermWidth func() int
	// Getenv reads the environment.
	Getenv func(string) string
	// Prompt reads a password from the terminal; nil when there is none.
	Prompt func(prompt string) (string, error)
	// Context is cancelled on SIGINT/SIGTERM once handleInterrupts has
	// installed the handler.
	Context context.Context

	// reported, when set, is given every error printed as a problem
	// line, as it was before printing (tests assert on its type).
	reported func(error)

	hooksMu sync.Mutex
	hooks   map[int]func() // run on interrupt, before exiting
	nextID  int
	// handle, when set, installs the signal handler that runs the hooks;
	// handleInterrupts calls it once.
	handle     func()
	handleOnce sync.Once
	// oneProcessor, when set, has Go code run on one processor
	// (runtime.GOMAXPROCS(1), in Main once the run has lasted 20 ms);
	// singleThread calls it.
	oneProcessor func()
	// governProcessors, when set, lowers the processors to one while the
	// run keeps only one busy (procs.Govern, in Main); mayGovern calls it.
	governProcessors func()
}

// onInterrupt registers fn to run when the process is interrupted (to
// remove files in flight); the returned function unregisters it. Hooks
// run from the handler: what must not be left behind by an interrupt is
// made only after handleInterrupts.
func (f *Factory) onInterrupt(fn func()) (remove func()) {
	f.hooksMu.Lock()
	defer f.hooksMu.Unlock()
	if f.hooks == nil {
		f.hooks = map[int]func(){}
	}
	id := f.nextID
	f.nextID++
	f.hooks[id] = fn
	return func() {
		f.hooksMu.Lock()
		delete(f.hooks, id)
		f.hooksMu.Unlock()
	}
}

// handleInterrupts installs the handler of SIGINT and SIGTERM, once; it is
// called before anything is made that an interrupt would have to undo (a
// file or stage on disk, a terminal without echo). Until then a signal
// ends the process as it does by default: there is nothing to undo, and
// the commands that never make such a thing (x -c, --to-tar, t, l) start
// no signal thread.
func (f *Factory) handleInterrupts() {
	if f.handle != nil {
		f.handleOnce.Do(f.handle)
	}
}

// singleThread is called when --threads 1 asks for one decoder thread and
// nothing goes to disk (standard output, a tar stream, a test): the run's
// Go code then runs on one processor. With more, the runtime's preemption
// of a goroutine that has run for 10 ms puts it back on the run queue and
// wakes the idle processor's thread, which often takes it over on another
// core, where the decoder's caches (a PPMd model's hot contexts, an LZMA
// window) are cold: a move every few tens of milliseconds. To disk, the
// writers work beside the decoder (extract), and the processors stay.
func (f *Factory) singleThread() {
	if f.oneProcessor != nil {
		f.oneProcessor()
	}
}

// mayGovern is called when the decoder threads are left to unpack
// (--threads 0) and nothing goes to disk: a run that keeps about one
// processor busy in its first 60 ms (one sequential stream: a PPMd or
// LZMA folder) drops to one, as singleThread's, until goroutines come to
// wait for another; one that decodes blocks or members side by side
// keeps them all.
func (f *Factory) mayGovern() {
	if f.governProcessors != nil {
		f.governProcessors()
	}
}

// interrupted runs the registered hooks.
func (f *Factory) interrupted() {
	f.hooksMu.Lock()
	defer f.hooksMu.Unlock()
	for _, fn := range f.hooks {
		fn()
	}
}

// Main runs unpack with os.Args and returns the exit code.
func Main() ExitCode {
	// A run's first 32 MiB of heap go uncollected: most runs end before.
	gcpace.DelayFirst(32 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &Factory{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		ErrIsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		TermWidth: func() int {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
		Getenv:  os.Getenv,
		Context: ctx,
	}
	f.Prompt = f.terminalPrompt
	// After 20 ms: a shorter run is over before a preemption could move
	// it, and spares the stop of the world.
	f.oneProcessor = func() { time.AfterFunc(20*time.Millisecond, func() { runtime.GOMAXPROCS(1) }) }
	// Never stopped: the run's end ends it.
	f.governProcessors = func() { procs.Govern(60*time.Millisecond, 20*time.Millisecond) }
	// On SIGINT/SIGTERM once something is in flight: remove it and exit
	// 130 at once, even while a read from a pipe blocks.
	f.handle = func() {
		sig := make(chan os.Signal, 1)
		// Never stopped: os.Exit follows Main, and Stop would wait on the
		// runtime's signal thread.
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sig
			cancel()
			f.interrupted()
			fmt.Fprintln(os.Stderr, "unpack: interrupted")
			os.Exit(int(ExitInterrupted))
		}()
	}
	return Run(f, os.Args[1:])
}

// Run executes the command line args with f and returns the exit code.
func Run(f *Factory, args []string) ExitCode {
	if f.Context == nil {
		f.Context = context.Background()
	}
	root := newRoot(f, args)
	root.SetArgs(args)
	root.SetIn(f.In)
	root.SetOut(f.Out)
	root.SetErr(f.ErrOut)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var ce *codeError
	if errors.As(err, &ce) {
		return ce.code // problems were already reported, one line each
	}
	code := exitCodeOf(err)
	if code == ExitOK || cmd == nil {
		code = ExitUsage
	}
	if f.reported != nil {
		f.reported(err)
	}
	var fe *FlagError
	if errors.As(err, &fe) {
		fmt.Fprintf(f.ErrOut, "unpack: %s\nRun '%s --help' for usage.\n", termtext.Escape(err.Error()), cmd.CommandPath())
		return ExitUsage
	}
	fmt.Fprintf(f.ErrOut, "unpack: %s\n", termtext.Escape(err.Error()))
	return code
}

// codeError ends a command whose problems were already printed.
type codeError struct{ code ExitCode }

func (e *codeError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usageArgs makes a cobra argument check's error a FlagError (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &FlagError{Err: err}
		}
		return nil
	}
}

// unknownCommand is the root's argument check: any argument there is a
// command that does not exist.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return &FlagError{Err: errors.New(msg)}
}

// subcommands are unpack's commands by the names and aliases that call
// them (TestSubcommandNames keeps these the commands' own).
var subcommands = []struct {
	names []string
	build func(*Factory) *cobra.Command
}{
	{[]string{"x", "extract"}, func(f *Factory) *cobra.Command { return NewCmdExtract(f, nil) }},
	{[]string{"t", "verify", "test"}, func(f *Factory) *cobra.Command { return NewCmdVerify(f, nil) }},
	{[]string{"l", "list"}, func(f *Factory) *cobra.Command { return NewCmdList(f, nil) }},
	{[]string{"version"}, NewCmdVersion},
}

// newRoot builds the root with, when args start with a command's name,
// that command alone: the others, their flags and the completion command
// would be built for nothing (a tenth of what `t` on a small archive
// costs). Anything else (help, completion, an unknown word, none) gets
// the whole tree.
func newRoot(f *Factory, args []string) *cobra.Command {
	if len(args) > 0 {
		for _, c := range subcommands {
			if slices.Contains(c.names, args[0]) {
				root := newRootCmd(f)
				root.CompletionOptions.DisableDefaultCmd = true
				root.AddCommand(c.build(f))
				return root
			}
		}
	}
	return NewRootCmd(f)
}

// NewRootCmd builds the command tree.
func NewRootCmd(f *Factory) *cobra.Command {
	root := newRootCmd(f)
	for _, c := range subcommands {
		root.AddCommand(c.build(f))
	}
	return root
}

// newRootCmd builds the root command without its subcommands.
func newRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "unpack",
		Short: "Extract and verify archives and compressed files, byte-exact, fast and safely",
		Long: `unpack extracts or verifies any archive or compressed file. The format is found
by its magic bytes; every checksum the format carries is verified before a file
is committed to disk, and no entry can write outside the destination.

` + exitStatusHelp,
		Example: `  unpack x archive.tar.xz -o out/        # extract
  unpack verify archive.rar --password    # check every entry, write nothing
  unpack x -c big.tar.zst | tar x         # decompressed stream to stdout
  curl -sL URL | unpack x - -o out/       # read a non-seekable stdin`,
		Args:                       unknownCommand,
		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				return printVersion(f)
			}
			return cmd.Help()
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.Flags().Bool("version", false, "print the version, as the version command does")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &FlagError{Err: err} })
	withHelpFlags(root)
	return root
}
