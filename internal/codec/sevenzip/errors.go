// Package sevenzip reads 7z archives: the signature header, the (possibly
// compressed and encrypted) header database, folders with their coder graphs
// and bind pairs, and the entries' data, verifying every CRC the format
// carries.
//
// Open returns an archive.Reader delivering entries in archive order. A
// solid folder is decoded once, front to back, as its entries are read;
// skipping an entry whose data is never read costs nothing unless a later
// entry of the same folder is read.
//
// The reader also implements archive.RandomAccess, plus Folders, which
// groups the regular files by folder. Entries of different folders decode
// independently, on as many goroutines as wanted; the entries of one folder
// should be opened by one goroutine in the order Folders gives, each read
// to its end and closed before the next, so that they share one decoding
// pass. Symlink targets (the data of symlink entries) are captured on that
// pass, or read when the symlink itself is opened.
package sevenzip

import (
	"fmt"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Sentinel errors. Each errors.Is its archive category.
var (
	// ErrBadSignature: the signature header is missing or its CRC is wrong.
	ErrBadSignature = archive.Corruptf("7z: bad signature header")
	// ErrHeaderCRC: the header database does not match its CRC.
	ErrHeaderCRC = archive.Corruptf("7z: bad header CRC")
	// ErrBadHeader: the header database is malformed.
	ErrBadHeader = archive.Corruptf("7z: malformed header")
	// ErrTruncated: data ended before the sizes the header declares.
	ErrTruncated = archive.Corruptf("7z: unexpected end of data")
	// ErrWrongPassword: decoding failed or a CRC did not match with the
	// password given: "wrong password or corrupt data", as 7-Zip says.
	ErrWrongPassword = archive.Errorf(archive.ErrPassword, "7z: wrong password or corrupt data")
)

// passwordError is a failure in encrypted data that cannot be told apart
// from a wrong password. It errors.Is archive.ErrPassword and also the
// underlying error (a checksum mismatch or a decode failure).
type passwordError struct{ err error }

func (e *passwordError) Error() string {
	return "7z: wrong password or corrupt data (" + e.err.Error() + ")"
}

func (e *passwordError) Unwrap() []error { return []error{archive.ErrPassword, e.err} }

// corrupt turns a decoder failure into an archive.ErrCorrupt error, keeping
// errors that already carry a category and I/O errors.
func corrupt(err error) error { return archive.Decoded("7z", err) }

// FolderError is a failure of a folder's own check (its CRC over all its
// entries' data): every entry of the folder is suspect, and it names them.
type FolderError struct {
	Folder  int
	Entries []string // the folder's entries, in archive order
	Err     error    // the *verify.MismatchError, or the password error it was taken for
}

func (e *FolderError) Error() string {
	return fmt.Sprintf("7z: folder %d CRC mismatch (affects %s): %v", e.Folder, strings.Join(e.Entries, ", "), e.Err)
}

func (e *FolderError) Unwrap() error { return e.Err }
