package formats

import (
	"bufio"
	"io"
	"slices"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/tar"
	"github.com/unpack-dev/unpack/internal/queue"
)

// coverage is a stream decoder that tells how many bytes of its output,
// from the start, are covered by checks that passed: gzip and lzip
// members, xz blocks, zstd frames, lz4 blocks or frames, bzip2 blocks.
type coverage interface{ Verified() int64 }

// tarInStream is a tar inside a compressed stream. When the decoder
// carries checks (coverage), they come after the data they cover (a gzip
// member's CRC follows the member): every file, link and directory is
// returned Pending, and settled (archive.Settler) once the decoder has
// verified past the entry's last byte (a link's or directory's header is
// its data), or failed with the error that ended the stream. When the tar ends, the rest of the stream is read, so that
// its checks and trailer are verified too; then every entry is settled.
type tarInStream struct {
	tr   entryReader
	in   tarInput // what the tar reader took from the stream
	rest io.Reader
	cov  coverage // nil: no checks, nothing pending

	fresh bool        // tr returns a new *Entry every time, kept by no one
	tar   *tar.Reader // tr, when read straight from the stream's buffer (see newTarStream)

	held queue.Queue[heldEntry] // pending entries not yet settled, in order
	done []archive.Verdict      // decided, not yet returned by Settled
}

// heldEntry is a pending entry, by its Hold, and the stream offset its
// data end at or before (-1 while its data are being read). It has no
// pointer: a one-frame stream holds every entry of the tar to its end,
// and none of them costs the garbage collector anything.
type heldEntry struct {
	hold uint64
	end  int64
}

// tarInput counts the bytes the tar reader takes from the stream: once
// the tar reader has returned an entry's last byte, the count is at or
// past that byte's offset in the stream.
type tarInput struct {
	r io.Reader
	n int64
}

func (t *tarInput) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.n += int64(n)
	return n, err
}

// entryReader is the archive inside the stream: a tar or a cpio reader.
type entryReader interface {
	Next() (*archive.Entry, error)
	Read(p []byte) (int, error)
	Close() error
}

// newTarInStream reads the archive open makes of the decoded stream (a tar
// or a cpio reader), decoder being the stream's decoder.
func newTarInStream(stream io.Reader, decoder io.Reader, open func(io.Reader) entryReader) *tarInStream {
	t := &tarInStream{rest: stream}
	t.in.r = stream
	t.cov, _ = decoder.(coverage)
	t.tr = open(&t.in)
	_, t.fresh = t.tr.(*tar.Reader)
	return t
}

// newTarStream reads the tar in the decoded stream, buffered by br: the
// tar reader takes entries' data straight from br's buffer (no copy
// through a counting reader), and tells itself where their data end.
func newTarStream(br *bufio.Reader, decoder io.Reader, opt *archive.Options) *tarInStream {
	t := &tarInStream{rest: br, fresh: true}
	t.cov, _ = decoder.(coverage)
	t.tar = tar.NewReader(br, opt)
	t.tr = t.tar
	return t
}

// taken is how many bytes of the stream the tar reader has taken.
func (t *tarInStream) taken() int64 {
	if t.tar != nil {
		return t.tar.Offset()
	}
	return t.in.n
}

// Next returns the next entry; every entry but a device or FIFO is Pending
// when the stream has checks.
func (t *tarInStream) Next() (*archive.Entry, error) {
	e, err := t.tr.Next()
	t.dataEnded()
	if err == io.EOF {
		if _, derr := io.Copy(io.Discard, t.rest); derr != nil {
			t.fail(derr)
			return nil, derr
		}
		t.settle(-1)
		return nil, io.EOF
	}
	if err != nil {
		t.fail(err)
		return nil, err
	}
	if t.cov != nil && e.Type != archive.TypeOther {
		if !t.fresh {
			c := *e // a new *Entry for every pending entry
			e = &c
		}
		e.Pending, e.Hold = true, archive.NextHold()
		t.held.Push(heldEntry{hold: e.Hold, end: -1})
	}
	return e, nil
}

// Read reads the current entry's data.
func (t *tarInStream) Read(p []byte) (int, error) {
	n, err := t.tr.Read(p)
	switch {
	case err == io.EOF:
		t.dataEnded()
	case err != nil:
		t.fail(err)
	}
	return n, err
}

// WriteTo writes the current entry's data to w through the archive
// reader's own WriteTo, so that a sparse entry's holes reach a
// HoleWriter as holes rather than as zeros.
func (t *tarInStream) WriteTo(w io.Writer) (int64, error) {
	wt, ok := t.tr.(io.WriterTo)
	if !ok {
		return archive.Copy(w, onlyReader{t})
	}
	n, err := wt.WriteTo(w)
	if err == nil {
		t.dataEnded()
	}
	// A reader's error comes back from the next Next, which fails the held
	// entries; a sink's error is the current entry's alone.
	return n, err
}

// onlyReader hides a reader's WriteTo.
type onlyReader struct{ io.Reader }

// Close closes the tar reader; the decoder is the Archive's to close.
func (t *tarInStream) Close() error { return t.tr.Close() }

// Settled returns the verdicts decided since the last call.
func (t *tarInStream) Settled() []archive.Verdict {
	if t.cov != nil {
		t.settle(t.cov.Verified())
	}
	v := t.done
	t.done = nil
	return v
}

// dataEnded records where the current pending entry's data end, if not
// yet known: at or before what the tar reader has taken.
func (t *tarInStream) dataEnded() {
	if k := t.held.Len() - 1; k >= 0 && t.held.At(k).end < 0 {
		t.held.At(k).end = t.taken()
	}
}

// settle passes the held entries whose data end at or before verified
// (all of them for -1: the stream was verified to its end).
func (t *tarInStream) settle(verified int64) {
	i := 0
	for ; i < t.held.Len(); i++ {
		h := t.held.At(i)
		if verified >= 0 && (h.end < 0 || h.end > verified) {
			break
		}
	}
	t.done = slices.Grow(t.done, i) // at the end of a one-frame stream: every entry
	for k := range i {
		t.done = append(t.done, archive.Verdict{Hold: t.held.At(k).hold})
	}
	t.held.Drop(i)
}

// fail fails every held entry with err, which ended the stream.
func (t *tarInStream) fail(err error) {
	t.done = slices.Grow(t.done, t.held.Len())
	for k := range t.held.Len() {
		t.done = append(t.done, archive.Verdict{Hold: t.held.At(k).hold, Err: err})
	}
	t.held.Drop(t.held.Len())
}
