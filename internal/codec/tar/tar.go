// Package tar reads tar archives as an archive.Reader: POSIX ustar and pax
// (IEEE Std 1003.1-2001, global and per-file extended headers), GNU tar's
// format (long names and link names, old sparse files with extension
// headers, pax sparse files of versions 0.0, 0.1 and 1.0), star and v7.
//
// It reads what GNU tar reads, as GNU tar reads it: numeric fields in octal
// or base-256 parsed by GNU's rules, header checksums signed or unsigned,
// the end at one zero block (with a warning when a second does not follow),
// malformed pax records ignored with a warning. Tar carries no data
// checksum; header checksums are checked. A sparse file's holes cost
// nothing when its data is written to an archive.HoleWriter.
package tar

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Reader is an archive.Reader over a tar stream.
type Reader struct {
	r   io.Reader
	br  *bufio.Reader    // r, when it is one: WriteTo writes from its buffer
	seq *archive.FileSeq // r's source when Open read a file: long runs of data go through the kernel
	opt *archive.Options
	err error // sticky: the archive cannot be read further
	off int64 // bytes of the archive consumed, for messages
	blk block
	pax paxRecords

	// The current entry.
	left   int64            // stored data bytes not yet consumed
	pad    int64            // padding after them
	data   bool             // the entry's data can be read (a file)
	entErr error            // the entry fails alone (a sparse map that cannot be parsed)
	sp     *sparseRun       // the holes and regions of a sparse file, nil for a dense one
	lim    io.LimitedReader // copyData's reader, kept here: no allocation per entry
}

// Open reads a tar archive from its input: from the file itself when it
// is one (WriteTo then hands long runs of data to the kernel, see
// archive.FileSeq), else from in.R.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if in.RA == nil || in.Size < 0 {
		return NewReader(in.R, opt), nil
	}
	seq := archive.NewFileSeq(in, bufSize)
	r := NewReader(seq.R, opt)
	r.seq = seq
	return r, nil
}

// bufSize is the buffer Open reads a file's headers (and short data)
// through.
const bufSize = 256 << 10

// NewReader returns a Reader over r; opt (may be nil) receives warnings and
// bounds the memory of header data.
func NewReader(r io.Reader, opt *archive.Options) *Reader {
	br, _ := r.(*bufio.Reader)
	return &Reader{r: r, br: br, opt: opt}
}

// errTruncated is the error of an archive that ends inside a header or an
// entry's data.
var errTruncated = archive.Corruptf("tar: truncated archive")

// errHeaderChecksum is a header whose checksum field does not add up (given
// with its offset, an archive.OffsetError).
var errHeaderChecksum = archive.Corruptf("tar: invalid header checksum")

// Next returns the next entry, or io.EOF after the last.
func (r *Reader) Next() (*archive.Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	e, err := r.next()
	if err != nil {
		r.err = err
		r.data, r.sp = false, nil
	}
	return e, err
}

func (r *Reader) next() (*archive.Entry, error) {
	var longName, longLink *string
	for {
		if err := r.skip(r.left + r.pad); err != nil {
			return nil, err
		}
		r.left, r.pad, r.data, r.entErr, r.sp = 0, 0, false, nil, nil
		end, err := r.readHeader()
		if err != nil {
			return nil, err
		}
		if end {
			return nil, io.EOF
		}
		b := &r.blk
		var size int64
		if b[offType] != '1' {
			// A hard link has no data, whatever its size field says
			// (GNU tar; some tars store the target's size there).
			var ok bool
			size, ok = parseNumeric(b[offSize:offSize+12], false)
			if !ok || size < 0 {
				return nil, &archive.OffsetError{Offset: r.off - blockSize, Err: archive.Corruptf("tar: invalid size field in the header of %q", b.name())}
			}
		}
		r.left, r.pad = size, -size&(blockSize-1)
		switch typ := b[offType]; typ {
		case 'x', 'X', 'g':
			buf, err := r.special(size)
			if err != nil {
				return nil, err
			}
			r.pax.parse(buf, typ == 'g', r.opt)
		case 'L', 'K':
			buf, err := r.special(size)
			if err != nil {
				return nil, err
			}
			s := cstring(buf)
			switch {
			case s == "":
				// An empty long name names nothing: the header's
				// field is used (as archive/tar and bsdtar do).
			case typ == 'L':
				longName = &s
			default:
				longLink = &s
			}
		case 'V':
			// A volume label: nothing to extract (GNU tar lists it with -v).
		case 'M', 'N':
			what := "a GNU multi-volume continuation"
			if typ == 'N' {
				what = "an obsolete GNU long-names header"
			}
			r.opt.Tolerate(archive.WarnTarHeaderSkipped, fmt.Sprintf("tar: %q: %s is not extracted; skipped", b.name(), what))
		default:
			e, err := r.entry(longName, longLink)
			r.pax.reset()
			return e, err
		}
	}
}

// readHeader reads the next header block, checked. end reports the end of
// the archive: a zero block, or the input ending where a header would
// start. GNU tar ends at one zero block, warning when the next block is
// missing or not zero.
func (r *Reader) readHeader() (end bool, err error) {
	if err := r.readBlock(); err != nil {
		if err == io.EOF {
			return true, nil
		}
		return false, err
	}
	at := r.off - blockSize
	if !r.blk.isZero() {
		if !r.blk.checksumOK() {
			return false, &archive.OffsetError{Offset: at, Err: errHeaderChecksum}
		}
		return false, nil
	}
	err = r.readBlock()
	switch {
	case err == nil && r.blk.isZero():
		return true, nil
	case err == nil || err == io.EOF || err == errTruncated:
		r.opt.Tolerate(archive.WarnLoneZeroBlock, fmt.Sprintf("tar: the archive ends at a lone zero block (byte %d)", at))
		return true, nil
	}
	return false, err
}

// readBlock reads one block into r.blk: io.EOF when the input ends before
// it, errTruncated inside it.
func (r *Reader) readBlock() error {
	n, err := io.ReadFull(r.r, r.blk[:])
	r.off += int64(n)
	if err == nil {
		return nil
	}
	if n == 0 && err == io.EOF {
		return io.EOF
	}
	return inputError(err)
}

// inputError makes the error of reading the input one of the categories: an
// early end is a truncated archive, a stream codec's error passes as it is,
// anything else is an I/O error (not damage), kept.
func inputError(err error) error {
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return errTruncated
	case archive.Categorized(err):
		return err
	}
	return fmt.Errorf("tar: reading the input: %w", err)
}

// special reads the data of a header that describes the next one (a pax
// header, a GNU long name): held in memory, so bounded by the memory limit.
func (r *Reader) special(size int64) ([]byte, error) {
	if size > r.opt.Limit() {
		return nil, archive.Limitf("tar: an extended header of %d bytes is above the memory limit", size)
	}
	buf := make([]byte, 0, min(size, 64<<10))
	for int64(len(buf)) < size {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		k := min(int64(cap(buf)-len(buf)), size-int64(len(buf)))
		n, err := io.ReadFull(r.r, buf[len(buf):len(buf)+int(k)])
		r.off += int64(n)
		buf = buf[:len(buf)+n]
		if err != nil {
			return nil, inputError(err)
		}
	}
	r.left = 0
	return buf, nil
}

// entry makes the entry of the header in r.blk, with the pax records and
// GNU long names that came before it.
func (r *Reader) entry(longName, longLink *string) (*archive.Entry, error) {
	b := &r.blk
	f := b.format()
	typ := b[offType]
	e := &archive.Entry{
		Name:       b.name(),
		Size:       r.left,
		PackedSize: -1,
		Linkname:   cstring(b[offLinkname : offLinkname+100]),
		Method:     "stored",
	}
	if longName != nil {
		e.Name = *longName
	}
	if longLink != nil {
		e.Linkname = *longLink
	}
	if mode, ok := parseNumeric(b[offMode:offMode+8], false); ok {
		e.Mode = archive.UnixMode(uint32(mode))
	} else {
		r.badField("mode")
	}
	if t, ok := parseNumeric(b[offMtime:offMtime+12], false); ok {
		e.ModTime = time.Unix(t, 0)
	} else {
		r.badField("mtime")
	}
	switch {
	case f == formatGNU && b[offGNUAtime] != 0:
		if t, ok := parseNumeric(b[offGNUAtime:offGNUAtime+12], false); ok {
			e.AccessTime = time.Unix(t, 0)
		}
	case f == formatStar:
		if t, ok := parseNumeric(b[offStarAtime:offStarAtime+12], false); ok {
			e.AccessTime = time.Unix(t, 0)
		}
	}
	r.applyPax(e)

	switch typ {
	case '0', 0, '7':
		e.Type = archive.TypeFile
		if strings.HasSuffix(e.Name, "/") {
			// A slash suffix makes a directory (old BSD tars); its
			// data, if any, is skipped.
			e.Type, e.Size = archive.TypeDir, 0
		}
	case '1':
		e.Type, e.Size = archive.TypeHardlink, 0
	case '2':
		e.Type, e.Size = archive.TypeSymlink, 0
	case '3':
		e.Type, e.Size, e.Device = archive.TypeOther, 0, "character device"
	case '4':
		e.Type, e.Size, e.Device = archive.TypeOther, 0, "block device"
	case '6':
		e.Type, e.Size, e.Device = archive.TypeOther, 0, "FIFO"
	case '5':
		// A directory's size, if not zero, is no data (GNU tar).
		e.Type, e.Size, r.left, r.pad = archive.TypeDir, 0, 0, 0
	case 'D':
		e.Type, e.Size = archive.TypeDir, 0
		if r.left > 0 {
			r.opt.Tolerate(archive.WarnTarHeaderSkipped,
				fmt.Sprintf("tar: %q: the listing of a GNU incremental dump directory is not used; skipped", e.Name))
		}
	case 'S':
		e.Type = archive.TypeFile
		if err := r.oldSparse(e, f); err != nil {
			return nil, err
		}
	default:
		e.Type = archive.TypeFile
		r.opt.Tolerate(archive.WarnTarUnknownType,
			fmt.Sprintf("tar: %q: unknown entry type %q, read as a regular file", e.Name, typ))
	}
	if e.Type == archive.TypeFile {
		r.data = true
		if typ != 'S' {
			if err := r.paxSparse(e); err != nil {
				return nil, err
			}
		}
	}
	return e, nil
}

// badField warns of a numeric field that cannot be parsed.
func (r *Reader) badField(field string) {
	r.opt.Tolerate(archive.WarnTarBadField, fmt.Sprintf("tar: %q: the %s field cannot be parsed; taken as unknown", r.blk.name(), field))
}

// applyPax sets what the pax records say over the ustar fields. Their
// values were checked as they were parsed.
func (r *Reader) applyPax(e *archive.Entry) {
	p := &r.pax
	if v, ok := p.get(paxPath); ok {
		e.Name = v
	}
	if v, ok := p.get(paxLinkpath); ok {
		e.Linkname = v
	}
	if v, ok := p.get(paxSize); ok {
		n, _ := parseDecimal(v)
		e.Size, r.left, r.pad = n, n, -n&(blockSize-1)
	}
	if v, ok := p.get(paxMtime); ok {
		e.ModTime, _ = parsePaxTime(v)
	}
	if v, ok := p.get(paxAtime); ok {
		e.AccessTime, _ = parsePaxTime(v)
	}
	if v, ok := p.get(paxComment); ok {
		e.Comment = v
	}
}

// skip discards n bytes of the input.
func (r *Reader) skip(n int64) error {
	if n == 0 {
		return nil
	}
	var err error
	if r.br != nil {
		for n > 0 && err == nil {
			var k int
			k, err = r.br.Discard(int(min(n, 1<<30)))
			n -= int64(k)
			r.off += int64(k)
		}
	} else {
		var k int64
		k, err = io.CopyN(io.Discard, r.r, n)
		n -= k
		r.off += k
	}
	if n > 0 {
		return inputError(err)
	}
	return nil
}

// Read reads the current entry's data, sparse holes expanded as zeros.
func (r *Reader) Read(p []byte) (int, error) {
	switch {
	case r.err != nil:
		return 0, r.err
	case r.entErr != nil:
		return 0, r.entErr
	case !r.data:
		return 0, io.EOF
	case r.sp != nil:
		return r.sp.read(r, p)
	}
	return r.readData(p)
}

// readData reads stored data of the current entry.
func (r *Reader) readData(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.r.Read(p)
	r.left -= int64(n)
	r.off += int64(n)
	if err != nil {
		if err == io.EOF && r.left == 0 {
			return n, nil
		}
		r.err = inputError(err)
		return n, r.err
	}
	return n, nil
}

// WriteTo writes the current entry's data to w, as io.Copy from Read
// would, but a sparse file's holes go to a HoleWriter as WriteHole calls,
// which cost nothing whatever their size; and data read through a
// bufio.Reader is written from its buffer.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	switch {
	case r.err != nil:
		return 0, r.err
	case r.entErr != nil:
		return 0, r.entErr
	case !r.data:
		return 0, nil
	case r.sp != nil:
		return r.sp.writeTo(r, w)
	}
	return r.copyData(w, r.left)
}

// copyData writes the next n stored bytes of the entry to w.
func (r *Reader) copyData(w io.Writer, n int64) (int64, error) {
	if r.seq != nil {
		done, rerr, werr := r.seq.Send(w, n, nil)
		r.left -= done
		r.off += done
		switch {
		case werr != nil:
			return done, werr
		case rerr != nil:
			r.err = inputError(rerr)
			return done, r.err
		case done < n:
			r.err = errTruncated
			return done, r.err
		}
		return done, nil
	}
	var done int64
	if r.br != nil {
		for done < n {
			if r.br.Buffered() == 0 {
				if _, err := r.br.Peek(1); err != nil {
					r.err = inputError(err)
					return done, r.err
				}
			}
			k := int(min(int64(r.br.Buffered()), n-done))
			buf, _ := r.br.Peek(k)
			m, err := w.Write(buf)
			if m < len(buf) && err == nil {
				err = io.ErrShortWrite
			}
			r.br.Discard(m)
			r.left -= int64(m)
			r.off += int64(m)
			done += int64(m)
			if err != nil {
				return done, err
			}
		}
		return done, nil
	}
	r.lim = io.LimitedReader{R: dataReader{r}, N: n}
	return archive.Copy(w, &r.lim)
}

// dataReader reads the entry's stored bytes (Reader.readData).
type dataReader struct{ r *Reader }

func (d dataReader) Read(p []byte) (int, error) { return d.r.readData(p) }

// Offset is how many bytes of its input the reader has consumed: once it
// has returned an entry's last byte, the offset of the byte after it.
func (r *Reader) Offset() int64 { return r.off }

// Close gives back the buffers of parallel reads; the caller owns the
// input.
func (r *Reader) Close() error {
	if r.seq != nil {
		r.seq.Close()
	}
	return nil
}

// failEntry fails the current entry alone: its data is skipped by Next.
func (r *Reader) failEntry(err error) {
	r.entErr = fmt.Errorf("tar: %w", err)
	r.sp = nil
}
