package archive

import (
	"io"
	"os"
)

// Input is what a format opens. R reads from the first byte of the archive
// (or of the stream after an SFX stub is detected by the format itself).
// RA is non-nil when the input is seekable (a regular file), with Size set;
// then R and RA see the same bytes and a format may use either.
type Input struct {
	R    io.Reader   // sequential reader; buffered by the caller
	RA   io.ReaderAt // nil for stdin and pipes
	Size int64       // -1 when unknown
	Path string      // the file's path ("" for stdin); used to find other volumes
	Name string      // name to show in messages ("-" for stdin)
	// Listing says the entries will only be listed, their data not read:
	// a reader need not hold them Pending until a later check.
	Listing bool
}

// Options are what the CLI passes to every format. The zero value is usable.
type Options struct {
	// Passwords are candidates to try, in order. Empty means none given.
	Passwords []string
	// PasswordFunc, when set and Passwords is empty, is asked for a
	// password when a format finds it needs one (a terminal prompt). It
	// may be called several times, from several goroutines, and must give
	// the same answer each time (the CLI asks once, with sync.OnceValues).
	PasswordFunc func() (string, error)
	// PasswordAccepted, when set, is told the index in Passwords of a
	// candidate that passed a format's own password check (RAR 5 check
	// value, WinZip AES verifier, ZipCrypto check byte, an encrypted
	// header's CRC, a 7z folder's CRC). It may be called from several
	// goroutines, and more than once for one archive. Formats call it
	// through Accepted.
	PasswordAccepted func(i int)
	// MemLimit bounds dictionaries and windows in bytes (0: DefaultMemLimit).
	MemLimit int64
	// Threads is how many goroutines a decoder may use (0: GOMAXPROCS).
	Threads int
	// Warn receives non-fatal warnings.
	Warn func(msg string)
	// Warning, when set, receives the tolerated irregularities of a known
	// kind (see Tolerate) instead of Warn.
	Warning func(kind WarnKind, msg string)
	// Unverified receives a note that some data was decoded but its check
	// could not be verified (an unknown xz check type): the data is given
	// out, and the CLI ends with exit 5 naming it. Nil: Warn gets it.
	Unverified func(msg string)
	// SpoolLimit bounds in bytes a temporary copy a format must make of
	// its input (7z read from a pipe keeps its index at the end): past it,
	// or past the free space (see package spool), the open fails with
	// ErrLimit. 0: the free space alone.
	SpoolLimit int64
	// CopySources asks a format whose file-copy entries repeat earlier
	// data (RAR 5) to give each copy's bytes even when read from a pipe,
	// keeping what it read in a spool bounded as SpoolLimit says: for the
	// outputs that cannot copy a file they wrote (standard output, a tar
	// stream). Unset, such a copy read from a pipe is an Entry.Copy link.
	CopySources bool
	// Image picks one image of a WIM to read, numbered from 1 (0: all of
	// them, each in a folder named by its number when there are several).
	Image int
	// OpenVolume opens another volume of a multi-volume set by path
	// (nil: os.Open). Tests can substitute it.
	OpenVolume func(path string) (*os.File, error)
}

// DefaultMemLimit is the dictionary/window bound when none is given: 1 GiB.
const DefaultMemLimit = 1 << 30

// Limit returns the effective memory limit.
func (o *Options) Limit() int64 {
	if o == nil || o.MemLimit <= 0 {
		return DefaultMemLimit
	}
	return o.MemLimit
}

// Warnf reports a warning if a Warn function is set.
func (o *Options) Warnf(msg string) {
	if o != nil && o.Warn != nil {
		o.Warn(msg)
	}
}

// Unverifiedf reports data decoded without its check.
func (o *Options) Unverifiedf(msg string) {
	if o != nil && o.Unverified != nil {
		o.Unverified(msg)
		return
	}
	o.Warnf(msg)
}

// PasswordList returns the candidate passwords, asking PasswordFunc when none
// were given. It returns ErrNeedPassword when there is no way to get one.
// It changes nothing in o: Options are not written once made, so formats
// may call it from any goroutine.
func (o *Options) PasswordList() ([]string, error) {
	if o == nil {
		return nil, ErrNeedPassword
	}
	if len(o.Passwords) > 0 {
		return o.Passwords, nil
	}
	if o.PasswordFunc != nil {
		pw, err := o.PasswordFunc()
		if err != nil {
			return nil, err
		}
		return []string{pw}, nil
	}
	return nil, ErrNeedPassword
}

// Accepted reports that the candidate pw passed the format's own password
// check: PasswordAccepted is called with its index in PasswordList (the
// first, if it is listed twice). The password itself is never passed on.
func (o *Options) Accepted(pw string) {
	if o == nil || o.PasswordAccepted == nil {
		return
	}
	list, _ := o.PasswordList()
	for i, p := range list {
		if p == pw {
			o.PasswordAccepted(i)
			return
		}
	}
}

// Open opens a volume path through OpenVolume or os.Open.
func (o *Options) Open(path string) (*os.File, error) {
	if o != nil && o.OpenVolume != nil {
		return o.OpenVolume(path)
	}
	return os.Open(path)
}
