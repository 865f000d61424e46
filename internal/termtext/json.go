package termtext

import (
	"io"
	"unicode/utf8"
)

// JSONWriter passes JSON text to W with the characters Escape would escape
// that encoding/json leaves raw (DEL, C1 controls, bidirectional controls)
// written as \uNNNN escapes: the strings decode to the same values, and the
// output is safe to print. encoding/json already escapes the C0 controls
// and U+2028/U+2029, and replaces bytes that are not UTF-8 by U+FFFD.
//
// Each Write must hold whole characters, as json.Encoder's one Write per
// value does; outside strings JSON is ASCII, so every such character is in
// a string.
type JSONWriter struct {
	W   io.Writer
	buf []byte
}

// Write writes p, escaped, to W. It returns len(p) when W took everything.
func (j *JSONWriter) Write(p []byte) (int, error) {
	if safeJSON(p) {
		return j.W.Write(p)
	}
	b := j.buf[:0]
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		if r == 0x7f || r >= 0x80 && r != utf8.RuneError && unsafe(r) {
			const digits = "0123456789abcdef"
			b = append(b, '\\', 'u', digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15])
		} else {
			b = append(b, p[i:i+n]...)
		}
		i += n
	}
	j.buf = b
	if _, err := j.W.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

func safeJSON(p []byte) bool {
	for i := 0; i < len(p); {
		if p[i] < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if r == 0x7f || r != utf8.RuneError && unsafe(r) {
			return false
		}
		i += n
	}
	return true
}
