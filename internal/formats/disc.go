package formats

import (
	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/iso9660"
	"github.com/unpack-dev/unpack/internal/codec/udf"
)

// openDisc opens a disc image: through its UDF file system when it has
// one (where files over 4 GiB exist only in UDF, as 7-Zip prefers it),
// else through ISO 9660.
func openDisc(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if in.RA != nil && udf.Present(in.RA, in.Size) {
		return udf.Open(in, opt)
	}
	return iso9660.Open(in, opt)
}
