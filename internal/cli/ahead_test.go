package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

// TestDecodedAheadChecks: a tar.zst or tar.gz is decoded on a goroutine of
// its own, ahead of the files being written (formats' decodeAhead), and
// its checks still decide every entry: with the one frame's (member's)
// checksum wrong, no file is left (the directories made for them may be); with two frames (members), the first
// good and the second bad, the files of the first are extracted and none
// of the second.
func TestDecodedAheadChecks(t *testing.T) {
	var first, second []tarEntry
	for i := range 300 {
		e := tarEntry{name: fmt.Sprintf("d%d/f%03d.txt", i%7, i), body: strings.Repeat(fmt.Sprint(i), 3000)}
		if i < 150 {
			first = append(first, e)
		} else {
			second = append(second, e)
		}
	}
	one := makeTar(t, append(append([]tarEntry(nil), first...), second...))
	cut := len(makeTar(t, first)) - 1024 // the first part's entries, without the end blocks
	for _, tc := range []struct {
		name, ext string
		pack      func(*testing.T, []byte) []byte
		sumAt     int // the checksum's first byte from the end
	}{
		{"zstd", "tar.zst", zst, 4},
		{"gzip", "tar.gz", gz, 8},
	} {
		dir := t.TempDir()
		bad := tc.pack(t, one)
		bad[len(bad)-tc.sumAt] ^= 1
		out := filepath.Join(dir, "out1")
		code, _, stderr := run(t, nil, "x", write(t, dir, "bad."+tc.ext, bad), "-o", out)
		if code != ExitCorrupt {
			t.Errorf("%s, one frame: exit %d\n%s", tc.name, code, stderr)
		}
		leftovers(t, out)
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				t.Errorf("%s, one frame: left behind: %s", tc.name, p)
			}
			return nil
		})

		tail := tc.pack(t, one[cut:])
		tail[len(tail)-tc.sumAt] ^= 1
		two := append(tc.pack(t, one[:cut]), tail...)
		out = filepath.Join(dir, "out2")
		code, _, stderr = run(t, nil, "x", write(t, dir, "half."+tc.ext, two), "-o", out)
		if code != ExitCorrupt {
			t.Errorf("%s, two frames: exit %d\n%s", tc.name, code, stderr)
		}
		leftovers(t, out)
		for _, e := range first {
			if got, err := os.ReadFile(filepath.Join(out, e.name)); err != nil || string(got) != e.body {
				t.Errorf("%s, two frames: %s: %v", tc.name, e.name, err)
				break
			}
		}
		for _, e := range second {
			if _, err := os.Lstat(filepath.Join(out, e.name)); err == nil {
				t.Errorf("%s, two frames: %s extracted from the bad frame", tc.name, e.name)
				break
			}
		}
	}
}

// TestDecodedAheadChecksXZLZ4: the same for a tar.xz, a tar.lz4, a tar.lz
// and a tar.bz2 (also decoded ahead; lz4, lzip and bzip2 where the tools
// are), a byte of the compressed data changed halfway: no file
// of that stream is left, and those of a good stream before it are.
func TestDecodedAheadChecksXZLZ4(t *testing.T) {
	var first, second []tarEntry
	for i := range 200 {
		e := tarEntry{name: fmt.Sprintf("d%d/f%03d.txt", i%5, i), body: strings.Repeat(fmt.Sprintf("%d-", i*7919), 700)}
		if i < 100 {
			first = append(first, e)
		} else {
			second = append(second, e)
		}
	}
	one := makeTar(t, append(append([]tarEntry(nil), first...), second...))
	cut := len(makeTar(t, first)) - 1024
	packs := map[string]func(*testing.T, []byte) []byte{"tar.xz": xzPack}
	for ext, tool := range map[string]string{"tar.lz4": "lz4", "tar.lz": "lzip", "tar.bz2": "bzip2"} {
		if _, err := exec.LookPath(tool); err == nil {
			packs[ext] = toolPack(tool)
		}
	}
	for ext, pack := range packs {
		dir := t.TempDir()
		bad := pack(t, one)
		bad[len(bad)/2] ^= 0x55
		out := filepath.Join(dir, "out1")
		if code, _, stderr := run(t, nil, "x", write(t, dir, "bad."+ext, bad), "-o", out); code != ExitCorrupt {
			t.Errorf("%s, one stream: exit %d\n%s", ext, code, stderr)
		}
		leftovers(t, out)
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				t.Errorf("%s, one stream: left behind: %s", ext, p)
			}
			return nil
		})
		tail := pack(t, one[cut:])
		tail[len(tail)/2] ^= 0x55
		out = filepath.Join(dir, "out2")
		if code, _, stderr := run(t, nil, "x", write(t, dir, "half."+ext, append(pack(t, one[:cut]), tail...)), "-o", out); code != ExitCorrupt {
			t.Errorf("%s, two streams: exit %d\n%s", ext, code, stderr)
		}
		leftovers(t, out)
		for _, e := range first {
			if got, err := os.ReadFile(filepath.Join(out, e.name)); err != nil || string(got) != e.body {
				t.Errorf("%s, two streams: %s: %v", ext, e.name, err)
				break
			}
		}
		for _, e := range second {
			if _, err := os.Lstat(filepath.Join(out, e.name)); err == nil {
				t.Errorf("%s, two streams: %s extracted from the bad stream", ext, e.name)
				break
			}
		}
	}
}

func xzPack(t *testing.T, data []byte) []byte {
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// toolPack compresses with lz4, lzip or bzip2 to standard output.
func toolPack(tool string) func(*testing.T, []byte) []byte {
	return func(t *testing.T, data []byte) []byte {
		cmd := exec.Command(tool, "-q", "-c")
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}
