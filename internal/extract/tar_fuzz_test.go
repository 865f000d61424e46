package extract

import (
	gotar "archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// FuzzTarLinks builds entries (files, directories, symlinks over a small
// alphabet of names and targets) from the input, passes them through a Tar
// sink, and extracts the stream as a careless reader would (following
// every symlink): nothing may be created outside the destination, and no
// symlink in it may resolve outside.
func FuzzTarLinks(f *testing.F) {
	f.Add([]byte{0x20, 0x00, 0x21, 0x31})
	f.Add([]byte("\x21\x05\x22\x19\x40\x00"))
	f.Add([]byte("symlink chains: a -> . then a/b -> .."))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries := fuzzEntries(data)
		if len(entries) == 0 {
			return
		}
		var buf bytes.Buffer
		sink := NewTar(&buf, TarOptions{})
		for _, e := range entries {
			sink.Put(e, strings.NewReader("x"))
		}
		sink.Close()
		dir := t.TempDir()
		dest := filepath.Join(dir, "root", "dest")
		if err := os.MkdirAll(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		careless(dest, buf.Bytes())
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || p == dir || p == filepath.Join(dir, "root") || p == dest {
				return nil
			}
			if !strings.HasPrefix(p, dest+string(filepath.Separator)) {
				t.Fatalf("created outside the destination: %s (entries %v)", p, describeEntries(entries))
			}
			if d.Type()&os.ModeSymlink != 0 {
				if real, err := filepath.EvalSymlinks(p); err == nil {
					if root, _ := filepath.EvalSymlinks(dest); real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
						t.Fatalf("symlink %s resolves outside, to %s (entries %v)", p, real, describeEntries(entries))
					}
				}
			}
			return nil
		})
	})
}

// fuzzEntries reads entries from data, two bytes each: the first picks
// the type and a path of up to three components from {a, b, c}, the
// second a target of up to four components from {.., ., a, b}.
func fuzzEntries(data []byte) []*archive.Entry {
	var out []*archive.Entry
	comps := []string{"a", "b", "c"}
	targets := []string{"..", ".", "a", "b"}
	for i := 0; i+1 < len(data) && len(out) < 8; i += 2 {
		x, y := data[i], data[i+1]
		depth := 1 + int(x>>2&3)%3
		var name []string
		for k := range depth {
			name = append(name, comps[int(x>>(4+k))%3])
		}
		e := &archive.Entry{Name: strings.Join(name, "/"), Size: 1, Mode: 0o644}
		switch x & 3 {
		case 0:
			e.Type = archive.TypeFile
		case 1:
			e.Type = archive.TypeDir
		default:
			e.Type = archive.TypeSymlink
			var tg []string
			for k := range 1 + int(y&3) {
				tg = append(tg, targets[int(y>>(2+2*k))&3])
			}
			e.Linkname = strings.Join(tg, "/")
		}
		out = append(out, e)
	}
	return out
}

func describeEntries(es []*archive.Entry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.Type.String() + " " + e.Name)
		if e.Linkname != "" {
			b.WriteString(" -> " + e.Linkname)
		}
		b.WriteString("; ")
	}
	return b.String()
}

// careless extracts a tar stream joining names to dest and following
// whatever symlinks the paths meet.
func careless(dest string, stream []byte) {
	tr := gotar.NewReader(bytes.NewReader(stream))
	for {
		h, err := tr.Next()
		if err != nil {
			return
		}
		p := filepath.Join(dest, h.Name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		switch h.Typeflag {
		case gotar.TypeDir:
			os.MkdirAll(p, 0o755)
		case gotar.TypeSymlink:
			os.Symlink(h.Linkname, p)
		case gotar.TypeReg:
			body, _ := io.ReadAll(tr)
			os.WriteFile(p, body, 0o644)
		}
	}
}
