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

// unBWT undoes the Burrows-Wheeler transform of a block: the string is
// written to pre from the last column d.last[:len(pre)] and the row
// origPtr of the original string.
//
// With F the first column, LF the mapping from a row to the row starting
// with its last byte, and FL its inverse, the string is F[origPtr],
// F[FL(origPtr)], F[FL(FL(origPtr))], ... and, read from its end,
// L[origPtr], L[LF(origPtr)], ... The walk is a chain of cache misses;
// following both directions at once (and two blocks at once, in
// unBWT2) overlaps them. The halves join up exactly when
// FL^n(origPtr) == origPtr, which every encoder's output satisfies;
// otherwise (a crafted block) pre is redone forward-only, which is what
// the reference decoder outputs.
type unBWT struct {
	tt     []uint32 // row j: FL(j)<<8 | F[j]
	back   []uint32 // row i: LF(i)<<8 | L[i]
	pre    []byte
	lo, hi []byte // pre's halves: filled forward from the start, backward from the end
	orig   uint32
	fwd    uint32 // row of the next forward step
	bk     uint32 // row of the next backward step
	k      int    // steps done in each direction
}

// init builds the link tables of d's block.
func (w *unBWT) init(d *blockDecoder, pre []byte, origPtr int) {
	n := len(pre)
	last, tt, back := d.last[:n], d.tt[:n], d.back[:n]
	var next [256]uint32
	sum := uint32(0)
	for b, c := range d.counts {
		next[b] = sum
		sum += uint32(c)
	}
	for i, b := range last {
		j := next[b]
		next[b]++
		tt[j] = uint32(i)<<8 | uint32(b) // row j starts with b
		back[i] = j<<8 | uint32(b)
	}
	h := n / 2
	*w = unBWT{tt: tt, back: back, pre: pre, lo: pre[:h], hi: pre[h:],
		orig: uint32(origPtr), fwd: uint32(origPtr), bk: uint32(origPtr)}
}

// finish completes the walk and checks that the halves met.
func (w *unBWT) finish() {
	tt, back, lo, hi := w.tt, w.back, w.lo, w.hi
	fwd, bk := w.fwd, w.bk
	for k := w.k; k < len(lo); k++ {
		v := tt[fwd]
		u := back[bk]
		lo[k] = byte(v)
		hi[len(hi)-1-k] = byte(u)
		fwd = v >> 8
		bk = u >> 8
	}
	if len(hi) > len(lo) {
		v := tt[fwd]
		hi[0] = byte(v)
		fwd = v >> 8
	}
	// fwd is FL^f(origPtr) after f forward steps and bk is LF^b(origPtr)
	// after b backward steps: they meet iff FL^n(origPtr) == origPtr.
	if fwd == bk {
		return
	}
	fwd = w.orig
	for k := range w.pre {
		v := tt[fwd]
		w.pre[k] = byte(v)
		fwd = v >> 8
	}
}

// inverseBWT undoes the BWT of one block (see unBWT).
func (d *blockDecoder) inverseBWT(pre []byte, origPtr int) {
	var w unBWT
	w.init(d, pre, origPtr)
	w.finish()
}

// inverseBWT2 undoes the BWT of two blocks, d's and e's, walking both at
// once: four independent chains of cache misses.
func inverseBWT2(d *blockDecoder, pre []byte, origPtr int, e *blockDecoder, pre2 []byte, origPtr2 int) {
	var a, b unBWT
	a.init(d, pre, origPtr)
	b.init(e, pre2, origPtr2)
	m := min(len(a.lo), len(b.lo))
	att, aback, alo, ahi := a.tt, a.back, a.lo[:m], a.hi
	btt, bback, blo, bhi := b.tt, b.back, b.lo[:m], b.hi
	af, ab, bf, bb := a.fwd, a.bk, b.fwd, b.bk
	for k := range alo {
		v1 := att[af]
		u1 := aback[ab]
		v2 := btt[bf]
		u2 := bback[bb]
		alo[k] = byte(v1)
		ahi[len(ahi)-1-k] = byte(u1)
		blo[k] = byte(v2)
		bhi[len(bhi)-1-k] = byte(u2)
		af, ab, bf, bb = v1>>8, u1>>8, v2>>8, u2>>8
	}
	a.fwd, a.bk, a.k = af, ab, m
	b.fwd, b.bk, b.k = bf, bb, m
	a.finish()
	b.finish()
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
