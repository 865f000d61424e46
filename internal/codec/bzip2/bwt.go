package bzip2

// rNums is the fixed table of the format's block randomisation (bzip2
// 0.9.0 set the randomised flag on highly repetitive blocks): in a
// randomised block, the bytes at cumulative offsets rNums[0]-1,
// rNums[0]+rNums[1]-1, ... (cycling through the table) were XORed with 1
// before sorting.
var rNums = [512]uint16{
	619, 720, 127, 481, 931, 816, 813, 233, 566, 247, 985, 724, 205, 454, 863, 491,
	741, 242, 949, 214, 733, 859, 335, 708, 621, 574, 73, 654, 730, 472, 419, 436,
	278, 496, 867, 210, 399, 680, 480, 51, 878, 465, 811, 169, 869, 675, 611, 697,
	867, 561, 862, 687, 507, 283, 482, 129, 807, 591, 733, 623, 150, 238, 59, 379,
	684, 877, 625, 169, 643, 105, 170, 607, 520, 932, 727, 476, 693, 425, 174, 647,
	73, 122, 335, 530, 442, 853, 695, 249, 445, 515, 909, 545, 703, 919, 874, 474,
	882, 500, 594, 612, 641, 801, 220, 162, 819, 984, 589, 513, 495, 799, 161, 604,
	958, 533, 221, 400, 386, 867, 600, 782, 382, 596, 414, 171, 516, 375, 682, 485,
	911, 276, 98, 553, 163, 354, 666, 933, 424, 341, 533, 870, 227, 730, 475, 186,
	263, 647, 537, 686, 600, 224, 469, 68, 770, 919, 190, 373, 294, 822, 808, 206,
	184, 943, 795, 384, 383, 461, 404, 758, 839, 887, 715, 67, 618, 276, 204, 918,
	873, 777, 604, 560, 951, 160, 578, 722, 79, 804, 96, 409, 713, 940, 652, 934,
	970, 447, 318, 353, 859, 672, 112, 785, 645, 863, 803, 350, 139, 93, 354, 99,
	820, 908, 609, 772, 154, 274, 580, 184, 79, 626, 630, 742, 653, 282, 762, 623,
	680, 81, 927, 626, 789, 125, 411, 521, 938, 300, 821, 78, 343, 175, 128, 250,
	170, 774, 972, 275, 999, 639, 495, 78, 352, 126, 857, 956, 358, 619, 580, 124,
	737, 594, 701, 612, 669, 112, 134, 694, 363, 992, 809, 743, 168, 974, 944, 375,
	748, 52, 600, 747, 642, 182, 862, 81, 344, 805, 988, 739, 511, 655, 814, 334,
	249, 515, 897, 955, 664, 981, 649, 113, 974, 459, 893, 228, 433, 837, 553, 268,
	926, 240, 102, 654, 459, 51, 686, 754, 806, 760, 493, 403, 415, 394, 687, 700,
	946, 670, 656, 610, 738, 392, 760, 799, 887, 653, 978, 321, 576, 617, 626, 502,
	894, 679, 243, 440, 680, 879, 194, 572, 640, 724, 926, 56, 204, 700, 707, 151,
	457, 449, 797, 195, 791, 558, 945, 679, 297, 59, 87, 824, 713, 663, 412, 693,
	342, 606, 134, 108, 571, 364, 631, 212, 174, 643, 304, 329, 343, 97, 430, 751,
	497, 314, 983, 374, 822, 928, 140, 206, 73, 263, 980, 736, 876, 478, 430, 305,
	170, 514, 364, 692, 829, 82, 855, 953, 676, 246, 369, 970, 294, 750, 807, 827,
	150, 790, 288, 923, 804, 378, 215, 828, 592, 281, 565, 555, 710, 82, 896, 831,
	547, 261, 524, 462, 293, 465, 502, 56, 661, 821, 976, 991, 658, 869, 905, 758,
	745, 193, 768, 550, 608, 933, 378, 286, 215, 979, 792, 961, 61, 688, 793, 644,
	986, 403, 106, 366, 905, 644, 372, 567, 466, 434, 645, 210, 389, 550, 919, 135,
	780, 773, 635, 389, 707, 100, 626, 958, 165, 504, 920, 176, 193, 713, 857, 265,
	203, 50, 668, 108, 645, 990, 626, 197, 510, 357, 358, 850, 858, 364, 936, 638,
}

// The inverse BWT. With F the first column of the sorted rotations and FL
// the mapping from a row to the row whose last byte is its first, the
// string is F[origPtr], F[FL(origPtr)], F[FL(FL(origPtr))], ... Each step
// is a load whose address is the previous load's result: a chain of cache
// misses (the link table of a level-9 block is 3.6 MB), so walking one
// chain leaves the core waiting on memory almost all the time.
//
// lanesWalk cuts the string into segments that are walked at once: it
// marks walkSegs rows spread over the table (and origPtr), and walkLanes
// lanes each walk from one marked row until they reach another, writing
// into scratch. Which rows start which segments is only known at the end:
// the segments are joined in the order the walk links them, starting from
// origPtr. The segments cover the string exactly when FL^n(origPtr) ==
// origPtr (the permutation is one cycle), which every encoder's output
// satisfies; otherwise (a crafted block) the string is walked again as
// one chain, which is what the reference decoder outputs.

const (
	walkLanes = 8       // chains of loads in flight while walking one block
	walkSegs  = 128     // rows marked as segment starts (besides origPtr)
	walkChunk = 4096    // scratch is handed to a lane this much at a time
	walkMin   = 1 << 14 // shorter blocks are walked as one chain
	markBit   = 1 << 31 // set in tt[row] when a segment starts at row

	// walkSlack is the scratch beyond the block length that the lanes'
	// unfinished chunks can take.
	walkSlack = walkLanes * walkChunk
	// maxPieces bounds the runs of scratch a walk writes: each ends with
	// a full chunk or a segment.
	maxPieces = maxBlockSize/walkChunk + walkSegs + 2
)

// A lane walks one segment at a time.
type lane struct {
	row  uint32 // the next row to output
	o, e int32  // write position and end of the lane's chunk of scratch
	from int32  // where the current piece of the segment began
	seg  int32  // the segment being walked
}

// walker is the bookkeeping of lanesWalk, kept in the blockDecoder.
type walker struct {
	lanes     [walkLanes]lane
	segNext   [walkSegs + 1]int32 // the segment that follows, once known
	segFirst  [walkSegs + 1]int32 // a segment's first piece (-1: none)
	segLast   [walkSegs + 1]int32 // and its last
	pieceFrom [maxPieces]int32    // pieces: runs of scratch, in a segment's order
	pieceTo   [maxPieces]int32
	pieceNext [maxPieces]int32 // the segment's next piece (-1: none)
	pieces    int32
	nextChunk int32 // the first unused byte of scratch
}

// buildLinks fills d.tt[:n] from the last column d.last[:n] and the byte
// counts: tt[row] = FL(row)<<8 | F[row].
func (d *blockDecoder) buildLinks(n int) []uint32 {
	last, tt := d.last[:n], d.tt[:n]
	var next [256]uint32
	sum := uint32(0)
	for b, c := range d.counts {
		next[b] = sum
		sum += uint32(c)
	}
	for i, b := range last {
		tt[next[b]] = uint32(i)<<8 | uint32(b) // row next[b] starts with b
		next[b]++
	}
	return tt
}

// inverseBWT writes the block's string to pre from the last column
// d.last[:len(pre)], the counts and the row origPtr of the string.
func (d *blockDecoder) inverseBWT(pre []byte, origPtr int) {
	tt := d.buildLinks(len(pre))
	if len(pre) < walkMin || !d.walk.lanesWalk(tt, pre, uint32(origPtr), d.last[:len(pre)+walkSlack]) {
		walkChain(tt, pre, uint32(origPtr))
	}
}

// walkChain is the inverse BWT as one chain from row r.
func walkChain(tt []uint32, pre []byte, r uint32) {
	for k := range pre {
		v := tt[r]
		pre[k] = byte(v)
		r = v >> 8
	}
}

// lanesWalk writes the string starting at row orig to pre, walking its
// segments in lanes (see above), and reports whether the segments linked
// from orig cover it. It uses scratch (len(pre)+walkSlack bytes) and
// leaves tt as it found it.
func (w *walker) lanesWalk(tt []uint32, pre []byte, orig uint32, scratch []byte) bool {
	n := len(pre)
	stride := (n + walkSegs - 1) / walkSegs
	nseg := (n + stride - 1) / stride
	origSeg := int(orig) / stride
	if int(orig)%stride != 0 {
		origSeg = nseg
		nseg++
	}
	segRow := func(s int) uint32 {
		if s == origSeg {
			return orig
		}
		return uint32(s * stride)
	}
	for s := range nseg {
		tt[segRow(s)] |= markBit
		w.segNext[s], w.segFirst[s] = -1, -1
	}
	w.pieces, w.nextChunk = 0, 0

	ok := true
	active, started := 0, 0
	for ; active < walkLanes && started < nseg; active++ {
		ln := &w.lanes[active]
		*ln = lane{}
		if !w.start(ln, started, segRow(started), tt, scratch) {
			ok = false
		}
		started++
	}
	for ok && active > 0 {
		for l := 0; l < active; l++ {
			ln := &w.lanes[l]
			v := tt[ln.row]
			if v < markBit && ln.o < ln.e {
				scratch[ln.o] = byte(v)
				ln.o++
				ln.row = v >> 8
				continue
			}
			w.endPiece(ln)
			if ln.o >= ln.e {
				if !w.newChunk(ln, len(scratch)) {
					ok = false
				}
				continue // the step is retried
			}
			// ln.row starts a segment: the lane's segment ends here.
			next := int32(ln.row) / int32(stride)
			if ln.row == orig {
				next = int32(origSeg)
			}
			w.segNext[ln.seg] = next
			if started < nseg {
				if !w.start(ln, started, segRow(started), tt, scratch) {
					ok = false
				}
				started++
				continue
			}
			active--
			w.lanes[l] = w.lanes[active]
		}
	}
	for s := range nseg {
		tt[segRow(s)] &^= markBit
	}
	if !ok {
		return false
	}

	// Join the segments in the order they link from orig.
	p, s := 0, int32(origSeg)
	for range nseg {
		for q := w.segFirst[s]; q >= 0; q = w.pieceNext[q] {
			from, to := w.pieceFrom[q], w.pieceTo[q]
			if int(to-from) > n-p {
				return false
			}
			p += copy(pre[p:], scratch[from:to])
		}
		if s = w.segNext[s]; s == int32(origSeg) {
			break
		}
	}
	return p == n && s == int32(origSeg)
}

// start sets ln to walk segment s from row, outputting row's byte.
func (w *walker) start(ln *lane, s int, row uint32, tt []uint32, scratch []byte) bool {
	if ln.o >= ln.e && !w.newChunk(ln, len(scratch)) {
		return false
	}
	ln.seg, ln.from = int32(s), ln.o
	v := tt[row] &^ markBit
	scratch[ln.o] = byte(v)
	ln.o++
	ln.row = v >> 8
	return true
}

// endPiece records the bytes ln wrote since its piece began as the next
// piece of its segment.
func (w *walker) endPiece(ln *lane) {
	if ln.o == ln.from {
		return
	}
	q := w.pieces
	w.pieces++
	w.pieceFrom[q], w.pieceTo[q], w.pieceNext[q] = ln.from, ln.o, -1
	if w.segFirst[ln.seg] < 0 {
		w.segFirst[ln.seg] = q
	} else {
		w.pieceNext[w.segLast[ln.seg]] = q
	}
	w.segLast[ln.seg] = q
	ln.from = ln.o
}

// newChunk gives ln the next chunk of scratch. Lanes write at most one
// byte per row, so chunks never run out; the check only guards the
// bound.
func (w *walker) newChunk(ln *lane, size int) bool {
	if int(w.nextChunk)+walkChunk > size || int(w.pieces) >= maxPieces-1 {
		return false
	}
	ln.o, ln.e = w.nextChunk, w.nextChunk+walkChunk
	ln.from = ln.o
	w.nextChunk += walkChunk
	return true
}

// derandomise undoes the randomisation of a block's BWT output.
func derandomise(pre []byte) {
	i, r := -2, 0
	for {
		i += int(rNums[r])
		if i >= len(pre) {
			return
		}
		pre[i] ^= 1
		r = (r + 1) & 511
	}
}
