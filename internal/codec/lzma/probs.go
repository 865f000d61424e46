package lzma

// Model constants from the LZMA specification.
const (
	numStates      = 12
	posStatesMax   = 1 << 4
	minMatchLen    = 2
	maxMatchLen    = minMatchLen + 8 + 8 + 256 - 1 // 273
	lenToPosStates = 4
	endPosModel    = 14  // first position slot using direct bits
	fullDistances  = 128 // distances below this are coded with position slots and specials
	alignBits      = 4
	litStates      = 7     // states below this decode plain literals
	probInit       = 1024  // probability 0.5 in 11 bits
	litSize        = 0x300 // probabilities per literal coder
)

// lenProbs are the probabilities of one length coder.
type lenProbs struct {
	choice  uint16
	choice2 uint16
	low     [posStatesMax][8]uint16
	mid     [posStatesMax][8]uint16
	high    [256]uint16
}

// probs holds every adaptive probability except the literal coders, whose
// number depends on LC+LP.
type probs struct {
	isMatch    [numStates][posStatesMax]uint16
	isRep      [numStates]uint16
	isRepG0    [numStates]uint16
	isRepG1    [numStates]uint16
	isRepG2    [numStates]uint16
	isRep0Long [numStates][posStatesMax]uint16
	posSlot    [lenToPosStates][64]uint16
	posSpecial [1 + fullDistances - endPosModel]uint16
	align      [1 << alignBits]uint16
	matchLen   lenProbs
	repLen     lenProbs
}

// fillProbs sets every probability in s to 0.5.
func fillProbs(s []uint16) {
	for i := range s {
		s[i] = probInit
	}
}

func (l *lenProbs) reset() {
	l.choice, l.choice2 = probInit, probInit
	for i := range l.low {
		fillProbs(l.low[i][:])
		fillProbs(l.mid[i][:])
	}
	fillProbs(l.high[:])
}

func (p *probs) reset() {
	for i := range p.isMatch {
		fillProbs(p.isMatch[i][:])
		fillProbs(p.isRep0Long[i][:])
	}
	fillProbs(p.isRep[:])
	fillProbs(p.isRepG0[:])
	fillProbs(p.isRepG1[:])
	fillProbs(p.isRepG2[:])
	for i := range p.posSlot {
		fillProbs(p.posSlot[i][:])
	}
	fillProbs(p.posSpecial[:])
	fillProbs(p.align[:])
	p.matchLen.reset()
	p.repLen.reset()
}
