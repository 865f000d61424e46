package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// promptShown is how the optional value of --password reads in help and
// docs: "-p, --password[=PW]". The real NoOptDefVal, promptMarker, holds a
// NUL, which pflag uses itself to align the flag list.
const promptShown = "PW"

// showPromptFlags makes the flags of c whose bare form prompts display as
// "--flag[=PW]"; the returned function restores them.
func showPromptFlags(c *cobra.Command) (restore func()) {
	var changed []*pflag.Flag
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.NoOptDefVal == promptMarker {
			f.NoOptDefVal = promptShown
			changed = append(changed, f)
		}
	})
	return func() {
		for _, f := range changed {
			f.NoOptDefVal = promptMarker
		}
	}
}

// withHelpFlags wraps root's usage function so that help shows
// "--password[=PW]" while parsing keeps the marker.
func withHelpFlags(root *cobra.Command) {
	usage := root.UsageFunc()
	root.SetUsageFunc(func(c *cobra.Command) error {
		defer showPromptFlags(c)()
		return usage(c)
	})
}

// PrepareDocs readies the command tree built by NewRootCmd for the
// Markdown generator (man false) or the man page generator (man true) of
// scripts/gendocs, so that the password flags read "--password[=PW]". The
// tree is for documentation only afterwards.
func PrepareDocs(root *cobra.Command, man bool) {
	root.Flags().VisitAll(func(f *pflag.Flag) {
		if f.NoOptDefVal != promptMarker {
			return
		}
		f.NoOptDefVal = promptShown
		if man {
			// cobra/doc prints "[=DefValue]" and the usage as it is.
			f.DefValue = promptShown
			f.Usage = strings.TrimSuffix(f.Usage, "``")
		}
	})
	for _, c := range root.Commands() {
		PrepareDocs(c, man)
	}
}
