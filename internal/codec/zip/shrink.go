package zip

import (
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Shrink (method 1, PKZIP 1.x; APPNOTE 5.1): LZW with codes of 9 to 13
// bits, where code 256 followed by 1 widens the codes and followed by 2
// frees every code that is no other code's prefix ("partial clearing").
// Freed codes are reused lowest first. The table mirrors the compressor's:
// each code is a prefix code plus one byte.

var errShrink = archive.Corruptf("zip: shrink: invalid code")

const (
	shrinkMaxBits  = 13
	shrinkCodes    = 1 << shrinkMaxBits
	shrinkControl  = 256
	shrinkFirst    = 257
	shrinkLiteral  = -1 // prefix of codes 0-255
	shrinkFreeCode = -2 // prefix of an unused code
)

type unshrinker struct {
	r        io.ByteReader
	b        uint32
	nb       uint
	err      error
	left     uint64 // bytes still to produce
	codeSize uint
	prev     int // previous code, -1 before the first
	nextFree int // lowest free code, shrinkCodes when none
	prefix   [shrinkCodes]int16
	suffix   [shrinkCodes]byte
	used     [shrinkCodes]bool // scratch for partial clearing
	stack    [shrinkCodes]byte // the current code's string, at its end
	pending  []byte
}

func newUnshrinker(r io.ByteReader, h *header) (*unshrinker, error) {
	if h.usizeUnknown {
		return nil, archive.Unsupportedf("zip: %q: a shrunk entry of unknown size cannot be streamed", h.name)
	}
	u := &unshrinker{r: r, left: h.usize, codeSize: 9, prev: -1, nextFree: shrinkFirst}
	for i := range u.prefix {
		u.prefix[i] = shrinkFreeCode
		if i < 256 {
			u.prefix[i] = shrinkLiteral
			u.suffix[i] = byte(i)
		}
	}
	return u, nil
}

func (u *unshrinker) code() (int, bool) {
	for u.nb < u.codeSize {
		c, err := u.r.ReadByte()
		if err != nil {
			u.err = ErrTruncated
			return 0, false
		}
		u.b |= uint32(c) << u.nb
		u.nb += 8
	}
	v := int(u.b & (1<<u.codeSize - 1))
	u.b >>= u.codeSize
	u.nb -= u.codeSize
	return v, true
}

// expand writes code c's string at the end of the stack and returns it.
func (u *unshrinker) expand(c int) ([]byte, bool) {
	i := len(u.stack)
	for {
		if i == 0 || u.prefix[c] == shrinkFreeCode {
			return nil, false // a cycle, or a freed code in the chain
		}
		i--
		u.stack[i] = u.suffix[c]
		if u.prefix[c] == shrinkLiteral {
			return u.stack[i:], true
		}
		c = int(u.prefix[c])
	}
}

func (u *unshrinker) advanceFree() {
	for u.nextFree < shrinkCodes && u.prefix[u.nextFree] != shrinkFreeCode {
		u.nextFree++
	}
}

func (u *unshrinker) partialClear() {
	u.used = [shrinkCodes]bool{}
	for i := shrinkFirst; i < shrinkCodes; i++ {
		if p := u.prefix[i]; p >= 0 {
			u.used[p] = true
		}
	}
	for i := shrinkFirst; i < shrinkCodes; i++ {
		if !u.used[i] {
			u.prefix[i] = shrinkFreeCode
		}
	}
	u.nextFree = shrinkFirst
	u.advanceFree()
}

// step decodes one code into u.pending.
func (u *unshrinker) step() {
	c, ok := u.code()
	if !ok {
		return
	}
	if c == shrinkControl {
		ctl, ok := u.code()
		if !ok {
			return
		}
		switch {
		case ctl == 1 && u.codeSize < shrinkMaxBits:
			u.codeSize++
		case ctl == 2:
			u.partialClear()
		default:
			u.err = errShrink
		}
		return
	}
	if u.prev < 0 {
		if c > 255 {
			u.err = errShrink
			return
		}
		u.stack[len(u.stack)-1] = byte(c)
		u.pending = u.stack[len(u.stack)-1:]
		u.prev = c
		return
	}
	var s []byte
	if u.prefix[c] == shrinkFreeCode {
		// The code being defined by this very step (KwKwK): the previous
		// string plus its own first byte.
		if c != u.nextFree {
			u.err = errShrink
			return
		}
		ps, ok := u.expand(u.prev)
		if !ok || len(ps) == len(u.stack) {
			u.err = errShrink
			return
		}
		first := ps[0]
		s = u.stack[len(u.stack)-len(ps)-1:]
		copy(s, ps)
		s[len(s)-1] = first
		u.prefix[c], u.suffix[c] = int16(u.prev), first
	} else {
		s, ok = u.expand(c)
		if !ok {
			u.err = errShrink
			return
		}
		if u.nextFree < shrinkCodes {
			u.prefix[u.nextFree], u.suffix[u.nextFree] = int16(u.prev), s[0]
		}
	}
	u.advanceFree()
	u.prev = c
	u.pending = s
}

func (u *unshrinker) Read(p []byte) (int, error) {
	for len(u.pending) == 0 {
		if u.left == 0 {
			return 0, io.EOF
		}
		if u.err != nil {
			return 0, u.err
		}
		u.step()
	}
	n := copy(p, u.pending[:min(uint64(len(u.pending)), u.left)])
	u.pending = u.pending[n:]
	u.left -= uint64(n)
	if u.left == 0 {
		u.pending = nil
	}
	return n, nil
}
