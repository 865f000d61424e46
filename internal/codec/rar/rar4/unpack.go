package rar4

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
)

// Errors of the RAR 1.5–4.x decoders.
var (
	errTruncated   = archive.Corruptf("rar: compressed data is truncated")
	errBadTable    = archive.Corruptf("rar: invalid Huffman table")
	errBadFilter   = archive.Corruptf("rar: invalid filter")
	errFilterOrder = archive.Corruptf("rar: filter block out of order or larger than the window")
	errTooMany     = archive.Corruptf("rar: too many pending filters")
	errBadPPM      = archive.Corruptf("rar: invalid PPMd data")
)

// Window sizes: the declared dictionary (64 KiB to 4 MiB), but at least
// minWin so that filter blocks (≤ 256 KiB) always fit beside the margin.
const (
	minWin = 1 << 20
	maxWin = 4 << 20
)

// winSizeFor returns the window for a dictionary of 64 KiB << dictBits.
func winSizeFor(dictBits uint) int {
	n := 64 << 10 << dictBits
	if n < minWin {
		n = minWin
	}
	if n > maxWin {
		n = maxWin
	}
	return n
}

// needWin is the smallest window used: a stream of fewer bytes than the
// dictionary gets a window of its own length (rounded up to a power of
// two, plus the margin), as no distance reaches before its start.
const needWin = 64 << 10

// winSizeNeed returns the window for a stream holding unp bytes by the end
// of a file of size bytes, when the dictionary's window is win: win, or
// less when the stream is shorter.
func winSizeNeed(win int, unp, size int64) int {
	if size < 0 || unp+size > int64(win) {
		return win
	}
	n := rarshared.RoundPow2(int(unp+size) + winMargin)
	if n < needWin {
		n = needWin
	}
	if n > win {
		n = win
	}
	return n
}

// winMargin is the room kept free in the window for one decoding step
// (the longest match or PPMd copy is under 300 bytes).
const winMargin = 0x1000

// decoder is one of the RAR 1.5, 2.0 and 2.9 algorithms. decode adds
// symbols to u's window until the window holds all but winMargin bytes
// not yet delivered, or the file's data ends (it then sets u.done).
type decoder interface {
	// reset prepares for a new file; solid keeps the previous state.
	reset(solid bool)
	decode(u *unpacker) error
}

// unpacker owns the window shared by the RAR 1.5–4.x decoders and
// delivers its bytes, running RAR 3 filters on the way out. Positions are
// absolute byte counts since the start of the (solid) stream.
type unpacker struct {
	win       []byte
	mask      int64
	ahead     int64 // how far the decoder may write ahead of delivery
	unp       int64 // next byte the decoder writes
	wr        int64 // next byte delivered
	fileStart int64 // where the current file's output starts
	br        bitReader
	dec       decoder
	ver       int
	done      bool  // the decoder reached the end of the file's data
	limit     int64 // memory limit for models (PPMd)
	size      int64 // the file's unpacked size, -1 when unknown

	filters []filter29 // pending filter blocks, in stream order
	fmem    []byte     // filter memory, up to 2×vmMemSize
	out     []byte     // filtered bytes not yet delivered
}

// init prepares u for a new file of size bytes compressed with algorithm
// version ver, reading packed bytes from r. It reuses the window and
// decoder state when solid is set and the version is unchanged; win is the
// dictionary's window, of which the stream gets what it can use.
func (u *unpacker) init(r io.Reader, ver int, solid bool, size int64, win int) error {
	if solid && u.dec != nil && ver != u.ver {
		return archive.Unsupportedf("rar: solid stream mixes algorithm versions %d and %d", u.ver, ver)
	}
	if !solid || u.dec == nil {
		// The window's old bytes are never read: copyMatch yields zeros
		// for distances reaching before the start of the stream.
		win = winSizeNeed(win, 0, size)
		if cap(u.win) < win {
			rarshared.PutBuf(u.win)
			u.win = rarshared.GetBuf(win)
		}
		u.win = u.win[:win]
		u.mask = int64(win - 1)
		u.unp, u.wr = 0, 0
		if u.dec == nil || ver != u.ver {
			switch ver {
			case 15:
				u.dec = new(unpack15)
			case 20:
				d := decoders20.Get().(*unpack20)
				*d = unpack20{} // as new
				u.dec = d
			case 29:
				d := decoders29.Get().(*unpack29)
				f := &d.filt // as new, but for the filter bookkeeping's buffers
				*d = unpack29{filt: filterState29{kinds: f.kinds[:0], lengths: f.lengths[:0], code: f.code, prog: f.prog}}
				u.dec = d
			default:
				return archive.Unsupportedf("rar: compression version %d", ver)
			}
			u.ver = ver
		}
		u.dec.reset(false)
	} else {
		u.grow(winSizeNeed(win, u.unp, size))
		u.dec.reset(true)
	}
	u.setAhead()
	u.br.reset(r)
	u.fileStart = u.unp
	u.size = size
	u.wr = u.unp
	u.done = false
	u.filters = u.filters[:0]
	u.out = nil
	return nil
}

func (u *unpacker) memLimit() int64 { return u.limit }

// grow enlarges the window of a solid stream to win bytes, keeping the
// bytes at their absolute positions.
func (u *unpacker) grow(win int) {
	if len(u.win) >= win {
		return
	}
	nw := rarshared.GetBuf(win)
	nmask := int64(win - 1)
	from := u.unp - int64(len(u.win))
	if from < 0 {
		from = 0
	}
	rarshared.CopyRing(nw, u.win, uint64(from), uint64(u.unp))
	rarshared.PutBuf(u.win)
	u.win, u.mask = nw, nmask
}

// decoders29 and decoders20 hold the 2.9 and 2.0 decoders (Huffman
// tables, 14 and 23 KiB) of closed readers.
var (
	decoders29 = sync.Pool{New: func() any { return new(unpack29) }}
	decoders20 = sync.Pool{New: func() any { return new(unpack20) }}
)

// release returns the window, filter memory, input buffer and decoder to
// their pools.
func (u *unpacker) release() {
	rarshared.PutBuf(u.win)
	rarshared.PutBuf(u.fmem)
	rarshared.PutBuf(u.br.buf)
	switch d := u.dec.(type) {
	case *unpack29:
		d.ppm = nil // a PPMd model is not kept
		decoders29.Put(d)
	case *unpack20:
		decoders20.Put(d)
	}
	u.win, u.fmem, u.dec, u.br.buf = nil, nil, nil, nil
	u.unp, u.wr = 0, 0
}

// decodeAhead bounds how far decoding runs ahead of delivery: room for
// the largest filter block, and a batch small enough to stay in cache and
// keep few filter blocks pending.
const decodeAhead = 2 * vmMemSize

// setAhead sets how far ahead of delivery the decoder may write in the
// current window.
func (u *unpacker) setAhead() {
	u.ahead = min(int64(len(u.win))-winMargin, decodeAhead)
}

// room reports whether the decoder may add another step's worth of bytes.
func (u *unpacker) room() bool {
	return u.unp-u.wr < u.ahead
}

// putByte appends a literal.
func (u *unpacker) putByte(c byte) {
	u.win[u.unp&u.mask] = c
	u.unp++
}

// copyMatch appends length bytes copied from dist bytes back. Bytes
// before the start of the stream read as zeros (only corrupt data refers
// to them), so windows need no clearing.
func (u *unpacker) copyMatch(length int, dist int64) {
	if uint64(dist-1) >= uint64(u.unp) {
		u.copyBeforeStart(length, dist)
		return
	}
	dst := u.unp & u.mask
	src := (u.unp - dist) & u.mask
	u.unp += int64(length)
	w := u.win
	n := int64(length)
	if dst+n+8 <= int64(len(w)) && src+n+8 <= int64(len(w)) {
		// Up to 7 bytes past the match may be written: the window keeps
		// winMargin free bytes ahead of the decoder.
		switch {
		case dist >= 8 && n <= 64:
			for i := int64(0); i < n; i += 8 {
				binary.LittleEndian.PutUint64(w[dst+i:], binary.LittleEndian.Uint64(w[src+i:]))
			}
		case dist >= n:
			copy(w[dst:dst+n], w[src:src+n])
		default:
			// The match overlaps itself: repeat its period, doubling what
			// each copy moves.
			for d := dst; n > 0; {
				c := int64(copy(w[d:d+n], w[src:d]))
				d += c
				n -= c
			}
		}
		return
	}
	m := u.mask
	for i := 0; i < length; i++ {
		w[dst] = w[src]
		dst = (dst + 1) & m
		src = (src + 1) & m
	}
}

// copyBeforeStart is copyMatch for a distance reaching before the stream
// (or zero, an unset repeated distance): those bytes read as zeros.
func (u *unpacker) copyBeforeStart(length int, dist int64) {
	for i := 0; i < length; i++ {
		var c byte
		if from := u.unp - dist; from >= 0 && dist > 0 {
			c = u.win[from&u.mask]
		}
		u.win[u.unp&u.mask] = c
		u.unp++
	}
}

// read delivers decoded bytes; io.EOF when the file's data has ended and
// everything was delivered.
func (u *unpacker) read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(u.out) > 0 {
			c := copy(p[n:], u.out)
			u.out = u.out[c:]
			n += c
			continue
		}
		limit := u.unp
		if len(u.filters) > 0 {
			f := &u.filters[0]
			switch {
			case f.start < u.wr:
				return n, errFilterOrder
			case f.start == u.wr:
				if f.start+int64(f.length) <= u.unp {
					if err := u.runFilters(); err != nil {
						return n, err
					}
					continue
				}
				limit = u.wr
			case f.start < limit:
				limit = f.start
			}
		}
		if u.wr < limit {
			s := u.wr & u.mask
			e := s + (limit - u.wr)
			if e > int64(len(u.win)) {
				e = int64(len(u.win))
			}
			c := copy(p[n:], u.win[s:e])
			u.wr += int64(c)
			n += c
			continue
		}
		if n > 0 {
			return n, nil
		}
		if u.done {
			if len(u.filters) > 0 && u.filters[0].start < u.unp {
				return 0, errTruncated // a filter block cut by the end
			}
			u.filters = u.filters[:0] // blocks past the end never apply
			return 0, io.EOF
		}
		if !u.room() {
			return 0, errFilterOrder
		}
		if err := u.dec.decode(u); err != nil {
			if u.br.err != nil {
				// The input failed to read: the decoder ran on padding and
				// saw "truncated" data, but the cause is the read error.
				return 0, fmt.Errorf("rar: reading the input: %w", u.br.err)
			}
			return 0, err
		}
	}
	return n, nil
}

// finish decodes the rest of the current file's data, discarding it, so
// that a solid stream is positioned at the next file. It stops at the end
// marker or when the input is used up.
func (u *unpacker) finish() error {
	for !u.done {
		u.wr = u.unp
		u.filters = u.filters[:0]
		u.out = nil
		if u.br.exhausted() {
			return nil
		}
		if err := u.dec.decode(u); err != nil {
			if err == errTruncated {
				return nil
			}
			return err
		}
	}
	u.wr = u.unp
	u.filters = u.filters[:0]
	u.out = nil
	return nil
}
