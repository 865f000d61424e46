package rar5

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
)

// The RAR 5 decompressor: LZ77 over a sliding window with four Huffman
// tables per block, repeat distances and filters applied on output. One
// decoder serves every entry of an archive; a solid entry continues the
// window, distances and tables of the one before.

// Errors of the RAR 5 decompressor.
var (
	errBlock     = archive.Corruptf("rar: bad compressed block header")
	errTables    = archive.Corruptf("rar: bad Huffman tables")
	errNoTables  = archive.Corruptf("rar: compressed block without tables")
	errTrunc     = archive.Corruptf("rar: compressed data truncated")
	errFilter    = archive.Corruptf("rar: bad filter")
	errTooMany   = archive.Corruptf("rar: too many pending filters")
	errFilterWin = archive.Corruptf("rar: filter block larger than the window")
	errShort     = archive.Corruptf("rar: compressed data ends before the declared size")
	errSolid     = archive.Corruptf("rar: solid entry without the entries before it")
	errDist      = archive.Corruptf("rar: match reaches before the start of the data")
)

const (
	maxMatch     = 0x1004        // longest match plus the distance bonus
	minWindow    = 64 << 10      // smallest window allocated
	inBuf5Size   = 4<<10 - inPad // the input buffer with its padding is 4 KiB
	inPad        = 64            // zero bytes after the input data, for peeks
	inMargin     = 40            // bytes of look-ahead the decoding loop needs
	tablesBytes  = 1400          // most bytes a table description can take
	decodeBatch  = 256 << 10
	maxFilters   = 8192
	maxFilterLen = 0x400000
)

// decoder decodes RAR 5 compressed entries. The zero value is ready for
// Reset. Buffers are kept across Reset.
type decoder struct {
	src io.Reader

	// Input: in[:inEnd] holds data, followed by inPad zero bytes. Bit
	// positions are relative to in[0].
	in        []byte
	inEnd     int
	srcEOF    bool
	bp        int // next bit to read
	border    int // bit position where the loop must stop and look around
	blockEnd  int // bit position where the current block's data ends
	lastBlock bool

	// Tables.
	tablesRead bool
	extraDist  bool
	ld, dd     huff
	ldd, rd    huff
	bd         huff
	lens       [symsTablesX]byte

	// Window and LZ state. Positions are absolute (they never wrap); the
	// window index of position p is p&mask.
	win        []byte
	mask       uint64
	unpPtr     uint64 // next position to decode
	wrPtr      uint64 // next position to output
	oldDist    [4]uint64
	lastLength uint32

	// The current entry.
	fileStart uint64 // position of its first byte
	size      int64  // declared size, -1 when unknown
	out       int64  // bytes returned so far
	fileDone  bool
	err       error

	filters []filter // pending, in order of start
	fhead   int      // first pending filter in filters
	fbuf    []byte   // a filter block being filtered
	fdst    []byte   // delta output
	pend    []byte   // filtered bytes not yet returned
}

// filter is one pending filter over output positions [start, start+length).
type filter struct {
	start    uint64
	length   uint32
	typ      byte
	channels byte
}

// Filter types.
const (
	filterDelta = 0
	filterE8    = 1
	filterE8E9  = 2
	filterARM   = 3
)

// windowSize is the window a decoder needs to go on from position unp (0
// at the start of a stream) through an entry of declared size (-1
// unknown) with dictionary dict: a power of two, at least minWindow,
// no larger than the dictionary nor than what the stream holds by the
// entry's end, since no distance reaches before the start of the stream.
// An entry shorter than the longest filter block gets a longest match
// more, so that a block over all of it fits beside the decoding margin.
func windowSize(dict, unp uint64, size int64) uint64 {
	need := dict
	if size >= 0 {
		n := unp + uint64(size)
		if size < maxFilterLen+maxMatch {
			n += maxMatch
		}
		need = min(need, n)
	}
	w := uint64(minWindow)
	for w < need {
		w <<= 1
	}
	return w
}

// Reset prepares d to decode one entry from src. solid continues the
// previous entry's state, growing the window when the stream needs more
// of the dictionary. limit bounds the window; a larger one is
// archive.ErrLimit before anything is allocated.
func (d *decoder) Reset(src io.Reader, dict uint64, size int64, solid, extraDist bool, limit int64) error {
	if solid && (d.win == nil || d.err != nil || !d.fileDone) {
		d.err = errSolid
		return d.err
	}
	var unp uint64
	if solid {
		unp = d.unpPtr
	}
	w := windowSize(dict, unp, size)
	if solid && w < uint64(len(d.win)) {
		w = uint64(len(d.win))
	}
	if w > uint64(limit) || w > uint64(maxInt) {
		return archive.Limitf("rar: dictionary of %d MiB exceeds the memory limit of %d MiB", w>>20, limit>>20)
	}
	if uint64(len(d.win)) != w {
		if solid {
			d.growWindow(w)
		} else if uint64(cap(d.win)) >= w {
			d.win = d.win[:w]
		} else {
			rarshared.PutBuf(d.win)
			d.win = rarshared.GetBuf(int(w))
		}
		d.mask = w - 1
	}
	if d.in == nil {
		d.in = rarshared.GetBuf(inBuf5Size + inPad)
	}
	d.src = src
	d.inEnd, d.bp, d.border, d.blockEnd, d.lastBlock, d.srcEOF = 0, 0, 0, 0, false, false
	if !solid {
		d.tablesRead = false
		d.unpPtr, d.wrPtr = 0, 0
		d.oldDist = [4]uint64{}
		d.lastLength = 0
	}
	d.extraDist = extraDist
	d.fileStart = d.unpPtr
	d.size, d.out, d.fileDone, d.err = size, 0, false, nil
	d.filters, d.fhead, d.pend = d.filters[:0], 0, nil
	return d.startFile()
}

// release returns d's buffers to their pools; d is then as new.
func (d *decoder) release() {
	rarshared.PutBuf(d.win)
	rarshared.PutBuf(d.in)
	rarshared.PutBuf(d.fbuf)
	rarshared.PutBuf(d.fdst)
	*d = decoder{filters: d.filters[:0]}
}

const maxInt = int(^uint(0) >> 1)

// growWindow enlarges the window to w bytes keeping its content at the same
// absolute positions (a solid entry with a larger dictionary, or a stream
// grown past the window sized for its start).
func (d *decoder) growWindow(w uint64) {
	nw := rarshared.GetBuf(int(w))
	old := uint64(len(d.win))
	from := uint64(0)
	if d.unpPtr > old {
		from = d.unpPtr - old
	}
	rarshared.CopyRing(nw, d.win, from, d.unpPtr)
	rarshared.PutBuf(d.win)
	d.win = nw
}

// startFile reads the first block header and its tables.
func (d *decoder) startFile() error {
	if err := d.readBlockHeader(); err != nil {
		d.err = err
		return err
	}
	d.setBorder()
	return nil
}

// fill moves the unread input to the front of the buffer and reads more
// until at least n bytes are available or the source ends.
func (d *decoder) fill(n int) error {
	start := d.bp >> 3
	if start > d.inEnd {
		start = d.inEnd
	}
	if d.inEnd-start >= n || d.srcEOF {
		return nil
	}
	if start > 0 {
		copy(d.in, d.in[start:d.inEnd])
		d.inEnd -= start
		d.bp -= start << 3
		d.blockEnd -= start << 3
	}
	for d.inEnd < n && !d.srcEOF {
		m, err := d.src.Read(d.in[d.inEnd:inBuf5Size])
		d.inEnd += m
		if err == io.EOF {
			d.srcEOF = true
		} else if err != nil {
			return err
		}
	}
	clear(d.in[d.inEnd : d.inEnd+inPad])
	return nil
}

// peek returns the next 57 or more bits, left-aligned.
func peek(in []byte, bp int) uint64 {
	i := uint(bp >> 3)
	return binary.BigEndian.Uint64(in[i:i+8:i+8]) << (bp & 7)
}

// bits reads n (at most 32) bits.
func (d *decoder) bits(n int) uint32 {
	v := uint32(peek(d.in, d.bp) >> (64 - n))
	d.bp += n
	return v
}

// sym decodes one symbol of h.
func (d *decoder) sym(h *huff) uint32 {
	field := uint32(peek(d.in, d.bp)>>48) & 0xfffe
	if field < h.decodeLen[h.quickBits] {
		e := h.quick[field>>(16-h.quickBits)]
		d.bp += int(e >> 16)
		return e & 0xffff
	}
	s, n := h.slow(field)
	d.bp += int(n)
	return s
}

// overrun reports whether reading went past the data (only possible at the
// end of the source, where the padding is read as zeros).
func (d *decoder) overrun() bool { return d.bp > d.inEnd<<3 }

// readBlockHeader reads a block header at the next byte boundary and the
// tables that follow it.
func (d *decoder) readBlockHeader() error {
	d.bp = (d.bp + 7) &^ 7
	if err := d.fill(8); err != nil {
		return err
	}
	flags := d.bits(8)
	check := d.bits(8)
	count := int(flags>>3&3) + 1
	if count == 4 {
		return errBlock
	}
	size := 0
	for i := 0; i < count; i++ {
		size |= int(d.bits(8)) << (8 * i)
	}
	if d.overrun() {
		return errTrunc
	}
	if byte(0x5a^flags^uint32(size)^uint32(size>>8)^uint32(size>>16)) != byte(check) {
		return errBlock
	}
	d.blockEnd = d.bp + size<<3 - 8 + int(flags&7) + 1
	d.lastBlock = flags&0x40 != 0
	if flags&0x80 != 0 {
		if err := d.readTables(); err != nil {
			return err
		}
	} else if !d.tablesRead {
		return errNoTables
	}
	return nil
}

// readTables reads the Huffman tables of a block.
func (d *decoder) readTables() error {
	if err := d.fill(tablesBytes); err != nil {
		return err
	}
	var bl [symsBitLen]byte
	for i := 0; i < symsBitLen; i++ {
		l := byte(d.bits(4))
		if l != 15 {
			bl[i] = l
			continue
		}
		z := int(d.bits(4))
		if z == 0 {
			bl[i] = 15
			continue
		}
		for z += 2; z > 0 && i < symsBitLen; z-- {
			bl[i] = 0
			i++
		}
		i--
	}
	d.bd.build(bl[:], mainQuickBits-3)
	size := symsTables
	if d.extraDist {
		size = symsTablesX
	}
	lens := d.lens[:size]
	for i := 0; i < size; {
		n := d.sym(&d.bd)
		switch {
		case n < 16:
			lens[i] = byte(n)
			i++
		case n < 18:
			c := 0
			if n == 16 {
				c = int(d.bits(3)) + 3
			} else {
				c = int(d.bits(7)) + 11
			}
			if i == 0 {
				return errTables
			}
			for ; c > 0 && i < size; c-- {
				lens[i] = lens[i-1]
				i++
			}
		default:
			c := 0
			if n == 18 {
				c = int(d.bits(3)) + 3
			} else {
				c = int(d.bits(7)) + 11
			}
			for ; c > 0 && i < size; c-- {
				lens[i] = 0
				i++
			}
		}
	}
	if d.overrun() {
		return errTrunc
	}
	dc := symsDist
	if d.extraDist {
		dc = symsDistX
	}
	d.ld.build(lens[:symsMain], mainQuickBits)
	d.dd.build(lens[symsMain:symsMain+dc], mainQuickBits-3)
	d.ldd.build(lens[symsMain+dc:symsMain+dc+symsLowDist], mainQuickBits-3)
	d.rd.build(lens[symsMain+dc+symsLowDist:], mainQuickBits-3)
	d.tablesRead = true
	return nil
}

// setBorder sets where the decoding loop must next stop: the end of the
// block, or where the input buffer needs refilling, or the end of the data
// when the source has ended.
func (d *decoder) setBorder() {
	d.border = d.blockEnd
	limit := d.inEnd << 3
	if !d.srcEOF {
		limit = (d.inEnd - inMargin) << 3
	}
	if limit < d.border {
		d.border = limit
	}
}

// advance handles reaching the border: the end of a block (reading the next
// block header, or finishing the entry) or the end of the buffered input.
func (d *decoder) advance() error {
	for d.bp >= d.blockEnd {
		if d.lastBlock {
			d.fileDone = true
			return nil
		}
		if err := d.readBlockHeader(); err != nil {
			return err
		}
	}
	if err := d.fill(inMargin + 1); err != nil {
		return err
	}
	d.setBorder()
	if d.border <= d.bp {
		// The source ended inside the block.
		return errTrunc
	}
	return nil
}

// slotLength returns the match length of a length slot, reading its extra
// bits from v (left-aligned) and returning how many it used.
func slotLength(slot uint32, v uint64) (length uint32, used int) {
	if slot < 8 {
		return slot + 2, 0
	}
	lbits := int(slot/4 - 1)
	return 2 + (4|slot&3)<<lbits + uint32(v>>(64-lbits)), lbits
}

// decode runs the LZ loop until position stopAt (which leaves room for a
// longest match before unwritten output) or the end of the entry. The
// input position lives in a local between stops at the border, which is
// where every bound on the input is checked: before it, a symbol can never
// read past the buffered bytes and their padding.
func (d *decoder) decode(stopAt uint64) error {
	win := d.win
	mask := uint64(len(win) - 1) // d.mask; from len(win) so indexes prove in bounds
	unp := d.unpPtr
	in := d.in
	bp := d.bp
	border := d.border
	ld := &d.ld
	for unp < stopAt {
		if bp >= border {
			d.bp, d.unpPtr = bp, unp
			if err := d.advance(); err != nil {
				return err
			}
			if d.fileDone {
				return nil
			}
			in, bp, border = d.in, d.bp, d.border
			continue
		}
		v := peek(in, bp)
		field := uint32(v>>48) & 0xfffe
		var slot uint32
		var n int
		if field < ld.decodeLen[mainQuickBits] {
			e := ld.quick[field>>(16-mainQuickBits)]
			n, slot = int(e>>16), e&0xffff
		} else {
			s, nb := ld.slow(field)
			n, slot = int(nb), s
		}
		bp += n
		if slot < 256 {
			win[unp&mask] = byte(slot)
			unp++
			// Literals come in runs: decode a second one from the bits
			// already loaded (57 or more, of which the first code took at
			// most 16) when its code resolves in one lookup.
			if bp >= border || unp >= stopAt {
				continue
			}
			field = uint32((v<<n)>>48) & 0xfffe
			if field >= ld.decodeLen[mainQuickBits] {
				continue
			}
			e := ld.quick[field>>(16-mainQuickBits)]
			if s := e & 0xffff; s < 256 {
				win[unp&mask] = byte(s)
				unp++
				bp += int(e >> 16)
			}
			continue
		}
		var length uint32
		var dist uint64
		switch {
		case slot >= 262:
			l, n := slotLength(slot-262, peek(in, bp))
			bp += n
			length = l
			ds, n := d.dd.decode(peek(in, bp))
			bp += n
			dist = 1
			if ds < 4 {
				dist += uint64(ds)
			} else {
				dbits := int(ds/2 - 1)
				dist += uint64(2|ds&1) << dbits
				if dbits >= 4 {
					if dbits > 4 {
						dist += (peek(in, bp) >> (64 - (dbits - 4))) << 4
						bp += dbits - 4
					}
					low, n := d.ldd.decode(peek(in, bp))
					bp += n
					dist += uint64(low)
				} else {
					dist += peek(in, bp) >> (64 - dbits)
					bp += dbits
				}
			}
			if dist > 0x100 {
				length++
				if dist > 0x2000 {
					length++
					if dist > 0x40000 {
						length++
					}
				}
			}
			d.oldDist[3], d.oldDist[2], d.oldDist[1], d.oldDist[0] = d.oldDist[2], d.oldDist[1], d.oldDist[0], dist
			d.lastLength = length
		case slot == 256:
			d.bp = bp
			if err := d.readFilter(unp); err != nil {
				d.unpPtr = unp
				return err
			}
			bp = d.bp
			continue
		case slot == 257:
			if d.lastLength == 0 {
				continue
			}
			length, dist = d.lastLength, d.oldDist[0]
		default: // 258..261: a repeated distance
			i := slot - 258
			dist = d.oldDist[i]
			for ; i > 0; i-- {
				d.oldDist[i] = d.oldDist[i-1]
			}
			d.oldDist[0] = dist
			ls, n := d.rd.decode(peek(in, bp))
			bp += n
			l, n := slotLength(ls, peek(in, bp))
			bp += n
			length = l
			d.lastLength = length
		}
		if dist-1 >= unp {
			// Zero (an unset repeated distance) or before the start of the
			// stream: only damaged data does this, and a pooled window
			// holds another stream's bytes there.
			d.bp, d.unpPtr = bp, unp
			return errDist
		}
		copyMatch(win, mask, unp, dist, length)
		unp += uint64(length)
	}
	d.bp, d.unpPtr = bp, unp
	return nil
}

// copyMatch copies length bytes from dist back, within the window. It may
// write up to 7 bytes past the match (decoding stops maxMatch bytes short
// of unwritten output, which covers them).
func copyMatch(win []byte, mask, unp, dist uint64, length uint32) {
	dst := unp & mask
	src := (unp - dist) & mask
	n := uint64(length)
	size := uint64(len(win))
	if dst+n+8 <= size && src+n+8 <= size && src < dst {
		switch {
		case dist >= 8 && n <= 64:
			for i := uint64(0); i < n; i += 8 {
				binary.LittleEndian.PutUint64(win[dst+i:], binary.LittleEndian.Uint64(win[src+i:]))
			}
			return
		case dist >= n:
			copy(win[dst:dst+n], win[src:src+n])
			return
		}
		// The match overlaps itself: repeat its period, doubling what each
		// copy moves.
		for n > 0 {
			c := uint64(copy(win[dst:dst+n], win[src:dst]))
			dst += c
			n -= c
		}
		return
	}
	if dst+n <= size && src+n <= size && dist >= n {
		copy(win[dst:dst+n], win[src:src+n])
		return
	}
	for i := uint64(0); i < n; i++ {
		win[(dst+i)&mask] = win[(src+i)&mask]
	}
}

// readFilter reads a filter description and queues it.
func (d *decoder) readFilter(unp uint64) error {
	start := d.filterData()
	length := d.filterData()
	typ := byte(d.bits(3))
	var channels byte
	if typ == filterDelta {
		channels = byte(d.bits(5)) + 1
	}
	if typ > filterARM {
		return errFilter
	}
	if length == 0 || length > maxFilterLen {
		return nil // unrar ignores such a filter
	}
	if len(d.filters)-d.fhead >= maxFilters {
		return errTooMany
	}
	if d.filters == nil {
		d.filters = make([]filter, 0, 64) // more are rarely pending
	}
	if d.fhead > 0 && d.fhead >= len(d.filters)/2 {
		// Drop the filters done, so the queue does not grow with the
		// stream when output lags behind decoding.
		n := copy(d.filters, d.filters[d.fhead:])
		d.filters, d.fhead = d.filters[:n], 0
	}
	d.filters = append(d.filters, filter{start: unp + uint64(start), length: length, typ: typ, channels: channels})
	return nil
}

// filterData reads a 1- to 4-byte little-endian filter field.
func (d *decoder) filterData() uint32 {
	n := int(d.bits(2)) + 1
	var v uint32
	for i := 0; i < n; i++ {
		v |= d.bits(8) << (8 * i)
	}
	return v
}
