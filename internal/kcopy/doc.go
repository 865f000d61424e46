// Package kcopy has the kernel copy a byte range of one open file to
// another (sendfile(2) on Linux), so that the bytes never pass through the
// process: a stored file of a disc image goes to standard output, a pipe
// or /dev/null without a read into a buffer and a write out of it.
//
// Send is an optimisation with a fallback, never the only path: where the
// kernel refuses the copy or stops (an O_APPEND file, a file system
// without splice, a full pipe that is non-blocking, a closed pipe, an I/O
// error) it returns what it copied and the error, and the caller copies
// the rest through a buffer, which then meets the error the usual way
// (a closed standard output still ends the process with SIGPIPE).
package kcopy

import "errors"

// ErrUnsupported is Send's error where this system has no kernel copy.
var ErrUnsupported = errors.ErrUnsupported
