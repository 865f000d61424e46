package archive

import (
	"errors"
	"fmt"

	"github.com/unpack-dev/unpack/internal/verify"
)

// Error categories. Formats return errors that errors.Is one of these; the
// CLI maps each category to an exit code in one place.
var (
	// ErrCorrupt: malformed or truncated data, a bad header or structure.
	ErrCorrupt = errors.New("corrupt data")
	// ErrChecksum: data decoded but a checksum did not match. It is also
	// ErrCorrupt for exit-code purposes.
	ErrChecksum = verify.ErrChecksum
	// ErrPassword: the password given is wrong.
	ErrPassword = errors.New("wrong password")
	// ErrNeedPassword: the data is encrypted and no password was given.
	ErrNeedPassword = errors.New("password required")
	// ErrUnsupported: a feature, method or format unpack does not implement.
	ErrUnsupported = errors.New("unsupported")
	// ErrLimit: a resource limit (--memlimit, --max-size, …) would be exceeded.
	ErrLimit = errors.New("limit exceeded")
	// ErrMissingVolume: a part of a multi-volume set is missing.
	ErrMissingVolume = errors.New("missing volume")
	// ErrNotArchive: the input is no recognised format.
	ErrNotArchive = errors.New("not a recognised archive")
)

// kindError is an error with its own message that errors.Is a category.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// Errorf makes an error of category kind (one of the Err* above) whose text
// is the formatted message alone, e.g.
//
//	var errBadHeader = archive.Errorf(archive.ErrCorrupt, "xz: bad block header")
//
// The message is formatted as fmt.Sprintf does: it wraps no further error
// (use EntryError or fmt.Errorf with %w around it for that).
func Errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Corruptf is Errorf(ErrCorrupt, …).
func Corruptf(format string, args ...any) error { return Errorf(ErrCorrupt, format, args...) }

// Unsupportedf is Errorf(ErrUnsupported, …).
func Unsupportedf(format string, args ...any) error { return Errorf(ErrUnsupported, format, args...) }

// Limitf is Errorf(ErrLimit, …).
func Limitf(format string, args ...any) error { return Errorf(ErrLimit, format, args...) }

// EntryError adds the archive and entry names to an error, once, at the
// entry boundary. Its text is "ARCHIVE: ENTRY: what".
type EntryError struct {
	Archive string
	Entry   string // may be empty for archive-level errors
	Err     error
}

func (e *EntryError) Error() string {
	if e.Entry == "" {
		return e.Archive + ": " + e.Err.Error()
	}
	return e.Archive + ": " + e.Entry + ": " + e.Err.Error()
}

func (e *EntryError) Unwrap() error { return e.Err }

// Categorized reports whether err already belongs to one of the categories
// above (so a layer above should pass it on unchanged).
func Categorized(err error) bool {
	for _, k := range []error{ErrCorrupt, ErrChecksum, ErrPassword, ErrNeedPassword,
		ErrUnsupported, ErrLimit, ErrMissingVolume, ErrNotArchive} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
