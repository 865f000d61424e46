package archive

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	// ErrRefused: an entry was refused: its path would leave the
	// destination, or it contradicts another record of the archive (a zip
	// local header naming another file than its central record).
	ErrRefused = errors.New("refused")
)

// kindError is an error with its own message that errors.Is a category,
// and the error it was made from, if any.
type kindError struct {
	kind error
	msg  string
	err  error
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Unwrap() []error {
	if e.err == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.err}
}

// Errorf makes an error of category kind (one of the Err* above) whose text
// is the formatted message alone, e.g.
//
//	var errBadHeader = archive.Errorf(archive.ErrCorrupt, "xz: bad block header")
//
// The message is formatted as fmt.Sprintf does, and a %w verb wraps its
// operand as fmt.Errorf does: the result is then both the category and,
// by errors.Is/As, the wrapped error (a *verify.MismatchError keeps its
// values).
func Errorf(kind error, format string, args ...any) error {
	if len(args) == 0 && !strings.Contains(format, "%") {
		// The many package-level errors: no formatting to do at start-up.
		return &kindError{kind: kind, msg: format}
	}
	w := fmt.Errorf(format, args...)
	e := &kindError{kind: kind, msg: w.Error()}
	switch w.(type) {
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		e.err = w
	}
	return e
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

// OffsetError places an error at a byte offset of the archive (a damaged
// header found there): "what at byte N".
type OffsetError struct {
	Offset int64
	Err    error
}

func (e *OffsetError) Error() string {
	return e.Err.Error() + " at byte " + strconv.FormatInt(e.Offset, 10)
}

func (e *OffsetError) Unwrap() error { return e.Err }

// VolumeError names the volume of a multi-volume set that an error is in or
// about (a missing part, damage in one part's data): "VOLUME: what".
type VolumeError struct {
	Volume string // the volume's file name
	Err    error
}

func (e *VolumeError) Error() string { return e.Volume + ": " + e.Err.Error() }

func (e *VolumeError) Unwrap() error { return e.Err }

// MethodError reports a compression method (a coder) that an archive names
// and unpack does not decode. It is ErrUnsupported.
type MethodError struct {
	Format string // "zip", "7z"
	Method string // as the format numbers it: "97", "7F1234"
	Name   string // what it is called, when known
}

func (e *MethodError) Error() string {
	s := e.Format + ": unsupported method " + e.Method
	if e.Name != "" {
		s += " (" + e.Name + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *MethodError) Is(target error) bool { return target == ErrUnsupported }

// SizeText is n bytes in binary units as messages give sizes: "512 B",
// "1.5 GiB".
func SizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64) + " " + string("KMGTPE"[exp]) + "iB"
}
