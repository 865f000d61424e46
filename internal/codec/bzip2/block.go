package bzip2

import (
	"encoding/binary"
	"unsafe"

	"github.com/unpack-dev/unpack/internal/hugemem"
)

const (
	blockMagic   = 0x314159265359 // BCD of pi: starts a block
	eosMagic     = 0x177245385090 // BCD of sqrt(pi): ends a stream
	maxBlockSize = 900000         // symbols in a level-9 block
	maxSelectors = 18002          // selectors the reference decoder uses
	groupSize    = 50             // symbols coded with one selector
	maxGroups    = 6
)

// maxBlockBits bounds the compressed size of one block: the header and
// tables, 32767 selectors read (of which 18002 are used) and 18002*50
// symbols of at most 20 bits each.
const maxBlockBits = 48 + 32 + 1 + 24 + 16 + 16*16 + 3 + 15 + 32767*6 +
	maxGroups*(5+maxAlpha*(2*maxCodeLen+1)) + maxSelectors*groupSize*maxCodeLen

// blockDecoder holds one worker's tables and its BWT arrays, reused for
// every block it decodes.
type blockDecoder struct {
	br        bitReader
	tables    [maxGroups]huffTable
	selectors [maxSelectors]uint8
	lens      [maxAlpha]uint8
	counts    [256]int32
	last      []byte   // the BWT's last column, then the inverse BWT's scratch
	tt        []uint32 // row j: FL(j)<<8 | first column byte of row j
	walk      walker
}

// newLinks allocates the link table of blocks of up to n symbols on huge
// pages where the kernel gives them: the inverse BWT reads it all over at
// random, and with 4 KiB pages most of those reads would also miss the
// TLB (and the first touch of each page costs a fault). The size is
// rounded up to whole huge pages, as the kernel backs only those.
func newLinks(n int) []uint32 {
	b := hugemem.Aligned(hugemem.RoundUp(4 * n))
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// linksSize is what newLinks(maxBlockSize) allocates.
func linksSize() int64 { return int64(hugemem.RoundUp(4 * maxBlockSize)) }

// blockHeader is what readHeader learns.
type blockHeader struct {
	crc        uint32
	randomised bool
	origPtr    int
	alpha      int // symbols in the Huffman alphabet
	nSelectors int
	mtf        [256]byte // initial MTF list: the used byte values in order
}

// decodeSymbols decodes j's block up to the BWT: Huffman, MTF and
// RUNA/RUNB decoding into d.last. It sets j.err, j.needMore, j.end,
// j.storedCRC, j.origPtr, j.randomised and j.pre's length, and reports
// whether the block is ready for the inverse BWT.
func (d *blockDecoder) decodeSymbols(j *job) bool {
	j.err, j.needMore, j.tooBig = nil, false, false
	var h blockHeader
	err := d.readHeader(j, &h)
	nblock := 0
	if err == nil {
		nblock, err = d.readSymbols(j, &h)
	}
	// Running past the window comes first: the bits past it are padding,
	// so errors found there say nothing about the block.
	if d.overrun(j) {
		return false
	}
	if err != nil {
		j.err = err
		return false
	}
	if h.origPtr >= nblock {
		j.err = ErrBlock
		return false
	}
	j.end = j.start + d.br.pos() - int64(j.shift)
	j.storedCRC = h.crc
	j.origPtr = h.origPtr
	j.randomised = h.randomised
	if cap(j.pre) < nblock {
		j.pre = make([]byte, j.maxBlock)
	}
	j.pre = j.pre[:nblock]
	return true
}

// overrun reports (and records in j) a decode that ran past j's window:
// a hint that the window was too short, or corruption when it was final.
func (d *blockDecoder) overrun(j *job) bool {
	if d.br.pos()-int64(j.shift) <= j.limitBits {
		return false
	}
	switch {
	case j.atEOF:
		j.err = ErrTruncated
	case j.final:
		j.err = ErrBlock
	default:
		j.needMore = true
	}
	return true
}

// readHeader reads the block magic, CRC, flags, symbol map, selectors and
// Huffman tables.
func (d *blockDecoder) readHeader(j *job, h *blockHeader) error {
	br := &d.br
	br.init(j.in, j.shift)
	if m := uint64(br.read(24))<<24 | uint64(br.read(24)); m != blockMagic {
		return ErrMagic
	}
	h.crc = br.read(32)
	h.randomised = br.bit()
	h.origPtr = int(br.read(24))

	used := br.read(16)
	n := 0
	for i := range 16 {
		if used&(0x8000>>i) == 0 {
			continue
		}
		bits := br.read(16)
		for k := range 16 {
			if bits&(0x8000>>k) != 0 {
				h.mtf[n] = byte(i*16 + k)
				n++
			}
		}
	}
	if n == 0 {
		return ErrBlock
	}
	h.alpha = n + 2

	nGroups := int(br.read(3))
	if nGroups < 2 || nGroups > maxGroups {
		return ErrBlock
	}
	nSel := int(br.read(15))
	if nSel < 1 {
		return ErrBlock
	}
	var pos [maxGroups]uint8
	for i := range pos {
		pos[i] = uint8(i)
	}
	for i := range nSel {
		k := 0
		for br.bit() {
			k++
			if k >= nGroups {
				return ErrBlock
			}
		}
		// Undo the selectors' MTF coding. Selectors past maxSelectors are
		// read and ignored, as bzip2 1.0.8 does (lbzip2 writes them).
		if i < maxSelectors {
			v := pos[k]
			copy(pos[1:k+1], pos[:k])
			pos[0] = v
			d.selectors[i] = v
		}
	}
	h.nSelectors = min(nSel, maxSelectors)

	lens := d.lens[:h.alpha]
	for t := range nGroups {
		curr := int(br.read(5))
		for i := range lens {
			for {
				if curr < 1 || curr > maxCodeLen {
					return ErrBlock
				}
				if !br.bit() {
					break
				}
				if br.bit() {
					curr--
				} else {
					curr++
				}
			}
			lens[i] = uint8(curr)
		}
		d.tables[t].build(lens)
	}
	return nil
}

// readSymbols decodes the Huffman-coded MTF/RLE2 symbols into d.last and
// the byte counts into d.counts, returning the block length.
func (d *blockDecoder) readSymbols(j *job, h *blockHeader) (int, error) {
	if len(d.tt) < j.maxBlock {
		d.last = make([]byte, j.maxBlock+walkSlack)
		d.tt = newLinks(j.maxBlock)
	}
	tt := d.last[:j.maxBlock]
	counts := &d.counts
	*counts = [256]int32{}
	mtf := h.mtf
	eob := uint16(h.alpha - 1)

	br := &d.br
	buf := br.buf
	bits, n, next := br.bits, br.n, br.next
	limit := j.limitBits + int64(j.shift)

	nblock, run, runN := 0, 0, 1
	sel, left := -1, 0
	var tab *huffTable
	for {
		if left == 0 {
			sel++
			if sel >= h.nSelectors {
				return 0, ErrBlock
			}
			if int64(next)*8-int64(n) > limit {
				break // ran past the window; the caller reports it
			}
			tab = &d.tables[d.selectors[sel]]
			left = groupSize
		}
		left--
		if n < maxCodeLen {
			if next+8 <= len(buf) {
				bits |= binary.BigEndian.Uint64(buf[next:]) >> n
				next += int(63-n) >> 3
				n |= 56
			} else {
				br.bits, br.n, br.next = bits, n, next
				br.refill()
				bits, n, next = br.bits, br.n, br.next
			}
		}
		var sym uint16
		var l uint
		if e := tab.fast[bits>>(64-fastBits)]; e != 0 {
			sym, l = e>>5, uint(e&31)
		} else if sym, l = tab.slow(uint32(bits >> 32)); l == 0 {
			return 0, ErrBlock
		}
		bits <<= l
		n -= l

		if sym <= 1 { // RUNA, RUNB: a run of the front byte, length in bijective base 2
			run += runN << sym
			runN <<= 1
			if runN >= 2<<20 {
				return 0, ErrBlock
			}
			continue
		}
		if run > 0 {
			if run > len(tt)-nblock {
				j.tooBig = true
				return 0, ErrBlock
			}
			b := mtf[0]
			counts[b] += int32(run)
			fill := tt[nblock : nblock+run]
			for i := range fill {
				fill[i] = b
			}
			nblock += run
			run, runN = 0, 1
		}
		if sym == eob {
			break
		}
		if nblock >= len(tt) {
			j.tooBig = true
			return 0, ErrBlock
		}
		// Move MTF position k to the front, a word at a time: the first
		// 16 positions (most symbols) with one or two words and no loop.
		k := uint(sym - 1)
		var b byte
		switch lo := binary.LittleEndian.Uint64(mtf[:8]); {
		case k < 8:
			b = byte(lo >> (8 * k))
			m := ^uint64(0) >> (56 - 8*k) // bytes 0..k
			binary.LittleEndian.PutUint64(mtf[:8], lo&^m|(lo<<8)&m|uint64(b))
		case k < 16:
			hi := binary.LittleEndian.Uint64(mtf[8:16])
			b = byte(hi >> (8 * (k - 8)))
			m := ^uint64(0) >> (56 - 8*(k-8)) // bytes 8..k
			binary.LittleEndian.PutUint64(mtf[:8], lo<<8|uint64(b))
			binary.LittleEndian.PutUint64(mtf[8:16], hi&^m|(hi<<8|lo>>56)&m)
		default:
			// From the top down, each word loaded before any store
			// reaches it; the first word comes from lo, loaded first.
			b = mtf[k&255]
			for i := k & 255; i >= 8; i -= 8 {
				binary.LittleEndian.PutUint64(mtf[i-7:], binary.LittleEndian.Uint64(mtf[i-8:]))
			}
			binary.LittleEndian.PutUint64(mtf[:8], lo<<8|uint64(b))
		}
		counts[b]++
		tt[nblock] = b
		nblock++
	}
	br.bits, br.n, br.next = bits, n, next
	return nblock, nil
}
