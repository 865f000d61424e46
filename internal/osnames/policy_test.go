package osnames

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// checkCase is one name and what Check makes of it; want == "" means
// refused with ErrRefused. A warning is expected when want != in.
type checkCase struct {
	in, want string
}

// The Windows cases follow "Naming Files, Paths, and Namespaces": reserved
// characters, controls, trailing dots and spaces, device names (also with an
// extension, with spaces before it, with superscript digits), CONIN$ and
// CONOUT$; and what is allowed (COM0, COM10, a leading space, DEL).
var windowsCases = []checkCase{
	{"a", "a"},
	{"dir/file.txt", "dir/file.txt"},
	{" lead", " lead"},
	{"del\x7f", "del\x7f"},
	{"é/ü/日本語.txt", "é/ü/日本語.txt"},
	{"a:b", "a_b"},
	{"file.txt:stream:$DATA", "file.txt_stream_$DATA"},
	{`a<b>c"d|e?f*g`, "a_b_c_d_e_f_g"},
	{`back\slash`, "back_slash"},
	{"a\x01b\tc\x1fd", "a_b_c_d"},
	{"a.", "a_"},
	{"a ", "a_"},
	{"a. .", "a___"},
	{"...", "___"},
	{"dir./file", "dir_/file"},
	{"CON", "_CON"},
	{"con", "_con"},
	{"Con.txt", "_Con.txt"},
	{"NUL.tar.gz", "_NUL.tar.gz"},
	{"nul .txt", "_nul .txt"},
	{"PRN", "_PRN"},
	{"aux.c", "_aux.c"},
	{"COM1", "_COM1"},
	{"com9.log", "_com9.log"},
	{"LPT5", "_LPT5"},
	{"COM\u00b9", "_COM\u00b9"},
	{"lpt\u00b3.x", "_lpt\u00b3.x"},
	{"CONIN$", "_CONIN$"},
	{"conout$.txt", "_conout$.txt"},
	{"d/CON/x", "d/_CON/x"},
	{"CON.", "CON_"},
	{"COM0", "COM0"},
	{"LPT0", "LPT0"},
	{"COM10", "COM10"},
	{"COM", "COM"},
	{"CONX", "CONX"},
	{"console", "console"},
	{"NULL", "NULL"},
	{"xCON", "xCON"},
	{"COM\u00b4", "COM\u00b4"},
	{"a\xffb", "a%FFb"},
	{"\xc3/x", "%C3/x"},
	{"a?.", "a__"},
	{strings.Repeat("a", 254) + ".", strings.Repeat("a", 254) + "_"},
	{strings.Repeat("😀", 127), strings.Repeat("😀", 127)},
	{strings.Repeat("😀", 128), ""},          // 256 UTF-16 units
	{"CON." + strings.Repeat("x", 251), ""}, // 256 with the '_'
	{strings.Repeat("\xff", 86), ""},        // 258 once written as %FF
}

var darwinCases = []checkCase{
	{"a", "a"},
	{"a:b", "a:b"},
	{"CON", "CON"},
	{"a.", "a."},
	{`a<b>c"d|e?f*g`, `a<b>c"d|e?f*g`},
	{"a\x01b", "a\x01b"},
	{"café/cafe\u0301", "café/cafe\u0301"},
	{"a\xffb", "a%FFb"},
	{"d/\xe2\x82/x", "d/%E2%82/x"},
	{strings.Repeat("\xff", 85), strings.Repeat("%FF", 85)},
	{strings.Repeat("\xff", 86), ""},
}

func runCheck(t *testing.T, p Policy, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		got, warn, err := p.Check(tc.in)
		if tc.want == "" {
			if !errors.Is(err, ErrRefused) {
				t.Errorf("%v.Check(%.40q) = %.40q, %v; want ErrRefused", p, tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v.Check(%.40q) = %.40q, %v; want %.40q", p, tc.in, got, err, tc.want)
			continue
		}
		if renamed := tc.want != tc.in; renamed != (warn != "") {
			t.Errorf("%v.Check(%.40q): warning %q, renamed %v", p, tc.in, warn, renamed)
		}
		if again, w2, err := p.Check(got); again != got || w2 != "" || err != nil {
			t.Errorf("%v.Check(%.40q) = %.40q, %q, %v; want it unchanged", p, got, again, w2, err)
		}
	}
}

func TestCheckWindows(t *testing.T) { runCheck(t, Windows, windowsCases) }
func TestCheckDarwin(t *testing.T)  { runCheck(t, Darwin, darwinCases) }

func TestCheckUnix(t *testing.T) {
	for _, in := range []string{"a", "CON", "a:b", "a.", "a\xffb", `a<b>?*`, strings.Repeat("\xff", 200)} {
		if got, warn, err := Unix.Check(in); got != in || warn != "" || err != nil {
			t.Errorf("Unix.Check(%.40q) = %.40q, %q, %v", in, got, warn, err)
		}
	}
}

func TestCheckWarning(t *testing.T) {
	for _, tc := range []struct {
		p        Policy
		in       string
		contains []string
	}{
		{Windows, "a:b", []string{`"a_b"`, "<>:"}},
		{Windows, "a.", []string{`"a_"`, "trailing dot"}},
		{Windows, "nul.txt", []string{`"_nul.txt"`, "device name"}},
		{Windows, "x\xff:", []string{`"x%FF_"`, "not UTF-8", "<>:"}},
		{Darwin, "x\xff", []string{`"x%FF"`, "not UTF-8", "macOS"}},
	} {
		_, warn, _ := tc.p.Check(tc.in)
		for _, s := range tc.contains {
			if !strings.Contains(warn, s) {
				t.Errorf("%v.Check(%q) warning %q lacks %q", tc.p, tc.in, warn, s)
			}
		}
	}
}

func TestCheckLink(t *testing.T) {
	for _, tc := range []struct {
		p        Policy
		in, want string // want "" means refused
	}{
		{Windows, "a", "a"},
		{Windows, "../a:b", "../a_b"},
		{Windows, "./CON", "./_CON"},
		{Windows, "x/./../y.", "x/./../y_"},
		{Windows, "a//b", "a//b"},
		{Windows, "..", ".."},
		{Windows, "/etc/passwd", ""},
		{Windows, "//server/share", ""},
		{Windows, `\\server\share`, ""},
		{Windows, `\x`, ""},
		{Windows, `..\x`, ""},
		{Windows, "C:x", ""},
		{Windows, "c:/Windows", ""},
		{Windows, "dir/C:x", "dir/C_x"},
		{Darwin, "C:x", "C:x"},
		{Darwin, "../a\xff", "../a%FF"},
		{Unix, "C:x", "C:x"},
	} {
		got, warn, err := tc.p.CheckLink(tc.in)
		if tc.want == "" {
			if !errors.Is(err, ErrRefused) {
				t.Errorf("%v.CheckLink(%q) = %q, %v; want ErrRefused", tc.p, tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want || (got != tc.in) != (warn != "") {
			t.Errorf("%v.CheckLink(%q) = %q, %q, %v; want %q", tc.p, tc.in, got, warn, err, tc.want)
		}
	}
}

func TestKey(t *testing.T) {
	const nfc, nfd = "caf\u00e9", "cafe\u0301"
	for _, tc := range []struct {
		p    Policy
		a, b string
		same bool
	}{
		{Windows, "README", "readme", true},
		{Windows, "Dir/ReadMe", "dir/README", true},
		{Windows, "\u00e9", "\u00c9", true},
		{Windows, "\u00ff", "\u0178", true},
		{Windows, nfc, nfd, false}, // NTFS does not normalize
		{Windows, "a", "a_", false},
		{Windows, "\u00df", "SS", false},
		{Windows, "\U00010400", "\U00010428", false}, // outside the BMP: no case
		{Darwin, "README", "readme", true},
		{Darwin, "Dir/ReadMe", "dir/README", true},
		{Darwin, nfc, nfd, true},
		{Darwin, "CAF\u00c9", nfd, true},
		{Darwin, "\u212b", "\u00e5", true}, // ANGSTROM SIGN is canonically Å
		{Darwin, "\u017f", "S", true},      // long s folds to s
		{Darwin, "\U00010400", "\U00010428", true},
		{Darwin, "\u00df", "ss", false}, // full folding, see darwinKey
		{Darwin, "a", "b", false},
		{Darwin, "\u00e9", "e", false},
		{Unix, "README", "readme", false},
		{Unix, nfc, nfd, false},
		{Unix, "a", "a", true},
	} {
		if got := tc.p.Key(tc.a) == tc.p.Key(tc.b); got != tc.same {
			t.Errorf("%v: Key(%q) == Key(%q) is %v, want %v", tc.p, tc.a, tc.b, got, tc.same)
		}
	}
}

func TestDefault(t *testing.T) {
	want := map[string]Policy{"windows": Windows, "darwin": Darwin, "ios": Darwin}[runtime.GOOS]
	if got := Default(); got != want {
		t.Errorf("Default() = %v on %s, want %v", got, runtime.GOOS, want)
	}
}

func TestUTF16Len(t *testing.T) {
	for s, n := range map[string]int{"": 0, "a": 1, "é": 1, "日本": 2, "😀": 2, "a😀b": 4} {
		if got := utf16Len(s); got != n {
			t.Errorf("utf16Len(%q) = %d, want %d", s, got, n)
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	const name = "project-1.2.3/src/internal/Component/file_name.go"
	for _, p := range []Policy{Windows, Darwin} {
		b.Run(p.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if fixed, _, _ := p.Check(name); fixed != name {
					b.Fatal(fixed)
				}
			}
		})
	}
}

func BenchmarkClaim(b *testing.B) {
	names := make([]string, 4096)
	for i := range names {
		names[i] = fmt.Sprintf("project-1.2.3/src/dir%d/File_%d.go", i%64, i)
	}
	for _, p := range []Policy{Windows, Darwin} {
		b.Run(p.String(), func(b *testing.B) {
			b.ReportAllocs()
			n := NewNames(p)
			i := 0
			for b.Loop() {
				name := names[i%len(names)]
				if err := n.Claim(name, name, false); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
