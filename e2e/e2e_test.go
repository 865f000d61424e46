// Package e2e drives the unpack command like a user: testscript files in
// testdata/ run it (and real tools: tar, gzip, zstd, xz, zip, sha256sum)
// through every command and flag, including pipes.
package e2e

import (
	"os"
	"os/exec"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/unpack-dev/unpack/internal/cli"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"unpack": func() { os.Exit(int(cli.Main())) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata",
		Condition: func(cond string) (bool, error) {
			// [tool:NAME] holds when NAME is installed.
			if len(cond) > 5 && cond[:5] == "tool:" {
				_, err := exec.LookPath(cond[5:])
				return err == nil, nil
			}
			return false, nil
		},
		RequireExplicitExec: true,
		Cmds:                craftCmds,
	})
}
