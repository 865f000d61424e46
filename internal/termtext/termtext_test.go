package termtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain/name.txt", "plain/name.txt"},
		{"naïve 日本語 emoji 🎉", "naïve 日本語 emoji 🎉"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},                                                               // CSI: clear screen
		{"\x1b]8;;http://evil\x1b\\x\x1b]8;;\x1b\\", `\x1b]8;;http://evil\x1b\\x\x1b]8;;\x1b\\`}, // OSC 8 hyperlink
		{"\x1b]0;title\a", `\x1b]0;title\a`},                                                     // OSC title, BEL
		{"bell\a", `bell\a`},
		{"c1\u009b2J", `c1\u009b2J`},               // C1 CSI as UTF-8
		{"raw\x9b2J", `raw\x9b2J`},                 // C1 CSI as a raw byte (not UTF-8)
		{"latin1 caf\xe9", `latin1 caf\xe9`},       // not UTF-8
		{"cut\xe6\x97", `cut\xe6\x97`},             // truncated sequence
		{"evil\u202etxt.exe", `evil\u202etxt.exe`}, // RLO
		{"\u2066iso\u2069 \u200e\u200f\u061c", `\u2066iso\u2069 \u200e\u200f\u061c`},
		{"a\nb", `a\nb`},
		{"a\r\tb\v\f\b", `a\r\tb\v\f\b`},
		{"line\u2028sep\u2029", `line\u2028sep\u2029`},
		{`back\slash`, `back\\slash`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"", ""},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got, ok := Unescape(tc.want); !ok || got != tc.in {
			t.Errorf("Unescape(%q) = %q, %v, want %q", tc.want, got, ok, tc.in)
		}
		if Safe(tc.in) != (tc.in == tc.want) {
			t.Errorf("Safe(%q) = %v", tc.in, Safe(tc.in))
		}
	}
}

func TestEscapeNoAlloc(t *testing.T) {
	s := strings.Repeat("a safe/name ", 20)
	if n := testing.AllocsPerRun(100, func() { _ = Escape(s) }); n != 0 {
		t.Errorf("Escape of a safe string allocates %v times", n)
	}
}

func TestUnescapeRejects(t *testing.T) {
	for _, s := range []string{`a\`, `\q`, `\x1`, `\xzz`, `\u12`, `\u12g4`} {
		if _, ok := Unescape(s); ok {
			t.Errorf("Unescape(%q) accepted", s)
		}
	}
}

func TestJSONWriter(t *testing.T) {
	const head = "a\x1b[2J\u009b\u202e\x7f\u2028 b"
	in := head + "\x9b日本"
	var out bytes.Buffer
	enc := json.NewEncoder(&JSONWriter{W: &out})
	if err := enc.Encode(map[string]string{"name": in}); err != nil {
		t.Fatal(err)
	}
	if !printable(out.String()) {
		t.Errorf("JSON output holds controls: %q", out.String())
	}
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	// encoding/json turns the byte that is not UTF-8 into U+FFFD; every
	// other character comes back as it was.
	if want := head + "\ufffd日本"; back["name"] != want {
		t.Errorf("decoded %q, want %q", back["name"], want)
	}
}

// printable reports whether s holds nothing Escape would escape but
// backslashes and the final newline.
func printable(s string) bool {
	return Safe(strings.ReplaceAll(strings.TrimSuffix(s, "\n"), `\`, ""))
}

// FuzzEscape checks that Escape's output holds no control, bidi control
// or invalid byte, and that Unescape gives the input back.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a\x1b[2J", "\u202e", "\x9b", `\x41`, "a\nb", "日本\xe6"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q is not UTF-8", s, e)
		}
		for _, r := range e {
			if r != '\\' && unsafe(r) {
				t.Fatalf("Escape(%q) = %q holds %U", s, e, r)
			}
		}
		if back, ok := Unescape(e); !ok || back != s {
			t.Fatalf("Unescape(Escape(%q)) = %q, %v", s, back, ok)
		}
	})
}
