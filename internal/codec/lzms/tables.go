package lzms

const (
	numLiteralSyms = 256
	numLengthSyms  = 54
	numPowerSyms   = 8
	maxOffsetSyms  = 799
	maxCodeLen     = 15

	literalRebuild = 1024
	offsetRebuild  = 1024
	lengthRebuild  = 512
	powerRebuild   = 512

	probBits       = 6
	probMax        = 1 << probBits
	initialRecent  = 0x0000000055555555
	numMainProbs   = 16
	numMatchProbs  = 32
	numOtherProbs  = 64
	numRepeats     = 3
	x86IDWindow    = 65535
	x86MaxTransOff = 1023
)

// The slot tables: each slot has a base and a number of extra bits read
// verbatim; a slot's base is the previous base plus 1<<extra. Given as
// runs of (extra bits, slots): the format's own numbers.
var (
	offsetRuns = [][2]uint8{{0, 8}, {2, 9}, {3, 7}, {4, 10}, {5, 15}, {6, 15}, {7, 20}, {8, 20}, {9, 30},
		{10, 33}, {11, 40}, {12, 42}, {13, 45}, {14, 60}, {15, 73}, {16, 80}, {17, 85}, {18, 95},
		{19, 105}, {20, 6}, {30, 1}}
	lengthRuns = [][2]uint8{{0, 26}, {1, 4}, {2, 6}, {3, 4}, {4, 5}, {5, 2}, {6, 1}, {7, 1}, {8, 1},
		{9, 1}, {10, 1}, {16, 1}, {30, 1}}

	// Sized to whole powers of two, so that a masked symbol needs no
	// bounds check.
	offsetBase  [1 << symBits]uint32
	offsetExtra [1 << symBits]uint8
	lengthBase  [64]uint32
	lengthExtra [64]uint8
)

func init() {
	expand(offsetRuns, offsetBase[:], offsetExtra[:])
	expand(lengthRuns, lengthBase[:], lengthExtra[:])
}

func expand(runs [][2]uint8, base []uint32, extra []uint8) {
	i := 0
	base[0] = 1
	for _, r := range runs {
		for range r[1] {
			extra[i] = r[0]
			base[i+1] = base[i] + 1<<r[0]
			i++
		}
	}
}

// numOffsetSlots is how many offset slots a buffer of n bytes can use.
func numOffsetSlots(n int) int {
	if n < 2 {
		return 0
	}
	v := uint64(n - 1)
	s := 0
	for s+1 < maxOffsetSyms && uint64(offsetBase[s+1]) <= v {
		s++
	}
	return s + 1
}
