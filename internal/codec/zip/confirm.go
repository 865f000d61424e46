package zip

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// ErrNotListed is the verdict on an entry read from a pipe by its local
// header that the central directory does not list: it is no part of the
// archive as a seekable reader (or unzip) sees it. It is an
// archive.ErrRefused.
var ErrNotListed = archive.Errorf(archive.ErrRefused, "zip: local entry not listed in the central directory")

// heldLocal is an entry StreamReader returned Pending: its local header
// waits for the central directory to confirm it.
type heldLocal struct {
	e *archive.Entry
	h *header
}

// Settled returns the verdicts decided since the last call: all of them
// once the central directory has been read (Next's io.EOF), or once the
// stream failed.
func (s *StreamReader) Settled() []archive.Verdict {
	v := s.verdicts
	s.verdicts = nil
	return v
}

// failHeld fails every held entry with err.
func (s *StreamReader) failHeld(err error) {
	for _, l := range s.held {
		s.verdicts = append(s.verdicts, archive.Verdict{Entry: l.e, Err: err})
	}
	s.held = nil
}

// confirm reads the central directory that follows the last local entry
// and settles every held entry against it, so that the entries written are
// those the seekable Reader would write: a local header whose name or
// method (or, without a data descriptor, CRC and sizes) differ from its
// central record is refused with ErrHeaderMismatch, as Reader refuses it;
// a local entry the directory does not list gets ErrNotListed. Input that
// ends without a central directory confirms nothing and refuses nothing:
// then the local headers are all there is, as Reader reads a file without
// an end record.
func (s *StreamReader) confirm() error {
	held := s.held
	s.held = nil
	start := s.pos()
	var recs []*header
	for {
		sig, err := s.br.Peek(4)
		if err != nil || binary.LittleEndian.Uint32(sig) != sigCentral {
			break
		}
		fixed, err := s.br.Peek(centralLen)
		if err != nil {
			return s.failConfirm(held, ErrTruncated)
		}
		n := centralLen + int(binary.LittleEndian.Uint16(fixed[28:])) +
			int(binary.LittleEndian.Uint16(fixed[30:])) + int(binary.LittleEndian.Uint16(fixed[32:]))
		b := make([]byte, n)
		if _, err := io.ReadFull(s.br, b); err != nil {
			return s.failConfirm(held, ErrTruncated)
		}
		h, _, err := parseCentral(b)
		if err != nil {
			return s.failConfirm(held, err)
		}
		recs = append(recs, h)
	}
	if len(recs) == 0 {
		for _, l := range held {
			s.verdicts = append(s.verdicts, archive.Verdict{Entry: l.e})
		}
		return nil
	}
	// Central offsets count from the archive's start, which a
	// self-extractor stub moves: the end record says where the directory
	// should be, the input where it is.
	base := int64(0)
	if off, ok := s.directoryOffset(); ok && off <= start {
		base = start - off
	}
	byOffset := make(map[int64]*header, len(recs))
	for _, h := range recs {
		byOffset[h.offset+base] = h
	}
	for _, l := range held {
		s.verdicts = append(s.verdicts, archive.Verdict{Entry: l.e, Err: agree(l.h, byOffset[l.h.offset])})
	}
	return nil
}

func (s *StreamReader) failConfirm(held []heldLocal, err error) error {
	s.held = held
	s.failHeld(err)
	return err
}

// directoryOffset reads the records after the central directory (zip64
// end record and locator, end record) and returns the directory offset
// the archive declares.
func (s *StreamReader) directoryOffset() (int64, bool) {
	var off64 int64 = -1
	for {
		sig, err := s.br.Peek(4)
		if err != nil {
			return 0, false
		}
		switch binary.LittleEndian.Uint32(sig) {
		case sigEnd64:
			b, err := s.br.Peek(end64Len)
			if err != nil {
				return 0, false
			}
			if o := binary.LittleEndian.Uint64(b[48:]); o < 1<<62 {
				off64 = int64(o)
			}
			s.br.Discard(end64Len)
		case sigLocator64:
			s.br.Discard(locator64Len)
		case sigEnd:
			b, err := s.br.Peek(endLen)
			if err != nil {
				return 0, false
			}
			if o := binary.LittleEndian.Uint32(b[16:]); o != 0xFFFFFFFF {
				return int64(o), true
			}
			return off64, off64 >= 0
		default:
			return 0, false
		}
	}
}

// agree compares a local header with its central record (nil: none).
func agree(local, central *header) error {
	switch {
	case central == nil:
		return archive.Errorf(ErrNotListed, "zip: local header at offset %d (%q) is not listed in the central directory", local.offset, local.name)
	case string(local.rawName) != string(central.rawName) && local.name != central.name:
		return archive.Errorf(ErrHeaderMismatch, "zip: local header at offset %d names %q, central directory %q", local.offset, local.name, central.name)
	case local.method != central.method:
		return archive.Errorf(ErrHeaderMismatch, "zip: %q: local header says method %d, central directory %d", central.name, local.method, central.method)
	case local.flags&flagDescriptor == 0 && (local.crc != central.crc || local.csize != central.csize || local.usize != central.usize):
		return archive.Errorf(ErrHeaderMismatch, "zip: %q: local header CRC or sizes differ from the central directory", central.name)
	}
	return nil
}
