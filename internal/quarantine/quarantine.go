// Package quarantine carries macOS's download mark from an archive to the
// files extracted from it, as Archive Utility does: when the archive has
// the com.apple.quarantine extended attribute, every file and directory
// extracted from it gets the same value, so that Gatekeeper still checks a
// downloaded application before its first run. On other systems it does
// nothing.
package quarantine

import (
	"os"
	"runtime"
)

// Name is the extended attribute macOS sets on downloaded files.
const Name = "com.apple.quarantine"

// enabled: only macOS has a Gatekeeper that reads Name.
const enabled = runtime.GOOS == "darwin"

// maxValue bounds the value read: macOS writes about 60 bytes
// ("0083;65a1b2c3;Safari;UUID").
const maxValue = 4096

// Of returns the quarantine value of the archive at path, and whether it
// has one. It is always false off macOS, and for an archive read from a
// pipe (there is no path to ask).
func Of(path string) ([]byte, bool) {
	if !enabled {
		return nil, false
	}
	return of(path, Name)
}

// Apply sets value (from Of) as the quarantine of the opened file or
// directory f. It does nothing off macOS or when value is empty. On a
// file system without extended attributes the error is
// errors.ErrUnsupported.
func Apply(f *os.File, value []byte) error {
	if !enabled || len(value) == 0 {
		return nil
	}
	return apply(f, Name, value)
}

// of reads the extended attribute attr of path.
func of(path, attr string) ([]byte, bool) {
	buf := make([]byte, 256)
	for {
		n, err := getxattr(path, attr, buf)
		if err == nil {
			return buf[:n:n], n > 0
		}
		if !isRange(err) || len(buf) >= maxValue {
			return nil, false
		}
		buf = make([]byte, maxValue)
	}
}

// apply sets the extended attribute attr of f to value.
func apply(f *os.File, attr string, value []byte) error {
	if err := fsetxattr(f, attr, value); err != nil {
		return &os.PathError{Op: "setxattr " + attr, Path: f.Name(), Err: err}
	}
	return nil
}
