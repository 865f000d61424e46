// Package termtext makes text that comes from an archive (names, link
// targets, comments, messages quoting them) safe to print on a terminal or
// in a line-based listing: nothing in it can move the cursor, change the
// terminal's state, reorder what follows or start a new line.
//
// Escape is the one place this is decided. It rewrites, as backslash
// escapes that read back with Unescape:
//
//   - the backslash itself (\\), so that an escape is never ambiguous with
//     a name that holds the same characters, as GNU tar lists names;
//   - C0 controls and DEL (\n, \r, \t, \a, \b, \f, \v, else \xNN): ESC
//     starts CSI and OSC sequences, BEL ends OSC, a newline forges a line;
//   - bytes that are not UTF-8 (\xNN): a raw 0x9B is CSI on a terminal
//     that reads 8-bit controls, and a truncated sequence can swallow the
//     character after it;
//   - C1 controls U+0080–U+009F, the Unicode bidirectional controls
//     (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line
//     and paragraph separators U+2028, U+2029 (\uNNNN): a bidi override
//     makes "exe.txt" display what is really "txt.exe".
//
// Every other character, printable or not, passes unchanged: names in any
// script keep their look.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// unsafe reports whether rune c (a valid, decoded rune) is escaped.
func unsafe(c rune) bool {
	switch {
	case c < 0x20, c == 0x7f, c == '\\':
		return true
	case c < 0x80:
		return false
	case c <= 0x9f, c == 0x2028, c == 0x2029:
		return true
	}
	return unicode.Is(unicode.Bidi_Control, c)
}

// Safe reports whether s prints as itself: Escape(s) == s.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '\\' {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

// Escape returns s with every character that could act on a terminal or
// break a line escaped (see the package comment). A string that needs no
// escape is returned as it is, without allocating.
func Escape(s string) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			hexByte(&b, s[i])
		case !unsafe(r):
			b.WriteString(s[i : i+n])
		case r < 0x80:
			escapeASCII(&b, byte(r))
		default:
			b.WriteString(`\u`)
			const digits = "0123456789abcdef"
			b.WriteByte(digits[r>>12&15])
			b.WriteByte(digits[r>>8&15])
			b.WriteByte(digits[r>>4&15])
			b.WriteByte(digits[r&15])
		}
		i += n
	}
	return b.String()
}

func escapeASCII(b *strings.Builder, c byte) {
	switch c {
	case '\\':
		b.WriteString(`\\`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\v':
		b.WriteString(`\v`)
	default:
		hexByte(b, c)
	}
}

func hexByte(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&15])
}

// Unescape reverses Escape. It reports false for a string Escape cannot
// have produced (a lone backslash, an unknown or short escape).
func Unescape(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			v, ok := hexValue(s, i+1, 2)
			if !ok {
				return "", false
			}
			b.WriteByte(byte(v))
			i += 2
		case 'u':
			v, ok := hexValue(s, i+1, 4)
			if !ok {
				return "", false
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			return "", false
		}
	}
	return b.String(), true
}

// hexValue reads n lower- or upper-case hex digits of s from i.
func hexValue(s string, i, n int) (uint32, bool) {
	if i+n > len(s) {
		return 0, false
	}
	var v uint32
	for _, c := range []byte(s[i : i+n]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(c)
	}
	return v, true
}
