//go:build unix

package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A zip, an ISO image or a squashfs read from a pipe is spooled and read as
// the file is: the tests below run crafted archives from a file and from a
// pipe (an os.Pipe, which cannot seek) and want the same tree on disk, with
// modes, the same exit code and the same messages. (The modes expected
// hold under any umask that keeps the owner's bits and clears no more
// than group and other write, 022 or 002.)

// zent is one entry of a crafted zip.
type zent struct {
	name       string // in the local header
	central    string // in the central record ("": name)
	body       string // data (a symlink's target)
	mode       uint32 // Unix st_mode in the central record (0: 0o100644)
	localOnly  bool   // no central record
	descriptor bool   // sizes and CRC in a data descriptor (flag bit 3)
	zip64      bool   // sizes and offset in zip64 extra fields
	badCRC     bool   // a CRC that does not match the data
}

// craftZip writes stored entries made on Unix byte by byte (the standard
// library's writer would not write the hostile ones); withEnd false leaves
// out the central directory and its end record.
func craftZip(ents []zent, withEnd bool) []byte {
	var out, cd []byte
	var listed uint16
	for _, e := range ents {
		off := len(out)
		data := []byte(e.body)
		crc := crc32.ChecksumIEEE(data)
		if e.badCRC {
			crc ^= 1
		}
		var flags uint16
		if e.descriptor {
			flags |= 8
		}
		version := uint16(20)
		size32 := uint32(len(data))
		var localExtra, centralExtra []byte
		if e.zip64 {
			version, size32 = 45, 0xFFFFFFFF
			localExtra = binary.LittleEndian.AppendUint16(nil, 1)
			localExtra = binary.LittleEndian.AppendUint16(localExtra, 16)
			localExtra = binary.LittleEndian.AppendUint64(localExtra, uint64(len(data)))
			localExtra = binary.LittleEndian.AppendUint64(localExtra, uint64(len(data)))
			centralExtra = binary.LittleEndian.AppendUint16(nil, 1)
			centralExtra = binary.LittleEndian.AppendUint16(centralExtra, 24)
			centralExtra = binary.LittleEndian.AppendUint64(centralExtra, uint64(len(data)))
			centralExtra = binary.LittleEndian.AppendUint64(centralExtra, uint64(len(data)))
			centralExtra = binary.LittleEndian.AppendUint64(centralExtra, uint64(off))
		}
		localCRC, localSize := crc, size32
		if e.descriptor {
			localCRC, localSize = 0, 0
			if e.zip64 {
				localSize = 0xFFFFFFFF
			}
		}
		b := binary.LittleEndian.AppendUint32(out, 0x04034b50)
		b = binary.LittleEndian.AppendUint16(b, version)
		b = binary.LittleEndian.AppendUint16(b, flags)
		b = append(b, 0, 0, 0, 0)                     // stored, time
		b = binary.LittleEndian.AppendUint16(b, 0x52) // date: 1980-02-18
		b = binary.LittleEndian.AppendUint32(b, localCRC)
		b = binary.LittleEndian.AppendUint32(b, localSize)
		b = binary.LittleEndian.AppendUint32(b, localSize)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(e.name)))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(localExtra)))
		b = append(b, e.name...)
		b = append(b, localExtra...)
		b = append(b, data...)
		if e.descriptor {
			b = binary.LittleEndian.AppendUint32(b, 0x08074b50)
			b = binary.LittleEndian.AppendUint32(b, crc)
			if e.zip64 {
				b = binary.LittleEndian.AppendUint64(b, uint64(len(data)))
				b = binary.LittleEndian.AppendUint64(b, uint64(len(data)))
			} else {
				b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
				b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
			}
		}
		out = b
		if e.localOnly {
			continue
		}
		listed++
		name, mode := e.central, e.mode
		if name == "" {
			name = e.name
		}
		if mode == 0 {
			mode = 0o100644
		}
		offset := uint32(off)
		if e.zip64 {
			offset = 0xFFFFFFFF
		}
		c := binary.LittleEndian.AppendUint32(cd, 0x02014b50)
		c = binary.LittleEndian.AppendUint16(c, 3<<8|version) // made by Unix
		c = binary.LittleEndian.AppendUint16(c, version)
		c = binary.LittleEndian.AppendUint16(c, flags)
		c = append(c, 0, 0, 0, 0)
		c = binary.LittleEndian.AppendUint16(c, 0x52)
		c = binary.LittleEndian.AppendUint32(c, crc)
		c = binary.LittleEndian.AppendUint32(c, size32)
		c = binary.LittleEndian.AppendUint32(c, size32)
		c = binary.LittleEndian.AppendUint16(c, uint16(len(name)))
		c = binary.LittleEndian.AppendUint16(c, uint16(len(centralExtra)))
		c = append(c, 0, 0, 0, 0, 0, 0) // comment, disk, internal attributes
		c = binary.LittleEndian.AppendUint32(c, mode<<16)
		c = binary.LittleEndian.AppendUint32(c, offset)
		c = append(c, name...)
		cd = append(c, centralExtra...)
	}
	if !withEnd {
		return out
	}
	start := len(out)
	out = append(out, cd...)
	out = binary.LittleEndian.AppendUint32(out, 0x06054b50)
	out = append(out, 0, 0, 0, 0)
	out = binary.LittleEndian.AppendUint16(out, listed)
	out = binary.LittleEndian.AppendUint16(out, listed)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(cd)))
	out = binary.LittleEndian.AppendUint32(out, uint32(start))
	return append(out, 0, 0)
}

// runPiped runs unpack with arch on standard input through an os.Pipe.
func runPiped(t *testing.T, arch []byte, args ...string) (ExitCode, string, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		w.Write(arch) // fails once the reader is closed, if unpack stops early
		w.Close()
		close(done)
	}()
	code, stdout, stderr := run(t, r, args...)
	r.Close()
	<-done
	return code, stdout, stderr
}

// modeTree describes a tree as treeOf does, with each entry's permission
// bits.
func modeTree(t *testing.T, root string) string {
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		perm := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&b, "%s -> %s\n", rel, target)
		case fi.IsDir():
			fmt.Fprintf(&b, "%s/ %v\n", rel, perm)
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "%s %v %q\n", rel, perm, data)
		default:
			fmt.Fprintf(&b, "%s %v\n", rel, fi.Mode())
		}
		return nil
	})
	return b.String()
}

// sameFromPipe extracts arch from a file and from a pipe into fresh
// directories (with flags) and fails unless both give the same exit code,
// tree and messages. It returns the file's exit code, tree and stderr.
func sameFromPipe(t *testing.T, arch []byte, flags ...string) (ExitCode, string, string) {
	t.Helper()
	dir := t.TempDir()
	p := write(t, dir, "a.zip", arch)
	var codes [2]ExitCode
	var trees, errs [2]string
	for i, src := range []string{p, "-"} {
		dest := filepath.Join(dir, fmt.Sprintf("dest%d", i))
		args := append(append([]string{"x"}, flags...), src, "-o", dest)
		if src == "-" {
			codes[i], _, errs[i] = runPiped(t, arch, args...)
		} else {
			codes[i], _, errs[i] = run(t, nil, args...)
			errs[i] = strings.ReplaceAll(errs[i], p, "-")
		}
		trees[i] = modeTree(t, dest)
	}
	if codes[0] != codes[1] || trees[0] != trees[1] || errs[0] != errs[1] {
		t.Errorf("file: exit %d\n%s%s\npipe: exit %d\n%s%s", codes[0], trees[0], errs[0], codes[1], trees[1], errs[1])
	}
	return codes[0], trees[0], errs[0]
}

func TestZipPipeAsFile(t *testing.T) {
	tests := []struct {
		name     string
		ents     []zent
		noEnd    bool
		code     ExitCode
		want     []string // lines of the tree
		stderr   string   // in the messages ("": none)
		notExist string   // a name that must not be in the tree
	}{
		{name: "symlink", ents: []zent{
			{name: "a.txt", body: "alpha"},
			{name: "l", body: "a.txt", mode: 0o120777},
		}, want: []string{"l -> a.txt", `a.txt -rw-r--r-- "alpha"`}},
		{name: "local only", ents: []zent{
			{name: "a.txt", body: "alpha"},
			{name: "smuggled.txt", body: "hidden", localOnly: true},
		}, want: []string{`a.txt -rw-r--r-- "alpha"`}, notExist: "smuggled"},
		{name: "name mismatch", ents: []zent{
			{name: "evil_local.txt", central: "benign.txt", body: "data"},
		}, code: ExitCorrupt, stderr: `central directory "benign.txt"`, notExist: ".txt"},
		{name: "modes", ents: []zent{
			{name: "x", body: "x", mode: 0o100751},
			{name: "p", body: "p", mode: 0o100600},
			{name: "s", body: "s", mode: 0o104755},
		}, want: []string{`x -rwxr-x--x "x"`, `p -rw------- "p"`, `s -rwxr-xr-x "s"`}},
		{name: "directory", ents: []zent{
			{name: "d/", mode: 0o040700},
			{name: "d/f", body: "f"},
		}, want: []string{"d/ -rwx------", `d/f -rw-r--r-- "f"`}},
		{name: "data descriptor", ents: []zent{
			{name: "a.txt", body: "described", descriptor: true},
			{name: "b.txt", body: "plain"},
		}, want: []string{`a.txt -rw-r--r-- "described"`, `b.txt -rw-r--r-- "plain"`}},
		{name: "zip64", ents: []zent{
			{name: "big.txt", body: "sixty-four", zip64: true},
			{name: "dd64.txt", body: "both", zip64: true, descriptor: true},
		}, want: []string{`big.txt -rw-r--r-- "sixty-four"`, `dd64.txt -rw-r--r-- "both"`}},
		{name: "bad crc", ents: []zent{
			{name: "good.txt", body: "good"},
			{name: "bad.txt", body: "bad", badCRC: true},
		}, code: ExitCorrupt, want: []string{`good.txt -rw-r--r-- "good"`}, stderr: "bad.txt", notExist: "bad.txt"},
		{name: "no central directory", noEnd: true, ents: []zent{
			{name: "a.txt", body: "alpha"},
			{name: "l", body: "a.txt", mode: 0o120777},
		}, want: []string{`a.txt -rw-r--r-- "alpha"`}, stderr: "no end of central directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, tree, stderr := sameFromPipe(t, craftZip(tc.ents, !tc.noEnd))
			if code != tc.code {
				t.Errorf("exit %d, want %d; %s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(tree, w+"\n") {
					t.Errorf("tree lacks %q:\n%s", w, tree)
				}
			}
			if tc.notExist != "" && strings.Contains(tree, tc.notExist) {
				t.Errorf("tree has %q:\n%s", tc.notExist, tree)
			}
			if tc.stderr != "" && !strings.Contains(stderr, tc.stderr) || tc.stderr == "" && stderr != "" {
				t.Errorf("stderr %q, want %q", stderr, tc.stderr)
			}
		})
	}
}

// TestZipPipeVerifyAndList: t and l agree too.
func TestZipPipeVerifyAndList(t *testing.T) {
	arch := craftZip([]zent{
		{name: "a.txt", body: "alpha"},
		{name: "l", body: "a.txt", mode: 0o120777},
		{name: "smuggled.txt", body: "hidden", localOnly: true},
	}, true)
	p := write(t, t.TempDir(), "a.zip", arch)
	for _, cmd := range []string{"t", "l"} {
		fc, fout, ferr := run(t, nil, cmd, p)
		pc, pout, perr := runPiped(t, arch, cmd, "-")
		fout = strings.ReplaceAll(fout, p, "-")
		ferr = strings.ReplaceAll(ferr, p, "-")
		if fc != pc || fout != pout || ferr != perr {
			t.Errorf("%s: file exit %d %q %q, pipe exit %d %q %q", cmd, fc, fout, ferr, pc, pout, perr)
		}
	}
}

// TestPipeSpoolLimit: a spool past --max-size stops with exit 5 naming
// the limit, and nothing is extracted.
func TestPipeSpoolLimit(t *testing.T) {
	arch := craftZip([]zent{{name: "a.txt", body: strings.Repeat("z", 4096)}}, true)
	dest := filepath.Join(t.TempDir(), "dest")
	code, _, stderr := runPiped(t, arch, "x", "--max-size", "1KiB", "-", "-o", dest)
	if code != ExitUnsupported || !strings.Contains(stderr, "--max-size") || !strings.Contains(stderr, "zip from a pipe") {
		t.Errorf("exit %d, stderr %q; want 5 naming --max-size", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dest, "a.txt")); err == nil {
		t.Error("a.txt extracted past the spool limit")
	}
	// The same archive within the limit.
	if code, _, stderr := runPiped(t, arch, "x", "--max-size", "1MiB", "-", "-o", dest); code != ExitOK {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestStdinRedirectReadAsFile: standard input that is a regular file is
// read in place (no spool): a self-extracting zip, whose end record only a
// file's tail shows, is found from it; from the file's offset on.
func TestStdinRedirectReadAsFile(t *testing.T) {
	arch := craftZip([]zent{{name: "a.txt", body: "alpha"}, {name: "l", body: "a.txt", mode: 0o120777}}, true)
	stub := bytes.Repeat([]byte{0x90}, 100<<10)
	// The end record's offset counts from the stub's end; readers accept it.
	p := write(t, t.TempDir(), "sfx.bin", append(stub, arch...))
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dest := filepath.Join(t.TempDir(), "dest")
	code, _, stderr := run(t, f, "x", "-", "-o", dest)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := modeTree(t, dest); !strings.Contains(got, "l -> a.txt") {
		t.Errorf("tree:\n%s", got)
	}
	// From an offset: what is left of the input after it.
	p2 := write(t, t.TempDir(), "skip.bin", append([]byte("HEADER"), arch...))
	f2, err := os.Open(p2)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	f2.Seek(6, 0)
	dest2 := filepath.Join(t.TempDir(), "dest")
	if code, _, stderr := run(t, f2, "x", "-", "-o", dest2); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := modeTree(t, dest2); !strings.Contains(got, "l -> a.txt") {
		t.Errorf("tree:\n%s", got)
	}
}
