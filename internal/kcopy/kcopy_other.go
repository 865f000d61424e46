//go:build !linux

package kcopy

import "os"

// Send has no kernel copy here: it copies nothing and returns
// ErrUnsupported.
func Send(dst, src *os.File, off, n int64) (int64, error) { return 0, ErrUnsupported }

// File has no kernel copy here: it copies nothing and returns
// ErrUnsupported.
func File(dst int, src *os.File, off, n int64) (int64, error) { return 0, ErrUnsupported }
