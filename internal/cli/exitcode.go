package cli

import (
	"errors"

	"github.com/unpack-dev/unpack/internal/archive"
)

// ExitCode is the process exit status.
type ExitCode int

// The exit codes, documented under EXIT STATUS in --help.
const (
	ExitOK          ExitCode = 0   // everything verified
	ExitError       ExitCode = 1   // other errors: I/O, destination problems
	ExitUsage       ExitCode = 2   // bad command line
	ExitCorrupt     ExitCode = 3   // corrupt data or a checksum mismatch
	ExitPassword    ExitCode = 4   // wrong or missing password
	ExitUnsupported ExitCode = 5   // unsupported feature or format, or a limit hit
	ExitInterrupted ExitCode = 130 // interrupted by a signal
)

const exitStatusHelp = `EXIT STATUS
  0    everything read and verified
  1    other errors (I/O, destination problems, a failed read)
  2    usage error
  3    corrupt data or a checksum mismatch in some entry, an entry refused
       because its path would leave the destination, or entries that
       contradict each other
  4    wrong or missing password
  5    unsupported format, method or feature, or a limit hit (named)
  130  interrupted (SIGINT or SIGTERM) while extracting to disk or
       asking for a password; t, l, x -c and --to-tar end as the signal
       ends any program`

// exitCodeOf maps an error to its exit code: the one place that does, by
// the error's archive.Classify category.
func exitCodeOf(err error) ExitCode {
	var fe *FlagError
	if errors.As(err, &fe) {
		return ExitUsage
	}
	return categoryCodes[archive.Classify(err)]
}

var categoryCodes = [...]ExitCode{
	archive.OK:            ExitOK,
	archive.Other:         ExitError,
	archive.Interrupted:   ExitInterrupted,
	archive.Password:      ExitPassword,
	archive.Limit:         ExitUnsupported,
	archive.Unsupported:   ExitUnsupported,
	archive.NotArchive:    ExitUnsupported,
	archive.MissingVolume: ExitCorrupt,
	archive.Refused:       ExitCorrupt,
	archive.Checksum:      ExitCorrupt,
	archive.Corrupt:       ExitCorrupt,
}

// worse returns the code to report when both a and b happened.
func worse(a, b ExitCode) ExitCode {
	if a == ExitInterrupted || b == ExitInterrupted {
		return ExitInterrupted
	}
	if b > a {
		return b
	}
	return a
}

// FlagError is a usage error (exit 2).
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }
