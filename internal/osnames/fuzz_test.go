package osnames

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCheck holds every policy to its promises on any name: Check is
// deterministic and idempotent, keeps the number of components, and what it
// returns for Windows has no character, trailing dot or space or device
// name Windows would refuse or merge; Key and Claim never fail on it.
func FuzzCheck(f *testing.F) {
	for _, tc := range windowsCases {
		f.Add(tc.in)
	}
	for _, tc := range darwinCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, p := range []Policy{Unix, Windows, Darwin} {
			fixed, warn, err := p.Check(name)
			if err != nil {
				continue
			}
			if again, w2, err2 := p.Check(name); again != fixed || w2 != warn || err2 != nil {
				t.Fatalf("%v.Check(%q) not deterministic", p, name)
			}
			if again, w2, err2 := p.Check(fixed); again != fixed || w2 != "" || err2 != nil {
				t.Fatalf("%v.Check(%q) = %q, then %q, %q, %v", p, name, fixed, again, w2, err2)
			}
			if strings.Count(fixed, "/") != strings.Count(name, "/") {
				t.Fatalf("%v.Check(%q) = %q: components changed", p, name, fixed)
			}
			if p != Unix && !utf8.ValidString(fixed) {
				t.Fatalf("%v.Check(%q) = %q: not UTF-8", p, name, fixed)
			}
			if p == Windows {
				for _, c := range strings.Split(fixed, "/") {
					if strings.ContainsFunc(c, windowsForbidden) || windowsDevice(c) ||
						strings.HasSuffix(c, ".") || strings.HasSuffix(c, " ") || utf16Len(c) > maxComponent {
						t.Fatalf("Windows.Check(%q) = %q: component %q", name, fixed, c)
					}
				}
			}
			_ = p.Key(fixed)
			if err := NewNames(p).Claim(name, fixed, false); err != nil {
				t.Fatalf("%v: first claim of %q: %v", p, name, err)
			}
			if _, _, err := p.CheckLink(name); err != nil && p != Windows {
				t.Fatalf("%v.CheckLink(%q): %v", p, name, err)
			}
		}
	})
}
