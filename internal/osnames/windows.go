package osnames

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// windowsComponent renames one path component the way Windows can hold it.
func windowsComponent(c string, why *reasons) string {
	c = escapeInvalid(c, why)
	if strings.ContainsFunc(c, windowsForbidden) {
		*why |= badChar
		c = strings.Map(func(r rune) rune {
			if windowsForbidden(r) {
				return '_'
			}
			return r
		}, c)
	}
	// Win32 path normalization drops trailing dots and spaces ("a." opens
	// "a"); each becomes '_' so that no two names merge.
	if end := strings.TrimRight(c, ". "); len(end) < len(c) {
		*why |= trailing
		c = end + strings.Repeat("_", len(c)-len(end))
	}
	if windowsDevice(c) {
		*why |= device
		c = "_" + c
	}
	return c
}

// windowsForbidden reports the characters no Windows name holds: the
// controls 0-31, the path separators, ':' (it names an alternate data
// stream) and the wildcard and redirection characters <>"|?*.
func windowsForbidden(r rune) bool {
	return r < 0x20 || strings.ContainsRune(`<>:"/\|?*`, r)
}

// windowsDevice reports whether the Win32 layer opens component c as a
// device rather than a file, in any directory: CON, PRN, AUX, NUL,
// COM1-COM9, LPT1-LPT9 (with the superscript digits ¹²³ counted as
// digits), CONIN$ and CONOUT$, in any case, also followed by an extension
// and with spaces before it ("nul.txt", "CON .tar.gz").
func windowsDevice(c string) bool {
	base, _, _ := strings.Cut(c, ".")
	base = strings.TrimRight(base, " ")
	for _, d := range []string{"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"} {
		if strings.EqualFold(base, d) {
			return true
		}
	}
	if len(base) < 4 || !strings.EqualFold(base[:3], "COM") && !strings.EqualFold(base[:3], "LPT") {
		return false
	}
	switch base[3:] {
	case "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3":
		return true
	}
	return false
}

// windowsKey upper-cases each UTF-16 code unit as NTFS compares names (its
// $UpCase table is the simple upper-case mapping of the BMP); characters
// outside the BMP are surrogate pairs there and compare as they are.
func windowsKey(name string) string {
	return strings.Map(func(r rune) rune {
		if r <= 0xFFFF {
			if u := unicode.ToUpper(r); u <= 0xFFFF {
				return u
			}
		}
		return r
	}, name)
}

// utf16Len counts the UTF-16 code units of the valid UTF-8 string s.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 && r <= utf8.MaxRune {
			n++
		}
	}
	return n
}
