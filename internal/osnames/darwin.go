package osnames

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// darwinComponent renames one path component the way macOS can hold it:
// APFS and HFS+ refuse a name that is not UTF-8 (EILSEQ); anything else a
// Unix name holds is held.
func darwinComponent(c string, why *reasons) string {
	return escapeInvalid(c, why)
}

// darwinKey is the identity of a name on a default macOS volume, which is
// case-insensitive and normalization-insensitive: "README" and "readme",
// "café" in NFC and in NFD are one file. It is the name in Normalization
// Form D with every character replaced by the least member of its simple
// case-folding orbit. APFS folds with full case folding, so the few names
// that differ only by a multi-character folding ("ß" against "ss") get
// different keys here; such a pair meets on disk as an existing file,
// which the overwrite policy refuses.
func darwinKey(name string) string {
	return strings.Map(foldMin, norm.NFD.String(name))
}

// foldMin returns the least rune that simple case folding makes equal to r.
func foldMin(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}
