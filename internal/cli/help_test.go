package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// parsed is what a dry parse of one example gave.
type parsed struct {
	cmd      string // x, t or l
	archives []string
	o        *CommonOptions
	x        *ExtractOptions
}

// dryRoot is the command tree with actions that only record their options.
func dryRoot(got *parsed) *cobra.Command {
	f := &Factory{Getenv: func(string) string { return "" }, Context: context.Background()}
	root := NewRootCmd(f)
	for _, c := range root.Commands() {
		root.RemoveCommand(c)
	}
	root.AddCommand(
		NewCmdExtract(f, func(o *ExtractOptions) error {
			*got = parsed{cmd: "x", archives: o.Archives, o: &o.CommonOptions, x: o}
			return nil
		}),
		NewCmdVerify(f, func(o *VerifyOptions) error {
			*got = parsed{cmd: "t", archives: o.Archives, o: &o.CommonOptions}
			return nil
		}),
		NewCmdList(f, func(o *ListOptions) error {
			*got = parsed{cmd: "l", archives: o.Archives, o: &o.CommonOptions}
			return nil
		}),
	)
	return root
}

// examples returns the unpack command lines of a help Example text: the
// comment after '#' dropped, each stage of a pipe that runs unpack split
// into words (single quotes and redirections removed, as the shell would).
func examples(text string) [][]string {
	var out [][]string
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		for _, stage := range strings.Split(line, "|") {
			words := strings.Fields(stage)
			if len(words) == 0 || words[0] != "unpack" {
				continue
			}
			for i, w := range words {
				if strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") {
					words = words[:i] // a redirection ends the arguments
					break
				}
				words[i] = strings.Trim(w, "'")
			}
			out = append(out, words)
		}
	}
	return out
}

// TestHelpExamplesParse runs every example of every command's --help
// through the real flags and argument checks, with no action.
func TestHelpExamplesParse(t *testing.T) {
	var got parsed
	root := NewRootCmd(&Factory{Getenv: func(string) string { return "" }})
	cmds := append([]*cobra.Command{root}, root.Commands()...)
	for _, name := range []string{"x", "t", "l"} {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Example == "" || len(examples(c.Example)) < 2 {
			t.Errorf("%s: no examples in --help", name)
		}
	}
	for _, c := range cmds {
		for _, ex := range examples(c.Example) {
			t.Run(strings.Join(ex, " "), func(t *testing.T) {
				got = parsed{}
				dry := dryRoot(&got)
				dry.SetArgs(ex[1:])
				if _, err := dry.ExecuteC(); err != nil {
					t.Fatalf("does not parse: %v", err)
				}
				if got.cmd == "" || len(got.archives) == 0 {
					t.Fatalf("no action or no archive: %+v", got)
				}
				if c != root && got.cmd != strings.Fields(c.Use)[0] {
					t.Errorf("an example of %q runs %q", c.Name(), got.cmd)
				}
				// A bare -p/--password must mean "ask", never take the next word.
				if slices.Contains(ex, "-p") || slices.Contains(ex, "--password") {
					if !slices.Equal(got.o.Passwords, []string{promptMarker}) {
						t.Errorf("bare password flag gave %q", got.o.Passwords)
					}
				}
			})
		}
	}
}

// TestHelpUsedByLines checks that the README's used-by lines are in
// `unpack --help` and in the help of the command each one runs, and mean
// what their comment says.
func TestHelpUsedByLines(t *testing.T) {
	f, err := os.Open(filepath.Join(testutil.RepoRoot(), "README.md"))
	if err != nil {
		t.Skip("README.md not found")
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := sc.Text(); strings.HasPrefix(s, "    ") && strings.Contains(s, "unpack ") {
			lines = append(lines, strings.TrimSpace(s))
		} else if len(lines) > 0 {
			break // the first indented block only
		}
	}
	if len(lines) != 4 {
		t.Fatalf("README used-by lines: %q", lines)
	}
	norm := func(text string) []string {
		var out []string
		for _, ex := range examples(text) {
			out = append(out, strings.Join(ex, " "))
		}
		return out
	}
	root := NewRootCmd(&Factory{Getenv: func(string) string { return "" }})
	var got parsed
	for _, line := range lines {
		ex := examples(line)[0]
		want := strings.Join(ex, " ")
		if !slices.Contains(norm(root.Example), want) {
			t.Errorf("unpack --help lacks %q", want)
		}
		sub, _, _ := root.Find(ex[1:2])
		if !slices.Contains(norm(sub.Example), want) {
			t.Errorf("unpack %s --help lacks %q", sub.Name(), want)
		}
		got = parsed{}
		dry := dryRoot(&got)
		dry.SetArgs(ex[1:])
		if _, err := dry.ExecuteC(); err != nil {
			t.Fatalf("%q: %v", want, err)
		}
		switch want {
		case "unpack x archive.tar.xz -o out/":
			if got.x.Output != "out/" || !slices.Equal(got.archives, []string{"archive.tar.xz"}) {
				t.Errorf("%q: %+v", want, got.x)
			}
		case "unpack verify archive.rar --password":
			if got.cmd != "t" || !slices.Equal(got.o.Passwords, []string{promptMarker}) || !slices.Equal(got.archives, []string{"archive.rar"}) {
				t.Errorf("%q: %+v", want, got)
			}
		case "unpack x -c big.tar.zst":
			if !got.x.Stdout || !slices.Equal(got.archives, []string{"big.tar.zst"}) {
				t.Errorf("%q: %+v", want, got.x)
			}
		case "unpack x - -o out/":
			if got.x.Output != "out/" || !slices.Equal(got.archives, []string{"-"}) {
				t.Errorf("%q: %+v", want, got.x)
			}
		default:
			t.Errorf("README line not checked here: %q", want)
		}
	}
}

// TestHelpPasswordFlag checks how --help shows the password flag, and that
// showing it changes nothing for parsing.
func TestHelpPasswordFlag(t *testing.T) {
	for _, cmd := range []string{"x", "t", "l"} {
		code, stdout, _ := run(t, nil, cmd, "--help")
		if code != ExitOK || !strings.Contains(stdout, "  -p, --password[=PW]  ") || strings.Contains(stdout, "\x00") {
			t.Errorf("%s --help: exit %d:\n%s", cmd, code, stdout)
		}
	}
	var got parsed
	dry := dryRoot(&got)
	dry.SetOut(io.Discard)
	dry.SetArgs([]string{"x", "--help"})
	dry.Execute()
	x, _, _ := dry.Find([]string{"x"})
	x.Flags().Set("help", "false")
	dry.SetArgs([]string{"x", "-p", "a.zip", "-p=one", "--password=two"})
	if err := dry.Execute(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.o.Passwords, []string{promptMarker, "one", "two"}) || !slices.Equal(got.archives, []string{"a.zip"}) {
		t.Errorf("after --help: %q %q", got.o.Passwords, got.archives)
	}
}

// TestPrepareDocs checks the password flag as the doc generators see it.
func TestPrepareDocs(t *testing.T) {
	for _, man := range []bool{false, true} {
		root := NewRootCmd(&Factory{Getenv: func(string) string { return "" }})
		PrepareDocs(root, man)
		x, _, _ := root.Find([]string{"x"})
		fl := x.Flags().Lookup("password")
		usage := x.Flags().FlagUsages()
		// The Markdown generator prints FlagUsages; the man one reads the flags.
		if fl.NoOptDefVal != promptShown || !man && (strings.Contains(usage, "\x00") || !strings.Contains(usage, "--password[=PW]  ")) {
			t.Errorf("man=%v: %q\n%s", man, fl.NoOptDefVal, usage)
		}
		if man && (fl.DefValue != promptShown || strings.Contains(fl.Usage, "`")) {
			t.Errorf("man: default %q, usage %q", fl.DefValue, fl.Usage)
		}
	}
}

// TestStringsFlag: --include, --exclude and -p are repeatable, keep each
// value as given (commas too), and show no default in the help.
func TestStringsFlag(t *testing.T) {
	var got SelectOptions
	var pw []string
	cmd := NewCmdExtract(&Factory{}, func(o *ExtractOptions) error { got, pw = o.SelectOptions, o.Passwords; return nil })
	cmd.SetArgs([]string{"--include", "a,b", "--include", "c", "-p=x,y", "-p=z", "a.zip"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Include, "|") != "a,b|c" || len(got.Exclude) != 0 || strings.Join(pw, "|") != "x,y|z" {
		t.Errorf("include %q, exclude %q, passwords %q", got.Include, got.Exclude, pw)
	}
	if usage := cmd.Flags().FlagUsages(); strings.Contains(usage, "default []") {
		t.Errorf("help shows an empty default:\n%s", usage)
	}
}

// TestSubcommandNames: the names Run builds one command by are that
// command's name and aliases, and every command of the tree is in the
// table; a command alone prints the same help as in the whole tree.
func TestSubcommandNames(t *testing.T) {
	f := &Factory{Getenv: func(string) string { return "" }}
	tree := NewRootCmd(f)
	seen := 0
	for _, c := range tree.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		seen++
		want := append([]string{c.Name()}, c.Aliases...)
		found := false
		for _, s := range subcommands {
			if slices.Equal(s.names, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("command %v is not in subcommands", want)
		}
	}
	if seen != len(subcommands) {
		t.Errorf("%d commands in the tree, %d in subcommands", seen, len(subcommands))
	}
	for _, s := range subcommands {
		for _, name := range s.names {
			var alone, whole bytes.Buffer
			for _, b := range []*bytes.Buffer{&alone, &whole} {
				root := NewRootCmd(f)
				if b == &alone {
					root = newRoot(f, []string{name})
				}
				root.SetArgs([]string{name, "--help"})
				root.SetOut(b)
				root.SetErr(b)
				if err := root.Execute(); err != nil {
					t.Fatal(err)
				}
			}
			if alone.String() != whole.String() {
				t.Errorf("%s --help alone:\n%s\nin the tree:\n%s", name, alone.String(), whole.String())
			}
		}
	}
}
