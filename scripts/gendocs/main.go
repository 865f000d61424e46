// Command gendocs writes unpack's man pages (docs/man) and Markdown command
// reference (docs/cli) from the cobra commands: `make docs`.
package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/unpack-dev/unpack/internal/cli"
)

func main() {
	out := "docs"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	var buf bytes.Buffer
	tree := func(man bool) *cobra.Command {
		root := cli.NewRootCmd(&cli.Factory{Out: &buf, ErrOut: &buf, Getenv: os.Getenv, Context: context.Background()})
		root.DisableAutoGenTag = true
		cli.PrepareDocs(root, man)
		return root
	}
	for _, d := range []string{"man", "cli"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			fail(err)
		}
	}
	hdr := &doc.GenManHeader{Title: "UNPACK", Section: "1", Source: "unpack", Manual: "User Commands"}
	if err := doc.GenManTree(tree(true), hdr, filepath.Join(out, "man")); err != nil {
		fail(err)
	}
	if err := doc.GenMarkdownTree(tree(false), filepath.Join(out, "cli")); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gendocs:", err)
	os.Exit(1)
}
