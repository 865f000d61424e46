package cli

import (
	"fmt"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/archive"
)

// SelectOptions choose which entries a command works on and, for extract,
// how their names are laid out.
type SelectOptions struct {
	Include         []string // glob patterns; empty: everything
	Exclude         []string // glob patterns
	Names           []string // exact member names (after "--"), also as patterns
	StripComponents int
	Flat            bool
}

func addSelectFlags(cmd *cobra.Command, o *SelectOptions, layout bool) {
	fl := cmd.Flags()
	fl.Var(newStrings(&o.Include), "include", "only entries matching `GLOB` (or below a matching directory); repeatable")
	fl.Var(newStrings(&o.Exclude), "exclude", "skip entries matching `GLOB` (or below a matching directory); repeatable")
	if layout {
		fl.IntVar(&o.StripComponents, "strip-components", 0, "remove `N` leading path components (entries with fewer are skipped)")
		fl.BoolVar(&o.Flat, "flat", false, "write every file directly into the destination, without directories")
	}
}

func (o *SelectOptions) validate() error {
	for _, p := range append(append([]string{}, o.Include...), o.Exclude...) {
		if _, err := path.Match(p, ""); err != nil {
			return &FlagError{Err: fmt.Errorf("bad pattern %q: %v", p, err)}
		}
	}
	if o.StripComponents < 0 {
		return &FlagError{Err: fmt.Errorf("--strip-components must not be negative")}
	}
	return nil
}

// selected reports whether an entry named name is worked on.
func (o *SelectOptions) selected(name string) bool {
	n := strings.Trim(strings.TrimPrefix(name, "./"), "/")
	inc := append(append([]string{}, o.Include...), o.Names...)
	if len(inc) > 0 && !matchAny(inc, n) {
		return false
	}
	return !matchAny(o.Exclude, n)
}

// matchAny reports whether name, or one of its leading directories,
// matches a pattern. A pattern without a slash may match any one path
// component ("*.txt" matches "a/b.txt"), as in tar.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		p = strings.Trim(p, "/")
		if !strings.Contains(p, "/") {
			for _, part := range strings.Split(name, "/") {
				if ok, _ := path.Match(p, part); ok {
					return true
				}
			}
			continue
		}
		for n := name; ; {
			if ok, _ := path.Match(p, n); ok {
				return true
			}
			i := strings.LastIndexByte(n, '/')
			if i < 0 {
				break
			}
			n = n[:i]
		}
	}
	return false
}

// layout returns the entry as it is to be written (a copy with its name,
// and hard-link target, rewritten), or nil to skip it.
func (o *SelectOptions) layout(e *archive.Entry) *archive.Entry {
	if !o.renames() {
		return e
	}
	c := *e
	c.Name = o.rename(e.Name)
	if c.Name == "" || o.Flat && c.Type == archive.TypeDir {
		return nil
	}
	if c.Type == archive.TypeHardlink {
		if c.Linkname = o.rename(e.Linkname); c.Linkname == "" {
			return nil
		}
	}
	return &c
}

// renames reports whether layout may give an entry another name (or drop
// it): else it returns every entry as it is.
func (o *SelectOptions) renames() bool { return o.StripComponents != 0 || o.Flat }

func (o *SelectOptions) rename(name string) string {
	n := strings.Trim(strings.TrimPrefix(name, "./"), "/")
	parts := strings.Split(n, "/")
	if o.StripComponents >= len(parts) {
		return ""
	}
	parts = parts[o.StripComponents:]
	if o.Flat {
		return parts[len(parts)-1]
	}
	return strings.Join(parts, "/")
}
