package archive

import (
	"context"
	"errors"
	"io"
	"io/fs"
)

// Category is the kind of a failure: the CLI maps each to one exit code and
// one JSON status, whatever format or stage the error came from.
type Category uint8

// Categories, in the order Classify tests them (an error of several
// categories takes the first: a wrong password that shows as a checksum
// mismatch is a password problem).
const (
	OK            Category = iota // no error
	Other                         // I/O of the input or the destination, anything uncategorised
	Interrupted                   // the context was cancelled (a signal)
	Password                      // a wrong or missing password
	Limit                         // a resource limit would be exceeded
	Unsupported                   // a format, method or feature unpack does not read
	NotArchive                    // no recognised format
	MissingVolume                 // a part of a multi-volume set is missing
	Refused                       // an entry refused: it would leave the destination, or contradicts another
	Checksum                      // data decoded but a checksum did not match
	Corrupt                       // malformed or truncated data
)

var categoryNames = [...]string{OK: "ok", Other: "error", Interrupted: "interrupted",
	Password: "wrong-password", Limit: "limit", Unsupported: "unsupported",
	NotArchive: "not-archive", MissingVolume: "missing-volume", Refused: "refused",
	Checksum: "corrupt", Corrupt: "corrupt"}

// String is the category's name as --json reports it.
func (c Category) String() string {
	if int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return "error"
}

// Classify returns err's category, by errors.Is on the category sentinels
// only: an error nobody categorised (an I/O error of the input or the
// sink) is Other.
func Classify(err error) Category {
	switch {
	case err == nil:
		return OK
	case errors.Is(err, context.Canceled):
		return Interrupted
	case errors.Is(err, ErrPassword), errors.Is(err, ErrNeedPassword):
		return Password
	case errors.Is(err, ErrLimit):
		return Limit
	case errors.Is(err, ErrUnsupported):
		return Unsupported
	case errors.Is(err, ErrNotArchive):
		return NotArchive
	case errors.Is(err, ErrMissingVolume):
		return MissingVolume
	case errors.Is(err, ErrRefused):
		return Refused
	case errors.Is(err, ErrChecksum):
		return Checksum
	case errors.Is(err, ErrCorrupt):
		return Corrupt
	}
	return Other
}

// Categorized reports whether err already belongs to a category (so a
// layer above passes it on unchanged).
func Categorized(err error) bool { return Classify(err) > Interrupted }

// IOError marks an error of reading the input or writing the output: it
// is the device's, never the data's, so no stage reclassifies it as corrupt
// data. Stage says which end it came from.
type IOError struct {
	Stage string // "source" or "sink"
	Err   error
}

func (e *IOError) Error() string { return e.Err.Error() }
func (e *IOError) Unwrap() error { return e.Err }

// IsIO reports whether err is (or wraps) an IOError or an *fs.PathError
// (what the os package returns for a failed read or write).
func IsIO(err error) bool {
	var ie *IOError
	var pe *fs.PathError
	return errors.As(err, &ie) || errors.As(err, &pe)
}

// Decoded gives an error from a decoder its category: categorised errors,
// I/O errors and io.EOF pass unchanged; a truncation is Truncated(format);
// anything else is corrupt data, "FORMAT: what".
func Decoded(format string, err error) error {
	switch {
	case err == nil, err == io.EOF, Categorized(err), IsIO(err), errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Truncated(format)
	}
	return &kindError{kind: ErrCorrupt, msg: format + ": " + err.Error(), err: err}
}

// Truncated is the error of data that end before their structure does:
// "FORMAT: unexpected end of data". It is ErrCorrupt and also
// io.ErrUnexpectedEOF.
func Truncated(format string) error { return &truncatedError{format: format} }

type truncatedError struct{ format string }

func (e *truncatedError) Error() string { return e.format + ": unexpected end of data" }

func (e *truncatedError) Is(target error) bool {
	return target == ErrCorrupt || target == io.ErrUnexpectedEOF
}
