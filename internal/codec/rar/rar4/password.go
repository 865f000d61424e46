package rar4

import (
	"io"

	"github.com/unpack-dev/unpack/internal/rarcrypt"
)

// probeLen is how much of an encrypted file's packed data is decrypted
// to check a password candidate: enough for the block header and the
// Huffman tables of the RAR 2.9 algorithm (at most about 1.2 KiB).
const probeLen = 2048

// pwTrial is the state of the password trial of RAR 3 file encryption
// (files encrypted without -hp carry no password check). Each candidate
// decrypts the start of the file's data, which must then begin with a
// well-formed first block of the 2.9 algorithm.
type pwTrial struct {
	packed []byte // the packed bytes read ahead, given back through pre
	plain  []byte // a candidate's decryption of packed
	grade  *gradeState
	pre    prefixReader

	from   int  // the first candidate to try
	trial  bool // Open decides and reports: look for another candidate
	alt    bool // a later candidate passes the check too
	chosen int  // index of the candidate used
	check  bool // the candidates went through the first-block check
	passed bool // the chosen one passed it
	fixed  bool // trialOpen chose from (and reported it)
}

// gradeState is the scratch of the first-block check, made when a
// choice among candidates first needs it.
type gradeState struct {
	br     bitReader
	bitLen huffman
}

// prefixReader gives back bytes read ahead, then reads on from r.
type prefixReader struct {
	buf []byte
	r   io.Reader
}

func (p *prefixReader) Read(b []byte) (int, error) {
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// password3 picks the password for the current entry's RAR 3 encrypted
// data, read from src, and returns the reader to decrypt in place of src.
//
// With one candidate, or headers already decrypted by one (-hp), that one
// is used; after trialOpen, the one it chose. Otherwise, for a non-solid
// entry compressed by the 2.9 algorithm, each candidate from t.from
// decrypts the start of the data, graded by firstBlock29: the first
// strong one is chosen, else the first weak one (with none, the first
// candidate, and decoding reports the wrong password). Stored entries and
// solid continuations cannot be checked this way: the sequential reader
// uses the password that last worked (first the first candidate) and
// reports it once its CRC matches; trialOpen tries them by CRC.
func (r *reader) password3(src io.Reader, salt []byte) (string, io.Reader, error) {
	t := &r.pw
	cands := r.passwords
	if r.passOK || len(cands) <= 1 {
		cands = []string{r.password}
	}
	if t.from >= len(cands) {
		t.from = 0
	}
	t.check, t.alt, t.passed, t.chosen = false, false, false, t.from
	if t.fixed {
		t.check = true
		return cands[t.from], src, nil
	}
	h := &r.hdr
	// With one candidate there is nothing to choose: decoding and the CRC
	// tell a wrong one.
	probe := len(cands) > 1 && !r.stored && (h.unpVer == 29 || h.unpVer == 36) && h.flags&fileSolid == 0 && h.unpSize > 0
	if !probe {
		if t.trial || t.from > 0 {
			t.alt = t.from+1 < len(cands)
			return cands[t.from], src, nil
		}
		return r.password, src, nil
	}
	if cap(t.packed) < probeLen {
		t.packed = make([]byte, probeLen)
		t.plain = make([]byte, probeLen)
	}
	n, err := io.ReadFull(src, t.packed[:probeLen])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", nil, err
	}
	t.pre = prefixReader{buf: t.packed[:n], r: src}
	t.check = true
	// The first strong pass is taken at once: a wrong key passes as
	// strong about once in 10^4 (each candidate may cost a key
	// derivation). Of weak passes, the first is taken, and a second one
	// makes the CRC decide (t.alt).
	strong, weak := -1, -1
	for i := t.from; i < len(cands) && strong < 0; i++ {
		switch r.blockGrade3(cands[i], salt, t.packed[:n&^15]) {
		case gradeStrong:
			strong = i
		case gradeWeak:
			if weak < 0 {
				weak = i
			} else {
				t.alt = true
			}
		}
	}
	if strong >= 0 {
		t.alt = false
	}
	found := strong
	if found < 0 {
		found = weak
	}
	if found < 0 {
		return cands[t.from], &t.pre, nil
	}
	t.chosen, t.passed = found, true
	if !t.trial {
		r.opt.Accepted(cands[found])
	}
	return cands[found], &t.pre, nil
}

// Grades of the first-block check.
const (
	gradeFail   = iota // not a block the encoder writes
	gradeWeak          // a PPMd block start, or LZ tables whose codes are incomplete
	gradeStrong        // LZ tables whose codes are all complete
)

// blockGrade3 grades packed, decrypted with pw's key, as the start of a
// file compressed by the 2.9 algorithm.
func (r *reader) blockGrade3(pw string, salt, packed []byte) int {
	t := &r.pw
	plain := t.plain[:len(packed)]
	rarcrypt.NewHeaderDecrypter3(rarcrypt.DeriveKey3(pw, salt)).CryptBlocks(plain, packed)
	if t.grade == nil {
		t.grade = new(gradeState)
	}
	g := t.grade
	g.br.resetBytes(plain)
	return firstBlock29(&g.br, &g.bitLen, r.opt.Limit())
}

// firstBlock29 grades the block header br starts with as one the 2.9
// algorithm's encoder could have written at the start of a non-solid
// file. A PPMd block that resets the model with a valid order and memory
// within limit is gradeWeak (random bytes, from a wrong key, pass that
// one time in four). LZ tables must be read completely, with codes (the
// bit-length code and each of the four tables) that are not
// over-subscribed: gradeStrong when every code with two or more symbols
// is complete, as a Huffman encoder makes them (random bytes never pass
// that in our tests), else gradeWeak (about one in ten). bitLen is
// scratch.
func firstBlock29(br *bitReader, bitLen *huffman, limit int64) int {
	if br.peek(1) == 1 {
		flags := br.bits(8)
		if flags&0x20 == 0 {
			return gradeFail // no model to continue at the start of a file
		}
		maxMB := int64(br.bits(8))
		if order := int(flags&0x1f) + 1; order == 1 || (maxMB+1)<<20 > limit || br.overrun() {
			return gradeFail
		}
		return gradeWeak
	}
	br.bits(2)
	var bl [bitLenSize29]byte
	for i := 0; i < bitLenSize29; i++ {
		l := byte(br.bits(4))
		if l == 15 {
			if zeros := int(br.bits(4)); zeros != 0 {
				i += zeros + 1 // zeros+2 lengths of 0, less the loop's step
				continue
			}
		}
		bl[i] = l
	}
	grade := kraft(bl[:], true)
	if grade == gradeFail {
		return gradeFail
	}
	bitLen.init(bl[:])
	var table [tableSize29]byte
	for i := 0; i < tableSize29; {
		if br.overrun() {
			return gradeFail
		}
		n := bitLen.decode(br)
		switch {
		case n < 16:
			table[i] = byte(n)
			i++
		case n < 18:
			c := 0
			if n == 16 {
				c = int(br.bits(3)) + 3
			} else {
				c = int(br.bits(7)) + 11
			}
			if i == 0 {
				return gradeFail
			}
			for ; c > 0 && i < tableSize29; c-- {
				table[i] = table[i-1]
				i++
			}
		case n == 18:
			i += int(br.bits(3)) + 3 // zeros: the table starts zeroed
		default:
			i += int(br.bits(7)) + 11
		}
	}
	if br.overrun() {
		return gradeFail
	}
	const m, d, l = mainSize29, mainSize29 + distSize29, mainSize29 + distSize29 + lowDistSize29
	for _, g := range [...]int{kraft(table[:m], true), kraft(table[m:d], false), kraft(table[d:l], false), kraft(table[l:], false)} {
		grade = min(grade, g)
	}
	return grade
}

// kraft grades code lengths (0: unused, 1–15): gradeFail when the code
// is over-subscribed, or empty while need is set (a file without matches
// has empty distance tables); gradeStrong when it is complete or has one
// symbol; else gradeWeak.
func kraft(lengths []byte, need bool) int {
	sum, used := 0, 0
	for _, x := range lengths {
		if x != 0 {
			sum += 1 << (15 - x)
			used++
		}
	}
	switch {
	case used == 0 && need, sum > 1<<15:
		return gradeFail
	case sum == 1<<15, used <= 1:
		return gradeStrong
	}
	return gradeWeak
}

// seekTrial chooses, for the sequential reader of a seekable, non-solid,
// single-volume archive, among several candidates for the current entry
// (RAR 3 AES) as Open does, reading its data a first time through r.ra;
// the data are then read on with the candidate chosen.
func (r *reader) seekTrial() error {
	r.pw.from, r.pw.fixed = 0, false
	h := &r.hdr
	if r.ra == nil || r.solid || r.multi || r.passOK || len(r.passwords) < 2 || h.unpSize == 0 || h.splitAfter() {
		return nil
	}
	x, i, err := trialOpen(func() *reader {
		x := r.dataReader(*h, r.entry, r.dataPos)
		x.password, x.havePass, x.passwords = r.password, true, r.passwords
		return x
	})
	if err != nil {
		return err
	}
	x.Close()
	r.pw.from, r.pw.fixed = i, true
	return nil
}
