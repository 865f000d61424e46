package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/bcj"
	"github.com/unpack-dev/unpack/internal/codec/brotli"
	"github.com/unpack-dev/unpack/internal/codec/lzo"
	"github.com/unpack-dev/unpack/internal/codec/ppmd"
	"github.com/unpack-dev/unpack/internal/formats"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Version and Commit are set at build time (make release) with -ldflags
// "-X …/internal/cli.Version=v1.2.3 -X …/internal/cli.Commit=abc1234".
var Version, Commit = "", ""

// NewCmdVersion builds `unpack version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the formats this build reads and the fast paths this CPU uses",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(*cobra.Command, []string) error { return printVersion(f) },
	}
}

// printVersion writes what `unpack version` (and `unpack --version`) shows.
func printVersion(f *Factory) error {
	v := Version
	if v == "" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	var names []string
	for _, fm := range formats.All() {
		if formats.Implemented(fm) {
			names = append(names, string(fm))
		}
	}
	sort.Strings(names)
	_, err := fmt.Fprintf(f.Out, "unpack %s\ncommit: %s\ngo: %s %s/%s\nformats: %s\nfast paths: %s\n",
		v, commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH,
		strings.Join(names, ", "), fastPaths())
	return err
}

// commit is the commit this binary was built from: Commit, else what the
// go command recorded from the version control system.
func commit() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			if modified == "true" {
				rev += " (modified)"
			}
			return rev
		}
	}
	return "unknown"
}

// fastPaths lists the assembly paths this CPU uses, or says there are none.
func fastPaths() string {
	p := append(append(verify.FastPaths(), bcj.FastPaths()...), brotli.FastPaths()...)
	p = append(append(p, ppmd.FastPaths()...), lzo.FastPaths()...)
	if len(p) == 0 {
		return "none (generic code)"
	}
	return strings.Join(p, ", ")
}
