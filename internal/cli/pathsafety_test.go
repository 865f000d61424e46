package cli

import (
	"archive/tar"
	stdzip "archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vector is one hostile entry: its name, what it is, and the message its
// refusal must carry.
type vector struct {
	name, link string
	typ        byte // tar type flag; for zip, '2' marks a symlink
	body       string
	msg        string
}

var hostile = []vector{
	{name: "../up.txt", body: "x", msg: `../up.txt: insecure path: ".." in path`},
	{name: "/abs.txt", body: "x", msg: "insecure path: absolute path"},
	{name: `..\win.txt`, body: "x", msg: "backslash"},
	{name: "C:/drive.txt", body: "x", msg: "drive letter"},
	{name: "nul\x00name.txt", body: "x", msg: "NUL byte"},
	{name: strings.Repeat("n", 300) + ".txt", body: "x", msg: "longer than 255"},
	{name: "rootlink", link: "/", typ: tar.TypeSymlink, msg: "symlink to absolute path"},
	{name: "uplink", link: "../outside", typ: tar.TypeSymlink, msg: "leaves the destination"},
	{name: "uplink/through.txt", body: "x", msg: ""}, // refused or written inside, never outside
}

// archiveWith builds a tar or zip holding the hostile vectors and a safe file.
func archiveWith(t *testing.T, format string) []byte {
	var buf bytes.Buffer
	switch format {
	case "tar":
		tw := tar.NewWriter(&buf)
		for _, v := range append(hostile, vector{name: "safe.txt", body: "safe"}) {
			h := &tar.Header{Name: v.name, Linkname: v.link, Typeflag: v.typ, Mode: 0o644, Size: int64(len(v.body)), Format: tar.FormatPAX}
			if h.Typeflag == 0 {
				h.Typeflag = tar.TypeReg
			}
			tw.WriteHeader(h)
			tw.Write([]byte(v.body))
		}
		tw.Close()
	case "zip":
		zw := stdzip.NewWriter(&buf)
		for _, v := range append(hostile, vector{name: "safe.txt", body: "safe"}) {
			fh := &stdzip.FileHeader{Name: v.name, Method: stdzip.Deflate}
			body := v.body
			if v.typ == tar.TypeSymlink {
				fh.SetMode(fs.ModeSymlink | 0o777)
				body = v.link
			} else {
				fh.SetMode(0o644)
			}
			w, err := zw.CreateHeader(fh)
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(body))
		}
		zw.Close()
	}
	return buf.Bytes()
}

// TestPathSafety extracts every hostile vector, per format: each is refused
// with a clear message (exit 3), the safe entry still extracts, and nothing
// outside the destination is created, changed or read.
func TestPathSafety(t *testing.T) {
	for _, format := range []string{"tar", "zip"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			outside := filepath.Join(dir, "outside")
			os.Mkdir(outside, 0o755)
			os.WriteFile(filepath.Join(outside, "keep"), []byte("k"), 0o600)
			arch := write(t, dir, "hostile."+format, archiveWith(t, format))
			dest := filepath.Join(dir, "dest")
			code, _, stderr := run(t, nil, "x", arch, "-o", dest)
			if code != ExitCorrupt {
				t.Errorf("exit %d, want %d\n%s", code, ExitCorrupt, stderr)
			}
			for _, v := range hostile {
				if format == "tar" && strings.Contains(v.name, "\x00") {
					continue // archive/tar cannot write such a name
				}
				if v.msg != "" && !strings.Contains(stderr, v.msg) {
					t.Errorf("%.30q: no %q in\n%s", v.name, v.msg, stderr)
				}
			}
			if readFile(t, filepath.Join(dest, "safe.txt")) != "safe" {
				t.Error("safe entry not extracted")
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				switch e.Name() {
				case "outside", "dest", "hostile." + format:
				default:
					t.Errorf("created outside the destination: %s", e.Name())
				}
			}
			if list, _ := os.ReadDir(outside); len(list) != 1 {
				t.Errorf("outside changed: %v", list)
			}
			if _, err := os.Lstat("/up.txt"); err == nil && format == "tar" {
				t.Error("/up.txt exists")
			}
		})
	}
}
