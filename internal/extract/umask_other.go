//go:build !unix

package extract

import "io/fs"

// processUmask is 0 where there is no umask.
func processUmask() fs.FileMode { return 0 }
