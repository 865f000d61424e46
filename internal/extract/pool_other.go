//go:build !linux

package extract

import (
	"io"
	"io/fs"

	"github.com/unpack-dev/unpack/internal/archive"
)

// The pool of writers for held files is Linux's (see pool_linux.go): here
// every file is written on the caller's goroutine.

type writers struct{}

type writeJob struct{}

func (d *Dir) queueable(string, *archive.Entry) bool { return false }

type splitState struct{}

func (d *Dir) putQueued(string, *archive.Entry, io.Reader, fs.FileMode) error {
	return errNoFastPath
}

func (d *Dir) stopWriters() {}

func (d *Dir) wait(*hold) error { return nil }

func (d *Dir) closeHeld(*writeJob) {}

func (d *Dir) nameHeld(*hold) error { return nil }

type fastCommit struct{}

func (d *Dir) commitQueued(heldKey, error, *fastCommit) bool { return false }

func (d *Dir) finishCommit(*fastCommit) error { return nil }

func (d *Dir) flushWriters() {}
