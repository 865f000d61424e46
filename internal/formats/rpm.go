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
// stream checks as it is decoded, and its digests once it ends. Entries
// are Pending until the checks covering them pass: the payload's digests,
// when it has them, cover every entry and come last.
func openRPM(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	p, err := rpm.Open(in.R, opt.Limit())
	if err != nil {
		return nil, err
	}
	var stored io.Reader = &source{r: p.Payload}
	stream, cov := stored, io.Reader(nil)
	r := &rpmReader{payload: p.Payload}
	if p.Compressor != "" {
		f := rpmCompressors[p.Compressor]
		dec, err := streams[f](bufio.NewReaderSize(stored, 64<<10), opt)
		if err != nil {
			p.Payload.Close()
			return nil, archive.Decoded(string(f), err)
		}
		r.closer, _ = dec.(io.Closer)
		stream, cov = &archive.Decoding{R: dec, Format: string(f), Ended: trailing(dec, string(f), opt)}, dec
	}
	if p.Digested {
		cov = atTheEnd{}
	}
	if in.Listing {
		cov = nil
	}
	stream = &drainAtEnd{r: stream, rest: stored}
	// No buffer here: the cpio reader's own is filled by the decoder
	// (one copy of the decoded bytes fewer).
	r.tarInStream = newTarInStream(stream, cov,
		func(r io.Reader) entryReader { return cpio.NewReader(r) })
	return r, nil
}

// rpmReader is the cpio archive of an RPM's payload.
type rpmReader struct {
	*tarInStream
	closer  io.Closer // the decoder
	payload io.Closer // the payload's hashing, after the decoder reading it
}

func (r *rpmReader) Close() error {
	err := r.tarInStream.Close()
	if r.closer != nil {
		if cerr := r.closer.Close(); err == nil {
			err = cerr
		}
	}
	r.payload.Close()
	return err
}

// atTheEnd is the coverage of a check that covers the whole stream and
// comes at its end: nothing is verified before the stream has ended.
type atTheEnd struct{}

func (atTheEnd) Read([]byte) (int, error) { return 0, io.EOF }
func (atTheEnd) Verified() int64          { return 0 }

// drainAtEnd reads r; when r ends, it reads rest to its end (the stored
// payload behind a decoder that stops at its stream's end), so that the
// checks made when rest ends are passed or returned before r's io.EOF.
type drainAtEnd struct {
	r, rest io.Reader
}

func (d *drainAtEnd) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err == io.EOF && d.rest != nil {
		rest := d.rest
		d.rest = nil
		if _, derr := io.Copy(io.Discard, rest); derr != nil {
			return n, derr
		}
	}
	return n, err
}
