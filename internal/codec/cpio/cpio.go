// Package cpio reads cpio archives: the portable ASCII format ("odc",
// 070707), the SVR4 "newc" (070701) and "crc" (070702) formats, and the
// old binary format in either byte order, as GNU cpio and bsdtar write
// them. The crc format's per-file checksum (the sum of the data's bytes)
// is verified when an entry's data ends; the other formats carry none.
//
// Hard links: in newc and crc, the links of one file (same device and
// inode, nlink > 1) carry the data once, on the last of them; the earlier
// ones are held back and given, after the one with the data, as hard links
// to it. In odc and binary archives every link carries the data, and each
// is given as a file.
package cpio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// maxHeld bounds the hard-link names held back at once (a variable for
// the tests).
var maxHeld = 1 << 20

// Errors. Each errors.Is its archive category.
var (
	ErrHeader    = archive.Corruptf("cpio: invalid header")
	ErrTruncated = archive.Corruptf("cpio: truncated archive")
	ErrName      = archive.Corruptf("cpio: invalid file name")
	ErrTooMany   = archive.Limitf("cpio: too many hard links held back")
)

// Kind is one of the cpio header formats.
type Kind uint8

// The header formats.
const (
	Binary Kind = iota + 1 // old binary, either byte order
	ODC                    // portable ASCII, 070707
	Newc                   // SVR4 without checksum, 070701
	CRC                    // SVR4 with the byte-sum checksum, 070702
)

func (k Kind) String() string {
	switch k {
	case Binary:
		return "bin"
	case ODC:
		return "odc"
	case Newc:
		return "newc"
	case CRC:
		return "crc"
	}
	return "unknown"
}

const (
	maxName   = 1 << 16 // longer names are refused
	maxLink   = 1 << 16 // longer symlink targets are refused
	trailer   = "TRAILER!!!"
	modeType  = 0o170000
	modeReg   = 0o100000
	modeDir   = 0o040000
	modeLink  = 0o120000
	modeChar  = 0o020000
	modeBlock = 0o060000
	modeFIFO  = 0o010000
	modeSock  = 0o140000
)

// kindOf names the header format of a header's first six bytes, or 0.
func kindOf(b []byte) Kind {
	switch {
	case string(b) == "070707":
		return ODC
	case string(b) == "070701":
		return Newc
	case string(b) == "070702":
		return CRC
	case b[0] == 0xc7 && b[1] == 0x71, b[0] == 0x71 && b[1] == 0xc7:
		return Binary
	}
	return 0
}

// header is one parsed entry header.
type header struct {
	dev, ino   uint64
	mode       uint64
	nlink      uint64
	mtime      int64
	size       int64
	check      uint32
	nameSize   int64
	devMaj     uint64
	devMin     uint64
	rdev       string
	kind       Kind
	byteOrder  binary.ByteOrder
	headerSize int64
}

type linkKey struct{ dev, ino uint64 }

// Reader is an archive.Reader over a cpio stream.
type Reader struct {
	in   *archive.FileSeq
	r    *bufio.Reader // in.R
	off  int64         // bytes consumed, for the 4-byte alignment of newc
	kind Kind

	remain  int64         // data bytes left in the current entry
	pad     int64         // padding after the data
	sum     atomic.Uint32 // FileSeq's readers add to it at once
	want    uint32
	checked bool // the current entry's data carries a checksum
	err     error

	held      map[linkKey][]*archive.Entry // newc/crc links waiting for their data
	heldOrder []linkKey                    // the keys of held, first seen first
	nHeld     int
	queue     []*archive.Entry // hard links to give before the next header
	done      bool             // the trailer was read
	addSum    func([]byte)     // r.add, made once
	buf       [110]byte
}

// bufSize is the input buffer the headers are read through (and the data
// of small files: longer runs bypass it when the input is a file).
const bufSize = 64 << 10

// Open reads a cpio archive from its input: from the file itself when it
// is one (WriteTo then hands long runs of data to the kernel), else from
// in.R.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	return newReader(fileSeq(in, opt)), nil
}

// fileSeq is the input of Open, read by at most opt.Threads goroutines.
func fileSeq(in *archive.Input, opt *archive.Options) *archive.FileSeq {
	s := archive.NewFileSeq(in, bufSize)
	if opt != nil && opt.Threads > 0 {
		s.Readers = min(s.Readers, opt.Threads)
	}
	return s
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return newReader(archive.NewSeq(r, bufSize))
}

func newReader(in *archive.FileSeq) *Reader {
	r := &Reader{in: in, r: in.R, held: map[linkKey][]*archive.Entry{}}
	r.addSum = r.add
	return r
}

// add adds p to the current entry's byte sum; FileSeq may call it from
// several goroutines at once (a sum adds in any order).
func (r *Reader) add(p []byte) { r.sum.Add(verify.UpdateSum32(0, p)) }

// Kind is the header format of the entries read so far.
func (r *Reader) Kind() Kind { return r.kind }

// Close gives back the buffers of parallel reads; the caller owns the
// input.
func (r *Reader) Close() error {
	r.in.Close()
	return nil
}

func (r *Reader) read(p []byte) error {
	n, err := io.ReadFull(r.r, p)
	r.off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	if err != nil {
		return fmt.Errorf("cpio: reading the input: %w", err)
	}
	return nil
}

func (r *Reader) skip(n int64) error {
	m, err := io.CopyN(io.Discard, r.r, n)
	r.off += m
	if err == io.EOF {
		return ErrTruncated
	}
	if err != nil {
		return fmt.Errorf("cpio: reading the input: %w", err)
	}
	return nil
}

// Next returns the next entry, or io.EOF after the trailer.
func (r *Reader) Next() (*archive.Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	e, err := r.next()
	if err != nil {
		r.err = err
	}
	return e, err
}

func (r *Reader) next() (*archive.Entry, error) {
	if r.remain > 0 || r.pad > 0 {
		if err := r.skip(r.remain + r.pad); err != nil {
			return nil, err
		}
		r.remain, r.pad = 0, 0
	}
	r.checked = false
	for {
		if len(r.queue) > 0 {
			e := r.queue[0]
			r.queue = r.queue[1:]
			return e, nil
		}
		if r.done {
			return nil, io.EOF
		}
		h, name, err := r.readHeader()
		if err != nil {
			return nil, err
		}
		if name == trailer {
			r.done = true
			r.flushHeld()
			continue
		}
		e, err := r.entry(h, name)
		if err != nil {
			return nil, err
		}
		if e == nil {
			continue // held back until its data comes
		}
		return e, nil
	}
}

// entry makes the archive entry of header h, reading a symlink's target;
// nil for a newc link held back.
func (r *Reader) entry(h *header, name string) (*archive.Entry, error) {
	e := &archive.Entry{
		Name:       name,
		Size:       h.size,
		PackedSize: h.size,
		Mode:       archive.UnixMode(uint32(h.mode)),
		ModTime:    time.Unix(h.mtime, 0),
		Method:     "stored",
	}
	r.remain, r.pad = h.size, padding(h.kind, r.off+h.size)
	r.checked = h.kind == CRC
	r.sum.Store(0)
	r.want = h.check
	switch h.mode & modeType {
	case modeReg, 0:
		e.Type = archive.TypeFile
		if r.checked {
			e.Checksum = verify.Sum32
			e.ChecksumValue = binary.BigEndian.AppendUint32(nil, h.check)
		}
		if (h.kind == Newc || h.kind == CRC) && h.nlink > 1 {
			k := linkKey{h.devMaj<<32 | h.devMin, h.ino}
			if h.size == 0 {
				if r.nHeld >= maxHeld {
					return nil, ErrTooMany
				}
				if r.held[k] == nil {
					r.heldOrder = append(r.heldOrder, k)
				}
				r.held[k] = append(r.held[k], e)
				r.nHeld++
				if err := r.skip(r.pad); err != nil {
					return nil, err
				}
				r.pad = 0
				return nil, nil
			}
			for _, l := range r.held[k] {
				l.Type, l.Linkname, l.Size, l.PackedSize = archive.TypeHardlink, name, 0, 0
				l.Checksum, l.ChecksumValue = verify.None, nil
				r.queue = append(r.queue, l)
			}
			r.nHeld -= len(r.held[k])
			delete(r.held, k)
		}
	case modeDir:
		e.Type = archive.TypeDir
	case modeLink:
		if h.size > maxLink {
			return nil, ErrName
		}
		target := make([]byte, h.size)
		if err := r.readData(target); err != nil {
			return nil, err
		}
		if err := r.endData(); err != nil {
			return nil, err
		}
		e.Type, e.Linkname, e.Size = archive.TypeSymlink, string(target), 0
	default:
		e.Type = archive.TypeOther
		switch h.mode & modeType {
		case modeChar:
			e.Device = "character device"
		case modeBlock:
			e.Device = "block device"
		case modeFIFO:
			e.Device = "FIFO"
		case modeSock:
			e.Device = "socket"
		default:
			e.Device = fmt.Sprintf("cpio entry of mode %o", h.mode&modeType)
		}
	}
	if e.Type != archive.TypeFile {
		e.Size = 0
	}
	return e, nil
}

// flushHeld gives the links whose data never came (an empty file with
// several names), in archive order: the first of each inode as an empty
// file, the others linked to it.
func (r *Reader) flushHeld() {
	for _, k := range r.heldOrder {
		group, ok := r.held[k]
		if !ok {
			continue // given with its data, or listed twice
		}
		delete(r.held, k)
		for i, l := range group {
			if i > 0 {
				l.Type, l.Linkname = archive.TypeHardlink, group[0].Name
				l.Checksum, l.ChecksumValue = verify.None, nil
			}
		}
		r.queue = append(r.queue, group...)
	}
	r.heldOrder, r.nHeld = nil, 0
}

// Read reads the current entry's data, verifying the crc format's sum
// when it ends.
func (r *Reader) Read(p []byte) (int, error) {
	if r.remain <= 0 {
		if err := r.endData(); err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	if int64(len(p)) > r.remain {
		p = p[:r.remain]
	}
	n, err := r.r.Read(p)
	r.off += int64(n)
	r.remain -= int64(n)
	if r.checked {
		r.add(p[:n])
	}
	if err == io.EOF {
		if r.remain > 0 {
			r.err = ErrTruncated
			return n, ErrTruncated
		}
		err = nil
	}
	if err != nil {
		err = fmt.Errorf("cpio: reading the input: %w", err)
		r.err = err
	}
	return n, err
}

// readData reads all of a small entry's data into p.
func (r *Reader) readData(p []byte) error {
	if err := r.read(p); err != nil {
		return err
	}
	r.remain = 0
	return nil
}

// endData skips the padding after the data and checks the crc sum, once.
func (r *Reader) endData() error {
	if r.pad > 0 {
		if err := r.skip(r.pad); err != nil {
			r.err = err
			return err
		}
		r.pad = 0
	}
	if r.checked {
		r.checked = false
		if sum := r.sum.Load(); sum != r.want {
			return &verify.MismatchError{Kind: verify.Sum32,
				Want: binary.BigEndian.AppendUint32(nil, r.want), Got: binary.BigEndian.AppendUint32(nil, sum)}
		}
	}
	return nil
}

// padding is how many bytes follow a header, name or data ending at off.
func padding(k Kind, off int64) int64 {
	switch k {
	case Newc, CRC:
		return -off & 3
	case Binary:
		return off & 1
	}
	return 0
}

// readHeader reads the next header and name.
func (r *Reader) readHeader() (*header, string, error) {
	b := r.buf[:6]
	if err := r.read(b); err != nil {
		return nil, "", err
	}
	k := kindOf(b)
	if k == 0 {
		return nil, "", ErrHeader
	}
	if r.kind == 0 {
		r.kind = k
	}
	h := &header{kind: k}
	var err error
	switch k {
	case ODC:
		err = r.readODC(h)
	case Newc, CRC:
		err = r.readNewc(h)
	default:
		err = r.readBinary(h)
	}
	if err != nil {
		return nil, "", err
	}
	if h.nameSize < 1 || h.nameSize > maxName {
		return nil, "", ErrName
	}
	name := make([]byte, h.nameSize)
	if err := r.read(name); err != nil {
		return nil, "", err
	}
	if name[len(name)-1] != 0 {
		return nil, "", ErrName
	}
	name = name[:bytes.IndexByte(name, 0)]
	if len(name) == 0 {
		return nil, "", ErrName
	}
	if err := r.skip(padding(k, r.off)); err != nil {
		return nil, "", err
	}
	if h.size < 0 {
		return nil, "", ErrHeader
	}
	return h, string(name), nil
}

func (r *Reader) readODC(h *header) error {
	b := r.buf[6:76]
	if err := r.read(b); err != nil {
		return err
	}
	fields := []struct {
		v *uint64
		n int
	}{{&h.dev, 6}, {&h.ino, 6}, {&h.mode, 6}, {nil, 6}, {nil, 6}, {&h.nlink, 6}, {nil, 6}}
	for _, f := range fields {
		v, err := strconv.ParseUint(string(b[:f.n]), 8, 64)
		if err != nil {
			return ErrHeader
		}
		if f.v != nil {
			*f.v = v
		}
		b = b[f.n:]
	}
	mtime, err1 := strconv.ParseUint(string(b[:11]), 8, 64)
	nameSize, err2 := strconv.ParseUint(string(b[11:17]), 8, 64)
	size, err3 := strconv.ParseUint(string(b[17:28]), 8, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return ErrHeader
	}
	h.mtime, h.nameSize, h.size = int64(mtime), int64(nameSize), int64(size)
	return nil
}

func (r *Reader) readNewc(h *header) error {
	b := r.buf[6:110]
	if err := r.read(b); err != nil {
		return err
	}
	var v [13]uint64
	for i := range v {
		x, err := strconv.ParseUint(string(b[i*8:i*8+8]), 16, 32)
		if err != nil {
			return ErrHeader
		}
		v[i] = x
	}
	h.ino, h.mode, h.nlink = v[0], v[1], v[4]
	h.mtime, h.size = int64(v[5]), int64(v[6])
	h.devMaj, h.devMin = v[7], v[8]
	h.nameSize, h.check = int64(v[11]), uint32(v[12])
	return nil
}

func (r *Reader) readBinary(h *header) error {
	b := r.buf[:26]
	if err := r.read(b[6:]); err != nil {
		return err
	}
	bo := binary.ByteOrder(binary.LittleEndian)
	if b[0] == 0x71 {
		bo = binary.BigEndian
	}
	w := func(i int) uint64 { return uint64(bo.Uint16(b[2*i:])) }
	h.dev, h.ino, h.mode, h.nlink = w(1), w(2), w(3), w(6)
	h.mtime = int64(w(8)<<16 | w(9))
	h.nameSize = int64(w(10))
	h.size = int64(w(11)<<16 | w(12))
	return nil
}

// WriteTo writes the rest of the current entry's data to w, verifying it
// as Read does: in large writes straight from the input buffer, or, for a
// long run of a file, through the kernel to a RangeWriter when there is no
// sum to add (see archive.FileSeq).
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	var each func([]byte)
	if r.checked {
		each = r.addSum
	}
	n, rerr, werr := r.in.Send(w, r.remain, each)
	r.off += n
	r.remain -= n
	switch {
	case werr != nil:
		return n, werr
	case rerr != nil:
		r.err = fmt.Errorf("cpio: reading the input: %w", rerr)
		return n, r.err
	case r.remain > 0:
		r.err = ErrTruncated
		return n, r.err
	}
	return n, r.endData()
}
