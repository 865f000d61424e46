package extract

import (
	"errors"
	"path"
	"strings"
	"testing"
)

func TestCleanName(t *testing.T) {
	ok := map[string]string{"a": "a", "./a/b/": "a/b", "a//b": "a/b", "a/./b": "a/b", ".": "", "./": "",
		"..a": "..a", "a..": "a..", ".//": "", "././a": "a", ".//a": "a", "a/b/.": "a/b"}
	for in, want := range ok {
		got, err := CleanName(in)
		if err != nil || got != want {
			t.Errorf("CleanName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{"../a", "a/../../b", "/etc/passwd", `a\b`, "C:/x", "c:x", "a\x00b", "..",
		strings.Repeat("a", 256), strings.Repeat("a/", 2100)}
	for _, in := range bad {
		if _, err := CleanName(in); !errors.Is(err, ErrInsecurePath) {
			t.Errorf("CleanName(%.40q) = %v, want ErrInsecurePath", in, err)
		}
	}
}

func TestCleanLinkTarget(t *testing.T) {
	ok := [][2]string{{"l", "a"}, {"d/l", "../a"}, {"d/e/l", "../../a"}, {"l", "./a/b"}, {"d/l", "x/../../y"}}
	for _, c := range ok {
		if _, err := CleanLinkTarget(c[0], c[1]); err != nil {
			t.Errorf("CleanLinkTarget(%q, %q) = %v", c[0], c[1], err)
		}
	}
	bad := [][2]string{{"l", "/etc"}, {"l", "../a"}, {"d/l", "../../a"}, {"l", "a/../../b"}, {"l", ""},
		{"l", `..\a`}, {"l", "a\x00"},
		{"l", "C:/x"}, {"l", "c:x"}, {"l", `\\srv\share`}, {"l", `//srv/share`}}
	for _, c := range bad {
		if _, err := CleanLinkTarget(c[0], c[1]); !errors.Is(err, ErrInsecurePath) {
			t.Errorf("CleanLinkTarget(%q, %q) = %v, want ErrInsecurePath", c[0], c[1], err)
		}
	}
}

func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "/abs", "a/./b/..", `c:\x`, "./a//b/", "a/.", "."} {
		f.Add(s, "t")
	}
	f.Fuzz(func(t *testing.T, name, target string) {
		c, err := CleanName(name)
		if err == nil {
			if strings.HasPrefix(c, "/") || c == ".." || strings.HasPrefix(c, "../") || strings.Contains(c, "/../") {
				t.Fatalf("CleanName(%q) = %q escapes", name, c)
			}
			if c != "" && path.Clean(c) != c {
				t.Fatalf("CleanName(%q) = %q, not clean", name, c)
			}
			if _, err := CleanLinkTarget(c, target); err == nil && strings.HasPrefix(target, "/") {
				t.Fatalf("absolute target %q accepted", target)
			}
		}
	})
}
