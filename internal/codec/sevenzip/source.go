package sevenzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/spool"
	"github.com/unpack-dev/unpack/internal/verify"
)

var magic = []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}

// sigHeaderSize is the size of the signature header at the archive start.
const sigHeaderSize = 32

// openSource returns a ReaderAt over the whole archive: the input itself, its
// volumes concatenated when the path ends in .001, or, for a pipe, a
// temporary file holding what was read (7z keeps its index at the end),
// bounded by opt.SpoolLimit and the free space (package spool).
func openSource(in *archive.Input, opt *archive.Options) (io.ReaderAt, int64, []io.Closer, error) {
	if in.RA == nil {
		ra, n, tmp, err := spool.RandomAccess(in, opt)
		if err != nil {
			return nil, 0, nil, err
		}
		return ra, n, []io.Closer{tmp}, nil
	}
	if !strings.HasSuffix(in.Path, ".001") {
		return in.RA, in.Size, nil, nil
	}
	stem := strings.TrimSuffix(in.Path, ".001")
	m := &multiReaderAt{}
	m.add(in.RA, in.Size)
	var closers []io.Closer
	for k := 2; k < 100000; k++ {
		f, err := opt.Open(fmt.Sprintf("%s.%03d", stem, k))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			closeAll(closers)
			return nil, 0, nil, err
		}
		closers = append(closers, f)
		st, err := f.Stat()
		if err != nil {
			closeAll(closers)
			return nil, 0, nil, err
		}
		m.add(f, st.Size())
	}
	if len(m.parts) == 1 {
		return in.RA, in.Size, nil, nil
	}
	return m, m.size, closers, nil
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

// multiReaderAt reads volumes as one file.
type multiReaderAt struct {
	parts []part
	size  int64
}

type part struct {
	ra       io.ReaderAt
	off, len int64
}

func (m *multiReaderAt) add(ra io.ReaderAt, n int64) {
	m.parts = append(m.parts, part{ra, m.size, n})
	m.size += n
}

func (m *multiReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("7z: negative offset")
	}
	i := sort.Search(len(m.parts), func(i int) bool { return m.parts[i].off+m.parts[i].len > off })
	n := 0
	for n < len(p) && i < len(m.parts) {
		pt := m.parts[i]
		rel := off + int64(n) - pt.off
		want := min(int64(len(p)-n), pt.len-rel)
		k, err := pt.ra.ReadAt(p[n:n+int(want)], rel)
		n += k
		if err != nil && !(err == io.EOF && int64(k) == want) {
			return n, err
		}
		if int64(k) < want {
			return n, io.ErrUnexpectedEOF
		}
		i++
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// sigHeader is the parsed signature header.
type sigHeader struct {
	nextOff, nextSize uint64
	nextCRC           uint32
	unfinished        bool // all zero: the writer never came back to fill it in
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func parseSigHeader(b []byte) (sigHeader, bool) {
	if len(b) < sigHeaderSize || !bytes.HasPrefix(b, magic) || b[6] != 0 {
		return sigHeader{}, false
	}
	if verify.SumCRC32(b[12:32]) != binary.LittleEndian.Uint32(b[8:]) {
		return sigHeader{}, false
	}
	return sigHeader{
		nextOff:  binary.LittleEndian.Uint64(b[12:]),
		nextSize: binary.LittleEndian.Uint64(b[20:]),
		nextCRC:  binary.LittleEndian.Uint32(b[28:]),
	}, true
}

// findSignature locates the signature header: at the start, or behind a
// self-extractor stub within archive.SFXScanLimit.
func findSignature(ra io.ReaderAt, size int64) (int64, sigHeader, error) {
	var b [sigHeaderSize]byte
	if _, err := ra.ReadAt(b[:], 0); err == nil {
		if sh, ok := parseSigHeader(b[:]); ok {
			return 0, sh, nil
		}
		if bytes.HasPrefix(b[:], magic) && b[6] != 0 {
			return 0, sigHeader{}, archive.Unsupportedf("7z: format version %d.%d", b[6], b[7])
		}
		if bytes.HasPrefix(b[:], magic) && allZero(b[8:]) {
			return 0, sigHeader{unfinished: true}, nil
		}
	}
	scan := make([]byte, min(size, archive.SFXScanLimit+sigHeaderSize))
	n, _ := ra.ReadAt(scan, 0)
	scan = scan[:n]
	for from := 1; from < len(scan); {
		i := bytes.Index(scan[from:], magic)
		if i < 0 {
			break
		}
		at := from + i
		if _, err := ra.ReadAt(b[:], int64(at)); err == nil {
			if sh, ok := parseSigHeader(b[:]); ok {
				return int64(at), sh, nil
			}
		}
		from = at + 1
	}
	return 0, sigHeader{}, ErrBadSignature
}
