package rar

import "github.com/unpack-dev/unpack/internal/archive"

// openRAR4 stands in until the RAR 1.5–4.x reader lands (rar4*.go); that
// work replaces this file.
func openRAR4(in *archive.Input, opt *archive.Options, sfxOffset int64) (archive.Reader, error) {
	return nil, archive.Unsupportedf("rar: RAR 4 format")
}
