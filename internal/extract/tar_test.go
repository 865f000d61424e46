package extract

import (
	gotar "archive/tar"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

type tarCase struct {
	name, link string
	typ        archive.Type
	mode       fs.FileMode
}

// emit puts entries through a Tar sink and returns each Put's error and
// the names in the stream, read back.
func emit(t *testing.T, opt TarOptions, entries []tarCase) ([]error, map[string]*gotar.Header) {
	t.Helper()
	var buf bytes.Buffer
	sink := NewTar(&buf, opt)
	var errs []error
	for _, c := range entries {
		e := &archive.Entry{Name: c.name, Linkname: c.link, Type: c.typ, Mode: c.mode, Size: 1}
		errs = append(errs, sink.Put(e, strings.NewReader("x")))
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	got := map[string]*gotar.Header{}
	tr := gotar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got[h.Name] = h
	}
	return errs, got
}

func sym(name, target string) tarCase {
	return tarCase{name: name, link: target, typ: archive.TypeSymlink}
}
func tfile(name string) tarCase { return tarCase{name: name, typ: archive.TypeFile, mode: 0o644} }

// TestTarLinkChains: symlinks that each stay inside on their own but leave
// the root through the ones emitted before them, and entries written
// through an emitted symlink, are refused; the rest of the stream is whole.
func TestTarLinkChains(t *testing.T) {
	for _, tc := range []struct {
		what    string
		entries []tarCase
		refused int   // index of the refused entry
		reason  error // what the refusal errors.Is
	}{
		{"a -> . then a/b -> ..", []tarCase{sym("a", "."), sym("a/b", "..")}, 1, errThroughSymlink},
		{"x/y -> .. then c -> x/y/..", []tarCase{sym("x/y", ".."), sym("c", "x/y/..")}, 1, errLeavesRoot},
		{"a -> . then a/a/a/b -> ../../..", []tarCase{sym("a", "."), sym("a/a/a/b", "../../..")}, 1, errThroughSymlink},
		{"d -> sub then a file in d", []tarCase{sym("d", "sub"), tfile("d/f")}, 1, errThroughSymlink},
		{"d -> sub then a directory d", []tarCase{sym("d", "sub"), {name: "d", typ: archive.TypeDir}}, 1, errReplacesSymlink},
		{"d -> sub then a file d", []tarCase{sym("d", "sub"), tfile("d")}, 1, errReplacesSymlink},
		{"hard link through a symlink", []tarCase{sym("d", "."), {name: "h", link: "d/f", typ: archive.TypeHardlink}}, 1, errThroughSymlink},
		{"deep then up", []tarCase{sym("p/q/r", "../.."), sym("s", "p/q/r/..")}, 1, errLeavesRoot},
		{"chain of two", []tarCase{sym("u", "v/w"), sym("v/w", ".."), sym("z", "u/..")}, 2, errLeavesRoot},
		{"loop", []tarCase{sym("a", "b"), sym("b", "a"), sym("c", "a/x")}, 2, errLinkHops},
		{"a later symlink under an earlier one's target", []tarCase{sym("a/b", "../b/.."), sym("b", ".")}, 1, errEarlierLeaves},
		{"a later symlink, two hops", []tarCase{sym("a/b", "../c/d/.."), sym("c/d", "../e"), sym("e", ".")}, 2, errEarlierLeaves},
		{"absolute", []tarCase{sym("abs", "/etc")}, 0, errAbsoluteTarget},
		{"plain escape", []tarCase{sym("sub/up", "../..")}, 0, errTargetLeaves},
	} {
		t.Run(tc.what, func(t *testing.T) {
			errs, got := emit(t, TarOptions{}, append(tc.entries, tfile("after")))
			for i, err := range errs {
				switch {
				case i == tc.refused && (!errors.Is(err, ErrInsecurePath) || !errors.Is(err, tc.reason)):
					t.Errorf("entry %d (%s): %v, want a refusal for %q", i, tc.entries[i].name, err, tc.reason)
				case i != tc.refused && err != nil:
					t.Errorf("entry %d: %v", i, err)
				}
			}
			if _, ok := got["after"]; !ok {
				t.Error("the entry after the refusal is not in the stream")
			}
			if name := strings.TrimSuffix(tc.entries[tc.refused].name, "/"); got[name] != nil && len(tc.entries) > 1 && !strings.HasPrefix(tc.what, "d -> sub then a") {
				t.Errorf("refused %q is in the stream", name)
			}
		})
	}
}

// TestTarLinksInside: symlink chains that stay inside are emitted.
func TestTarLinksInside(t *testing.T) {
	errs, got := emit(t, TarOptions{}, []tarCase{
		{name: "usr/lib", typ: archive.TypeDir},
		sym("lib", "usr/lib"),
		sym("usr/lib/self", "."),
		sym("up", "lib/.."),           // lib resolves to usr/lib: its parent is usr
		sym("usr/bin/x", "../../lib"), // back to the root, then lib
		sym("a", "b"), sym("b", "a"),  // a loop stays inside
		tfile("usr/lib/libc.so"),
		{name: "hard", link: "usr/lib/libc.so", typ: archive.TypeHardlink},
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("entry %d: %v", i, err)
		}
	}
	for _, n := range []string{"lib", "usr/lib/self", "up", "usr/bin/x", "a", "b", "usr/lib/libc.so", "hard"} {
		if got[n] == nil {
			t.Errorf("%s not in the stream", n)
		}
	}
}

func TestTarSetID(t *testing.T) {
	entries := []tarCase{{name: "suid", typ: archive.TypeFile, mode: 0o755 | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky}}
	_, got := emit(t, TarOptions{}, entries)
	if m := got["suid"].Mode; m != 0o1755 {
		t.Errorf("mode %o, want 1755 (setuid and setgid dropped)", m)
	}
	_, got = emit(t, TarOptions{KeepSetID: true}, entries)
	if m := got["suid"].Mode; m != 0o7755 {
		t.Errorf("mode %o with KeepSetID, want 7755", m)
	}
}

// TestTarRoot: the root itself is no entry of the stream; a file or link
// in its place is refused.
func TestTarRoot(t *testing.T) {
	errs, got := emit(t, TarOptions{}, []tarCase{{name: "./", typ: archive.TypeDir}, tfile("."), sym("./", "x")})
	if errs[0] != nil || !errors.Is(errs[1], ErrInsecurePath) || !errors.Is(errs[2], ErrInsecurePath) {
		t.Errorf("errors %v", errs)
	}
	if len(got) != 0 {
		t.Errorf("stream holds %v", got)
	}
}
