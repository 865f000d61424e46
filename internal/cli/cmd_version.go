package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/formats"
)

// Version is set at build time with -ldflags "-X …/internal/cli.Version=v1.2.3".
var Version = ""

// NewCmdVersion builds `unpack version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the formats this build reads",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
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
			fmt.Fprintf(f.Out, "unpack %s (%s %s/%s)\nformats: %s\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH,
				strings.Join(names, ", "))
			return nil
		},
	}
}
