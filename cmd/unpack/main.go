// Command unpack extracts and verifies archives and compressed files.
package main

import (
	"os"

	"github.com/unpack-dev/unpack/internal/cli"
)

func main() { os.Exit(int(cli.Main())) }
