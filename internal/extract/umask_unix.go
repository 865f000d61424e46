//go:build unix

package extract

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// processUmask is the umask modes are applied through, 0 for root (GNU
// tar's rule: the superuser gets the archive's modes).
var processUmask = sync.OnceValue(func() fs.FileMode {
	if os.Geteuid() == 0 {
		return 0
	}
	// Linux shows it without changing it; elsewhere it is set and put
	// back, once, before any file is written.
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return fs.FileMode(m) & fs.ModePerm
				}
			}
		}
	}
	m := syscall.Umask(0o22)
	syscall.Umask(m)
	return fs.FileMode(m) & fs.ModePerm
})
