package zip

import "github.com/unpack-dev/unpack/internal/archive"

var (
	// ErrFormat is returned when the input has no valid end of central
	// directory record or a structure in it is malformed.
	ErrFormat = archive.Errorf(archive.ErrCorrupt, "zip: not a valid zip file")
	// ErrHeaderMismatch is returned when an entry's local header disagrees
	// with its central directory record on the name or the sizes.
	ErrHeaderMismatch = archive.Errorf(archive.ErrCorrupt, "zip: local and central headers disagree")
	// ErrOverlap is returned when two entries' data overlap each other or
	// the central directory, as in overlapping zip bombs.
	ErrOverlap = archive.Errorf(archive.ErrCorrupt, "zip: entries overlap")
	// ErrSize is returned when an entry's data is longer or shorter than
	// its headers declare.
	ErrSize = archive.Errorf(archive.ErrCorrupt, "zip: entry size differs from its header")
	// ErrTruncated is returned when the archive ends inside a structure or
	// inside an entry's data.
	ErrTruncated = archive.Errorf(archive.ErrCorrupt, "zip: unexpected end of archive")
	// ErrMAC is returned when a WinZip AES entry's authentication code
	// does not match its data.
	ErrMAC = archive.Errorf(archive.ErrCorrupt, "zip: AES authentication code mismatch")
)
