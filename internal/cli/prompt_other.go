//go:build !unix && !windows

package cli

import (
	"fmt"
	"runtime"
)

// askSecret fails: there is no terminal to ask on (js, wasip1, plan9);
// -p, --password-file and UNPACK_PASSWORD still work.
func askSecret(string, func(func()) func()) (string, error) {
	return "", fmt.Errorf("%w on %s", errNoTerminal, runtime.GOOS)
}
