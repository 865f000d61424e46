package brotli

import _ "embed"

// The static dictionary of RFC 7932 section 8 and Appendix A, extracted
// by scripts/testdata/brotli-dictionary.sh.
//
//go:embed dictionary.bin
var dictionary string

// dictOffset[n] is where the words of length n start in the dictionary.
var dictOffset = func() (o [25]int) {
	for n := 4; n < 24; n++ {
		o[n+1] = o[n] + n<<ndBits[n]
	}
	return o
}()

// Transform kinds (section 8 and Appendix B).
const (
	tIdentity = iota
	tOmitLast1
	tOmitLast2
	tOmitLast3
	tOmitLast4
	tOmitLast5
	tOmitLast6
	tOmitLast7
	tOmitLast8
	tOmitLast9
	tUppercaseFirst
	tUppercaseAll
	tOmitFirst1
	tOmitFirst2
	tOmitFirst3
	tOmitFirst4
	tOmitFirst5
	tOmitFirst6
	tOmitFirst7
	tOmitFirst8
	tOmitFirst9
)

// A transform turns a dictionary word into prefix + kind(word) + suffix.
type transform struct {
	prefix string
	kind   uint8
	suffix string
}

// maxWord is the longest transformed word: a prefix, a 24-byte word and a
// suffix of at most 8 bytes each (" and ", ". This ", …) with slack.
const maxWord = 64

// transformWord writes transform t of word into dst and returns its length.
func transformWord(dst *[maxWord]byte, word string, t *transform) int {
	n := copy(dst[:], t.prefix)
	k := t.kind
	switch {
	case k <= tOmitLast9:
		word = word[:len(word)-min(int(k), len(word))]
	case k >= tOmitFirst1:
		word = word[min(int(k-tOmitFirst1+1), len(word)):]
	}
	w := dst[n : n+len(word)]
	copy(w, word)
	n += len(word)
	switch k {
	case tUppercaseFirst:
		uppercase(w)
	case tUppercaseAll:
		for i := 0; i < len(w); {
			i += uppercase(w[i:])
		}
	}
	n += copy(dst[n:], t.suffix)
	return n
}

// uppercase applies the RFC's uppercasing to the UTF-8-like character at
// the start of w and returns its length (section 8, Appendix B).
func uppercase(w []byte) int {
	if len(w) == 0 {
		return 0
	}
	switch c := w[0]; {
	case c < 0xc0:
		if c >= 'a' && c <= 'z' {
			w[0] ^= 32
		}
		return 1
	case c < 0xe0:
		if len(w) > 1 {
			w[1] ^= 32
		}
		return min(2, len(w))
	default:
		if len(w) > 2 {
			w[2] ^= 5
		}
		return min(3, len(w))
	}
}
