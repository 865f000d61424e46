package formats

import (
	"bufio"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/cpio"
	"github.com/unpack-dev/unpack/internal/codec/rpm"
)

// rpmCompressors maps an RPM payload compressor to its stream format.
var rpmCompressors = map[string]archive.Format{
	"gzip": archive.Gzip, "bzip2": archive.Bzip2, "xz": archive.XZ, "lzma": archive.LZMA, "zstd": archive.Zstd,
}

// openRPM reads an RPM package as the cpio archive of its payload, in one
// pass: the header digests are checked as it opens; the payload's own
// stream checks as it is decoded, and its digests once it ends.
func openRPM(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	p, err := rpm.Open(in.R, opt.Limit())
	if err != nil {
		return nil, err
	}
	src := &source{r: p.Payload}
	var payload io.Reader = src
	r := &rpmReader{payload: payload, signed: p.Signed}
	if p.Compressor != "" {
		f := rpmCompressors[p.Compressor]
		dec, err := streams[f](bufio.NewReaderSize(payload, 64<<10), opt)
		if err != nil {
			return nil, archive.Decoded(string(f), err)
		}
		r.closer, _ = dec.(io.Closer)
		payload = &archive.Decoding{R: dec, Format: string(f), Ended: trailing(dec, string(f), opt)}
	}
	r.rest = payload
	r.Reader = cpio.NewReader(bufio.NewReaderSize(payload, 64<<10))
	return r, nil
}

// rpmReader is the cpio archive of an RPM's payload. When the cpio ends,
// the rest of the payload is read, so that the stream's checks and the
// payload digests are verified to its end.
type rpmReader struct {
	*cpio.Reader
	rest    io.Reader // the decoded payload
	payload io.Reader // the payload as stored (its digests)
	closer  io.Closer
	signed  bool
}

func (r *rpmReader) Next() (*archive.Entry, error) {
	e, err := r.Reader.Next()
	if err == io.EOF {
		if _, derr := io.Copy(io.Discard, r.rest); derr != nil {
			return nil, derr
		}
		if _, derr := io.Copy(io.Discard, r.payload); derr != nil {
			return nil, derr
		}
	}
	return e, err
}

func (r *rpmReader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}
