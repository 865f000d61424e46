// Command unpack extracts and verifies archives and compressed files.
package main

import (
	"os"

	"github.com/unpack-dev/unpack/internal/cli"
	_ "github.com/unpack-dev/unpack/internal/prefault" // maps the code at once
)

func main() { os.Exit(int(cli.Main())) }
