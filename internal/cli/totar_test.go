package cli

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/extract"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestToTarChains feeds --to-tar's stream of hostile symlink
// chains to GNU tar and to a careless reader (GNU tar defends itself by
// delaying symlinks; not every reader does), and checks the disk:
// nothing is written outside the destination, the refused entries are
// named on stderr (exit 3), the harmless ones arrive.
func TestToTarChains(t *testing.T) {
	testutil.StartsProcess(t)
	gnutar, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("no tar")
	}
	for _, tc := range []struct {
		what    string
		entries []tarEntry
	}{
		{"a -> . then a/b -> ..", []tarEntry{
			{name: "a", typ: tar.TypeSymlink, link: "."},
			{name: "a/b", typ: tar.TypeSymlink, link: ".."},
			{name: "a/b/escaped.txt", body: "pwned"},
		}},
		{"x/y -> .. then c -> x/y/..", []tarEntry{
			{name: "x/", typ: tar.TypeDir, mode: 0o755},
			{name: "x/y", typ: tar.TypeSymlink, link: ".."},
			{name: "c", typ: tar.TypeSymlink, link: "x/y/.."},
			{name: "c/escaped.txt", body: "pwned"},
		}},
		{"a -> . then a/a/a/b -> ../../..", []tarEntry{
			{name: "a", typ: tar.TypeSymlink, link: "."},
			{name: "a/a/a/b", typ: tar.TypeSymlink, link: "../../.."},
			{name: "a/a/a/b/escaped.txt", body: "pwned"},
		}},
		{"directory replaced by a symlink", []tarEntry{
			{name: "d/", typ: tar.TypeDir, mode: 0o755},
			{name: "d", typ: tar.TypeSymlink, link: "d2"},
			{name: "d2", typ: tar.TypeSymlink, link: ".."},
			{name: "d/escaped.txt", body: "pwned"},
		}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			dir := t.TempDir()
			entries := append(tc.entries, tarEntry{name: "kept.txt", body: "kept"})
			arch := write(t, dir, "evil.tar", makeTar(t, entries))
			code, stream, errOut, errs := runErrs(t, nil, "x", "--to-tar", arch)
			if code != ExitCorrupt || !reported(errs, extract.ErrInsecurePath) {
				t.Errorf("exit %d: %s", code, errOut)
			}
			for _, reader := range []string{"gnutar", "naive"} {
				dest := filepath.Join(dir, reader, "dest")
				if err := os.MkdirAll(dest, 0o755); err != nil {
					t.Fatal(err)
				}
				var out []byte
				if reader == "gnutar" {
					// The stream ends early (no end marker) when an entry
					// failed; GNU tar still extracts what it holds.
					cmd := exec.Command(gnutar, "-x", "-C", dest)
					cmd.Stdin = bytes.NewReader([]byte(stream))
					out, _ = cmd.CombinedOutput()
				} else {
					naiveUntar(dest, stream)
				}
				// WalkDir follows no symlink: a file found outside dest is
				// really there.
				filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
					if err == nil && d.Name() == "escaped.txt" && !strings.HasPrefix(p, filepath.Join(dir, "gnutar", "dest")+"/") &&
						!strings.HasPrefix(p, filepath.Join(dir, "naive", "dest")+"/") {
						t.Errorf("%s wrote outside the destination: %s", reader, p)
					}
					return nil
				})
				if b, err := os.ReadFile(filepath.Join(dest, "kept.txt")); err != nil || string(b) != "kept" {
					t.Errorf("%s: kept.txt: %q, %v (%s)", reader, b, err, out)
				}
			}
		})
	}
}

// naiveUntar extracts a tar stream as a careless reader would: names
// joined to dest, symlinks created as stored, files written through
// whatever the path resolves to. Safe only when the stream is.
func naiveUntar(dest, stream string) {
	tr := tar.NewReader(strings.NewReader(stream))
	for {
		h, err := tr.Next()
		if err != nil {
			return
		}
		p := filepath.Join(dest, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			os.MkdirAll(p, 0o755)
		case tar.TypeSymlink:
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.Symlink(h.Linkname, p)
		case tar.TypeReg:
			os.MkdirAll(filepath.Dir(p), 0o755)
			body, _ := io.ReadAll(tr)
			os.WriteFile(p, body, 0o644)
		}
	}
}
