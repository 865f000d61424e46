// Package formats opens an input (a file or stdin), detects its format by
// magic bytes and returns the archive.Reader of the right codec: the one
// place that knows every format.
package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"strings"

	"github.com/unpack-dev/unpack/internal/codec/gzip"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/ar"
	"github.com/unpack-dev/unpack/internal/codec/arj"
	"github.com/unpack-dev/unpack/internal/codec/cab"
	"github.com/unpack-dev/unpack/internal/codec/cfb"
	"github.com/unpack-dev/unpack/internal/codec/chm"
	"github.com/unpack-dev/unpack/internal/codec/cpio"
	"github.com/unpack-dev/unpack/internal/codec/lzh"
	"github.com/unpack-dev/unpack/internal/codec/msi"
	"github.com/unpack-dev/unpack/internal/codec/rar"
	"github.com/unpack-dev/unpack/internal/codec/sevenzip"
	"github.com/unpack-dev/unpack/internal/codec/squashfs"
	"github.com/unpack-dev/unpack/internal/codec/tar"
	"github.com/unpack-dev/unpack/internal/codec/wim"
	"github.com/unpack-dev/unpack/internal/codec/xar"
	"github.com/unpack-dev/unpack/internal/codec/zip"
	"github.com/unpack-dev/unpack/internal/spool"
	"github.com/unpack-dev/unpack/internal/verify"
)

// ErrNotImplemented is what Open returns (wrapped, and also
// archive.ErrUnsupported) for a format that is detected but not read yet.
var ErrNotImplemented = errors.New("format not implemented")

type notImplemented struct{ f archive.Format }

func (e *notImplemented) Error() string { return string(e.f) + " archives are not supported yet" }
func (e *notImplemented) Is(target error) bool {
	return target == ErrNotImplemented || target == archive.ErrUnsupported
}

// Opener opens a container format.
type Opener func(in *archive.Input, opt *archive.Options) (archive.Reader, error)

// containers maps each container format to its reader.
var containers = map[archive.Format]Opener{
	archive.Tar:      tar.Open,
	archive.Zip:      zip.Open,
	archive.RAR4:     rar.Open,
	archive.RAR5:     rar.Open,
	archive.SevenZip: sevenzip.Open,
	archive.ISO:      openDisc,
	archive.Squashfs: squashfs.Open,
	archive.Cpio:     cpio.Open,
	archive.Ar:       ar.Open,
	archive.Deb:      openDeb,
	archive.RPM:      openRPM,
	archive.XAR:      xar.Open,
	archive.CFB:      cfb.Open,
	archive.MSI:      msi.Open,
	archive.CAB:      cab.Open,
	archive.CHM:      chm.Open,
	archive.LZH:      lzh.Open,
	archive.ARJ:      arj.Open,
	archive.WIM:      wim.Open,
}

// Implemented reports whether unpack can read format f.
func Implemented(f archive.Format) bool {
	_, c := containers[f]
	_, s := streams[f]
	return c || s
}

// Archive is an opened input: its format and its entries.
type Archive struct {
	Name   string         // as given ("-" for stdin)
	Format archive.Format // the outer format
	Tar    bool           // a single stream whose content is a tar
	Size   int64          // input size, -1 when unknown
	archive.Reader

	src     *source
	checked bool // see StreamChecked
	ahead   bool // see DecodedAhead
	file    *os.File
	closers []io.Closer
}

// StreamChecked reports whether the archive is a compressed stream whose
// own checks cover every entry's data (a tar inside gzip, xz…, or a single
// compressed file), so that an entry without a checksum of its own is
// verified all the same.
// A container whose blocks carry the checks (cabinets) says so for the
// current entry by a Checked method.
func (a *Archive) StreamChecked() bool {
	if c, ok := a.Reader.(interface{ Checked() bool }); ok {
		return c.Checked()
	}
	return a.checked
}

// Consumed is how many input bytes were read so far (for progress).
func (a *Archive) Consumed() int64 { return a.src.Consumed() }

// Close releases the decoders and the file.
func (a *Archive) Close() error {
	var first error
	if a.Reader != nil {
		first = a.Reader.Close()
	}
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	if a.file != nil && a.file != os.Stdin {
		a.file.Close()
	}
	return first
}

// OpenOptions choose how an input is opened.
type OpenOptions struct {
	Format archive.Format // forced format ("" to detect)
	Raw    bool           // a single stream stays one entry even when it holds a tar
	// StoredName names a gzip stream's entry by the file name stored in
	// its header (gunzip -N), when there is one.
	StoredName bool
	Stdin      io.Reader // standard input (nil: os.Stdin)
	// Listing says nothing is written or reported per entry: entries in a
	// compressed stream are not held Pending (which would keep every one
	// until the stream's check), the check still ends the archive.
	Listing bool
}

const headSize = 64 << 10

// Open opens path ("-" for standard input), detects its format and returns
// its entries. Unknown data is archive.ErrNotArchive; a format detected but
// not implemented is archive.ErrUnsupported naming it.
//
// Standard input that is a regular file (a redirect) is read as that file.
// From a pipe, a format read by random access only (see spooled) is first
// copied whole to a spool bounded by opt.SpoolLimit and the free space, then
// read as a file: the result is the file's, entry for entry.
func Open(path string, opt *archive.Options, oo OpenOptions) (*Archive, error) {
	a := &Archive{Name: path, Size: -1}
	in := &archive.Input{Size: -1, Path: path, Name: path, Listing: oo.Listing}
	var head, tail []byte
	var ra io.ReaderAt
	var size int64
	if path == "-" {
		in.Path = ""
		stdin := oo.Stdin
		if stdin == nil {
			stdin = os.Stdin
		}
		ra, size = seekableStdin(stdin)
		if ra == nil {
			a.src = &source{r: stdin}
			br := bufio.NewReaderSize(a.src, 1<<20)
			var err error
			head, err = br.Peek(headSize)
			if len(head) == headSize {
				// Look further for self-extractor stubs when nothing matched.
				if archive.Detect(head, nil, "") == archive.Unknown {
					head, err = br.Peek(br.Size())
				}
			}
			if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
				// A failed read is not retried, nor taken for the end of a
				// short input (which could then be taken for another format).
				return nil, fmt.Errorf("reading standard input: %w", err)
			}
			in.R = br
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		a.file = f
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if fi.Mode().IsRegular() {
			ra, size = f, fi.Size()
		} else {
			a.src = &source{r: f}
			br := bufio.NewReaderSize(a.src, 1<<20)
			head, _ = br.Peek(headSize)
			in.R = br
		}
	}
	if ra != nil {
		head, tail = a.readFrom(in, ra, size, path)
	}
	f := oo.Format
	if f == archive.Unknown {
		f = archive.Detect(head, tail, path)
	}
	if in.RA == nil && (spooled[f] || f == archive.Unknown && bytes.Contains(head, zipLocal)) {
		// Unknown with a zip's local header inside: a zip behind a
		// self-extractor stub, which only its end record (at the end of
		// the input) tells; the spool is then read as a file is.
		s, n, err := a.spool(in.R, opt, f)
		if err != nil {
			a.Close()
			return nil, err
		}
		head, tail = a.readFrom(in, s, n, path)
		if f == archive.Unknown {
			f = archive.Detect(head, tail, path)
		}
	}
	if f == archive.CFB && oo.Format == archive.Unknown && in.RA != nil {
		// A compound file whose root says Windows Installer is read as the
		// tree it installs whatever its name (from a pipe it has none);
		// --format cfb gives its raw streams.
		if c, err := cfb.OpenFile(in.RA, in.Size, opt.Limit()); err == nil && c.IsMSI() {
			f = archive.MSI
		}
	}
	a.Format = f
	if f == archive.Unknown {
		a.Close()
		return nil, archive.ErrNotArchive
	}
	// A raw split set (NAME.001, .002…) is one file cut in pieces; zip and
	// 7z join their own volumes, everything else reads the joined parts.
	if parts := splitParts(path); parts != nil && f != archive.Zip && f != archive.SevenZip {
		j, err := openJoined(parts)
		if err != nil {
			a.Close()
			return nil, err
		}
		a.closers = append(a.closers, j)
		a.src = &source{r: j, ra: j}
		in.RA, in.Size, a.Size = a.src, j.Size(), j.Size()
		in.R = nil
	}
	if in.R == nil {
		// Input read from its start, after detection by ReadAt: its buffer
		// sized for the format.
		in.R = bufio.NewReaderSize(a.src, inputSize(f))
	}
	if err := a.open(in, opt, oo, f); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// readFrom makes in read from ra, size bytes, and returns the head and tail
// that detection looks at; the tail is nil where it cannot change the answer.
func (a *Archive) readFrom(in *archive.Input, ra io.ReaderAt, size int64, path string) (head, tail []byte) {
	a.src = &source{r: io.NewSectionReader(ra, 0, size), ra: ra}
	in.RA, in.Size, a.Size = a.src, size, size
	in.R = nil // made once the format is known (inputSize)
	head = readAt(ra, 0, headSize, size)
	if size <= headSize {
		return head, head
	}
	d := archive.Detect(head, nil, path)
	if d == archive.Unknown || archive.IsEmptyTar(head) {
		head = readAt(ra, 0, archive.SFXScanLimit, size)
	}
	if !archive.TailMatters(d) {
		return head, nil
	}
	tn := min(int64(headSize+22), size)
	return head, readAt(ra, size-tn, int(tn), size)
}

// zipLocal is the signature of a zip local header.
var zipLocal = []byte("PK\x03\x04")

// spooled lists the formats read by random access only, which a pipe is
// copied whole for (see Archive.spool). A zip is one of them although its
// local headers can be streamed: from them alone, entries lack what only
// the central directory holds (Unix modes, hence symlinks; the names and
// attributes the file's reader goes by), so a pipe would give another tree
// than the file. 7z spools in its own reader.
var spooled = map[archive.Format]bool{
	archive.Zip:      true,
	archive.ISO:      true,
	archive.Squashfs: true,
	archive.CFB:      true,
	archive.MSI:      true,
	archive.WIM:      true,
}

// spool copies r, the rest of a pipe (what detection read included), to
// a spool bounded by opt.SpoolLimit and the free space, which the Archive
// closes; f names the format in the error.
func (a *Archive) spool(r io.Reader, opt *archive.Options, f archive.Format) (*spool.File, int64, error) {
	var max int64
	if opt != nil {
		max = opt.SpoolLimit
	}
	s, err := spool.Create(max)
	if err != nil {
		return nil, 0, err
	}
	a.closers = append(a.closers, s)
	n, err := s.ReadFrom(r)
	if err != nil {
		what := string(f)
		if f == archive.Unknown {
			what = "input holding a zip header"
		}
		return nil, 0, fmt.Errorf("%s from a pipe is copied to a temporary file first: %w", what, err)
	}
	return s, n, nil
}

// seekableStdin returns standard input as a ReaderAt of its size, from
// its current offset, when it is a regular file (a redirect): then it is
// read as that file, without a spool.
func seekableStdin(r io.Reader) (io.ReaderAt, int64) {
	f, ok := r.(*os.File)
	if !ok {
		return nil, 0
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil || off > fi.Size() {
		return nil, 0
	}
	return io.NewSectionReader(f, off, fi.Size()-off), fi.Size() - off
}

func readAt(f io.ReaderAt, off int64, n int, size int64) []byte {
	if int64(n) > size-off {
		n = int(size - off)
	}
	b := make([]byte, n)
	n, _ = f.ReadAt(b, off)
	return b[:n]
}

func (a *Archive) open(in *archive.Input, opt *archive.Options, oo OpenOptions, f archive.Format) error {
	if open, ok := containers[f]; ok {
		r, err := open(in, opt)
		if err != nil {
			return archive.Decoded(string(f), err)
		}
		a.Reader = r
		return nil
	}
	open, ok := streams[f]
	if !ok {
		return &notImplemented{f}
	}
	ahead := !oo.Raw && decodeAhead(f, opt)
	dopt := opt
	if ahead && f == archive.Zstd {
		// One decoder goroutine (klauspost's decodeSync, the cheapest per
		// byte), ahead of the entries on one of its own.
		o := *opt
		o.Threads = 1
		dopt = &o
	}
	d, err := open(in.R, dopt)
	if err != nil {
		return archive.Decoded(string(f), err)
	}
	if c, ok := d.(io.Closer); ok {
		a.closers = append(a.closers, c)
	}
	_, a.checked = d.(coverage)
	var ah *archive.Ahead
	src := d
	if _, checked := d.(coverage); ahead && checked {
		// Only a decoder that reports its checks: Ahead's Verified is
		// the decoder's, and makes the entries Pending.
		ah = archive.NewAhead(d, aheadBuffer, aheadBuffers)
		a.closers = append(a.closers, ah) // closed before d: it leaves d first
		src = ah
	}
	cr := &archive.Decoding{R: src, Format: string(f), Ended: trailing(d, string(f), opt)}
	if !oo.Raw {
		br := bufio.NewReaderSize(cr, 256<<10)
		peek, err := br.Peek(512)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			// A short stream that fails: its one entry gives the bytes, then
			// the error, so that the failure is reported for the entry.
			data := append([]byte(nil), peek...)
			a.Reader = a.single(f, io.MultiReader(bytes.NewReader(data), errReader{err}), d, oo)
			return nil
		}
		if archive.IsTarHeader(peek) {
			a.Tar = true
			if g, ok := d.(*gzip.Reader); ok && (opt == nil || opt.Threads <= 0) {
				// By default the entries of a tar.gz decode on one core:
				// the parallel decode's memory (a 70 MiB slab, which
				// also lifts the collector's goal) and 1.3x CPU per
				// byte cost the writers more than they gain (gosrc to
				// disk, docs/BENCHMARKS.md). x -c of the stream (Raw)
				// and --threads N keep it.
				g.Sequential()
			}
			a.startAhead(ah)
			a.Reader = newTarStream(br, pendingFrom(src, oo), opt)
			return nil
		}
		if f == archive.Zstd {
			// Opened for one goroutine: decoded ahead whatever the content.
			a.startAhead(ah)
		}
		if archive.IsCpioHeader(peek) {
			a.Reader = newTarInStream(br, pendingFrom(src, oo), func(r io.Reader) entryReader { return cpio.NewReader(r) })
			return nil
		}
		a.Reader = a.single(f, br, d, oo)
		return nil
	}
	a.Reader = a.single(f, cr, d, oo)
	return nil
}

// The ring of a stream decoded ahead (archive.Ahead): four 256 KiB buffers.
const (
	aheadBuffer  = 256 << 10
	aheadBuffers = 4
)

// decodeAhead tells whether a stream of format f is decoded on a goroutine
// of its own, ahead of the entries read from it, on two cores or more:
// zstd, lz4, xz, lzip and bzip2 unless --threads 1 (the parallel decode
// of bzip2 and of a multi-block xz runs below it as before), gzip unless
// --threads is given (whose parallel decode a tar.gz's entries do not use
// by default).
func decodeAhead(f archive.Format, opt *archive.Options) bool {
	if opt == nil || runtime.GOMAXPROCS(0) < 2 {
		return false
	}
	switch f {
	case archive.Zstd:
		return opt.Threads != 1
	case archive.Gzip:
		return opt.Threads <= 0
	case archive.LZ4, archive.XZ, archive.Lzip, archive.Bzip2:
		return opt.Threads != 1
	}
	return false
}

// startAhead starts ah, if any, and records it (DecodedAhead).
func (a *Archive) startAhead(ah *archive.Ahead) {
	if ah != nil {
		ah.Start()
		a.ahead = true
	}
}

// DecodedAhead reports whether the stream is decoded on a goroutine of its
// own, ahead of the entries (archive.Ahead).
func (a *Archive) DecodedAhead() bool { return a.ahead }

// single makes a one-entry archive of a decompressed stream; d is the
// decoder, which may know a stored name and time (gzip).
func (a *Archive) single(f archive.Format, r io.Reader, d io.Reader, oo OpenOptions) *singleReader {
	e := &archive.Entry{
		Name:       archive.StreamEntryName(a.Name, f),
		Type:       archive.TypeFile,
		Size:       -1,
		PackedSize: a.Size,
		Mode:       0o644,
		Method:     string(f),
	}
	if a.file != nil && a.file != os.Stdin {
		if fi, err := a.file.Stat(); err == nil {
			e.ModTime = fi.ModTime()
		}
	}
	if g, ok := d.(*gzip.Reader); ok {
		e.Checksum = verify.CRC32
		if !g.ModTime.IsZero() {
			e.ModTime = g.ModTime
		}
		if name := path.Base(strings.ReplaceAll(g.Name, "\\", "/")); oo.StoredName && g.Name != "" && name != "." && name != "/" && name != ".." {
			e.Name = name
		}
	}
	return &singleReader{e: e, r: r}
}

// pendingFrom is the decoder whose coverage makes entries Pending: d, or
// nothing when listing.
func pendingFrom(d io.Reader, oo OpenOptions) io.Reader {
	if oo.Listing {
		return nil
	}
	return d
}

// errReader is a reader that fails with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// singleReader is an archive of one entry: a decompressed stream.
type singleReader struct {
	e    *archive.Entry
	r    io.Reader
	done bool
}

func (s *singleReader) Next() (*archive.Entry, error) {
	if s.done {
		return nil, io.EOF
	}
	s.done = true
	return s.e, nil
}

func (s *singleReader) Read(p []byte) (int, error) { return s.r.Read(p) }
func (s *singleReader) Close() error               { return nil }

// All lists every format unpack detects, implemented or not.
func All() []archive.Format {
	return []archive.Format{archive.XZ, archive.LZMA, archive.Lzip, archive.Gzip, archive.Bzip2,
		archive.Zstd, archive.LZ4, archive.Brotli, archive.Tar, archive.Zip, archive.RAR4,
		archive.RAR5, archive.SevenZip, archive.ISO, archive.Squashfs,
		archive.Compress, archive.Lzop, archive.Cpio, archive.Ar, archive.Deb, archive.RPM,
		archive.CAB, archive.CHM, archive.LZH, archive.ARJ,
		archive.XAR, archive.CFB, archive.MSI, archive.WIM}
}
