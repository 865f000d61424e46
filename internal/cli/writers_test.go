package cli

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unicode/utf16"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// Test-only writers for the formats the standard library cannot write, so
// that path-safety tests can put hostile names and links in them (7zz and
// rar normalise such names; no RAR writer is installed). They store data
// uncompressed and write only what the format specifications require, with
// every CRC right; TestWritersValid checks their output with real tools.

// wentry is one entry to write.
type wentry struct {
	name string
	kind byte   // 0 or 'f': file, 'd': directory, 's': symlink, 'h': hard link, 'c': RAR 5 file copy
	body string // file data
	link string // symlink or hard link target
	mode int64  // permission bits (tar and zip writers); 0: the kind's default
}

// Unix mode of each kind, as 7-Zip and RAR for Unix store it.
func unixMode(kind byte) uint32 {
	switch kind {
	case 'd':
		return 0o040755
	case 's':
		return 0o120777
	}
	return 0o100644
}

// stream is what an entry stores as data: a file's body, a symlink's
// target (7z and RAR 4 keep targets as data), nothing for the rest.
func (e wentry) stream(linkAsData bool) (string, bool) {
	switch e.kind {
	case 0, 'f':
		return e.body, true
	case 's':
		if linkAsData {
			return e.link, true
		}
	}
	return "", false
}

// --- 7z -------------------------------------------------------------------

// num7z appends a 7z variable-length number: the count of leading one bits
// of the first byte says how many little-endian bytes follow.
func num7z(b []byte, v uint64) []byte {
	for n := 0; n < 8; n++ {
		if v < 1<<(7*(n+1)) {
			first := byte(uint(0xFF00)>>n) | byte(v>>(8*n))
			b = append(b, first)
			for i := 0; i < n; i++ {
				b = append(b, byte(v>>(8*i)))
			}
			return b
		}
	}
	b = append(b, 0xFF)
	return binary.LittleEndian.AppendUint64(b, v)
}

// bits7z packs a bit vector, most significant bit first.
func bits7z(v []bool) []byte {
	out := make([]byte, (len(v)+7)/8)
	for i, set := range v {
		if set {
			out[i/8] |= 0x80 >> (i % 8)
		}
	}
	return out
}

// prop7z appends a property: its id, size and data.
func prop7z(b []byte, id byte, data []byte) []byte {
	b = append(b, id)
	b = num7z(b, uint64(len(data)))
	return append(b, data...)
}

// write7z writes a 7z archive: one folder with the Copy coder holding every
// entry that has data, CRCs per entry, names and Unix attributes in a plain
// header. It has no hard links (7z has none).
func write7z(entries []wentry) []byte {
	var pack []byte
	var sizes []uint64
	var crcs []uint32
	empty := make([]bool, len(entries))
	emptyFile := []bool{}
	anyEmpty := false
	var names, attrs []byte
	names = append(names, 0) // not external
	attrs = append(attrs, 1, 0)
	for i, e := range entries {
		data, has := e.stream(true)
		if has && data != "" {
			pack = append(pack, data...)
			sizes = append(sizes, uint64(len(data)))
			crcs = append(crcs, crc32.ChecksumIEEE([]byte(data)))
		} else {
			empty[i], anyEmpty = true, true
			emptyFile = append(emptyFile, e.kind != 'd')
		}
		for _, u := range utf16.Encode([]rune(e.name)) {
			names = binary.LittleEndian.AppendUint16(names, u)
		}
		names = append(names, 0, 0)
		attr := uint32(0x8000) | unixMode(e.kind)<<16
		if e.kind == 'd' {
			attr |= 0x10
		} else {
			attr |= 0x20
		}
		attrs = binary.LittleEndian.AppendUint32(attrs, attr)
	}
	h := []byte{0x01} // Header
	if len(sizes) > 0 {
		h = append(h, 0x04, 0x06, 0, 1, 0x09) // MainStreamsInfo, PackInfo at 0, 1 stream, sizes
		h = num7z(h, uint64(len(pack)))
		h = append(h, 0x00, 0x07, 0x0B, 1, 0, 1, 0x01, 0x00, 0x0C) // UnpackInfo: 1 folder, Copy; unpack sizes
		h = num7z(h, uint64(len(pack)))
		h = append(h, 0x00, 0x08, 0x0D) // SubStreamsInfo: streams per folder
		h = num7z(h, uint64(len(sizes)))
		if len(sizes) > 1 {
			h = append(h, 0x09)
			for _, s := range sizes[:len(sizes)-1] {
				h = num7z(h, s)
			}
		}
		h = append(h, 0x0A, 1) // CRCs, all defined
		for _, c := range crcs {
			h = binary.LittleEndian.AppendUint32(h, c)
		}
		h = append(h, 0x00, 0x00)
	}
	h = append(h, 0x05) // FilesInfo
	h = num7z(h, uint64(len(entries)))
	if anyEmpty {
		h = prop7z(h, 0x0E, bits7z(empty))
		h = prop7z(h, 0x0F, bits7z(emptyFile))
	}
	h = prop7z(h, 0x11, names)
	h = prop7z(h, 0x15, attrs)
	h = append(h, 0x00, 0x00)

	out := []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4, 0, 0, 0, 0}
	out = binary.LittleEndian.AppendUint64(out, uint64(len(pack)))
	out = binary.LittleEndian.AppendUint64(out, uint64(len(h)))
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(h))
	binary.LittleEndian.PutUint32(out[8:], crc32.ChecksumIEEE(out[12:32]))
	out = append(out, pack...)
	return append(out, h...)
}

// --- RAR 5 ----------------------------------------------------------------

func vint5(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// header5 encodes one RAR 5 block: CRC32, size, type, flags, extra area
// size and data size when present, body, extra area.
func header5(typ uint64, body, extra []byte, dataSize int) []byte {
	var flags uint64
	if len(extra) > 0 {
		flags |= 0x01
	}
	if dataSize >= 0 {
		flags |= 0x02
	}
	h := vint5(nil, typ)
	h = vint5(h, flags)
	if len(extra) > 0 {
		h = vint5(h, uint64(len(extra)))
	}
	if dataSize >= 0 {
		h = vint5(h, uint64(dataSize))
	}
	h = append(h, body...)
	h = append(h, extra...)
	sized := vint5(nil, uint64(len(h)))
	sized = append(sized, h...)
	return append(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(sized)), sized...)
}

// writeRAR5 writes a RAR 5 archive of stored entries made on Unix: symlinks
// and hard links as redirection records, data CRC32 per file.
func writeRAR5(entries []wentry) []byte {
	out := []byte("Rar!\x1a\x07\x01\x00")
	out = append(out, header5(1, []byte{0}, nil, -1)...) // main header, no flags
	for _, e := range entries {
		data, has := e.stream(false)
		var fflags uint64
		switch {
		case e.kind == 'd':
			fflags = 0x01
		case has:
			fflags = 0x04 // CRC32 present
		}
		size := len(data)
		if e.kind == 'c' {
			// A copy's record gives its source's size and stores no data.
			for _, src := range entries {
				if src.name == e.link && src.kind == 0 {
					size = len(src.body)
				}
			}
		}
		b := vint5(nil, fflags)
		b = vint5(b, uint64(size))
		b = vint5(b, uint64(unixMode(e.kind)))
		if has {
			b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE([]byte(data)))
		}
		b = vint5(b, 0) // compression info: version 0, stored
		b = vint5(b, 1) // host OS: Unix
		b = vint5(b, uint64(len(e.name)))
		b = append(b, e.name...)
		var extra []byte
		if e.kind == 's' || e.kind == 'h' || e.kind == 'c' {
			redir := uint64(1) // Unix symlink
			switch e.kind {
			case 'h':
				redir = 4 // hard link
			case 'c':
				redir = 5 // file copy
			}
			rec := vint5(nil, 5) // redirection record
			rec = vint5(rec, redir)
			rec = vint5(rec, 0)
			rec = vint5(rec, uint64(len(e.link)))
			rec = append(rec, e.link...)
			extra = vint5(nil, uint64(len(rec)))
			extra = append(extra, rec...)
		}
		// File headers always have a data area, empty when there is no data.
		out = append(out, header5(2, b, extra, len(data))...)
		out = append(out, data...)
	}
	return append(out, header5(5, []byte{0}, nil, -1)...) // end of archive
}

// --- RAR 4 ----------------------------------------------------------------

// block4 finishes a RAR 4 block whose bytes from the type on are b: the
// header CRC is the low 16 bits of their CRC32.
func block4(b []byte) []byte {
	binary.LittleEndian.PutUint16(b[3:], uint16(len(b)+2))
	return append(binary.LittleEndian.AppendUint16(nil, uint16(crc32.ChecksumIEEE(b))), b...)
}

// writeRAR4 writes a RAR 1.5-4.x archive of stored entries made on Unix: a
// symlink is a Unix-host entry of mode S_IFLNK with its target as data. The
// format has no hard links.
func writeRAR4(entries []wentry) []byte {
	out := []byte("Rar!\x1a\x07\x00")
	out = append(out, block4([]byte{0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})...) // archive header
	const dosTime = 0x5A6438C0                                               // 2025-03-04 07:06:00
	for _, e := range entries {
		data, _ := e.stream(true)
		flags := uint16(0x8000)
		if e.kind == 'd' {
			flags |= 0x00E0
		}
		b := []byte{0x74}
		b = binary.LittleEndian.AppendUint16(b, flags)
		b = append(b, 0, 0) // size, set by block4
		b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
		b = append(b, 3) // host OS: Unix
		b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE([]byte(data)))
		b = binary.LittleEndian.AppendUint32(b, dosTime)
		b = append(b, 20, 0x30) // version 2.0, stored
		b = binary.LittleEndian.AppendUint16(b, uint16(len(e.name)))
		b = binary.LittleEndian.AppendUint32(b, unixMode(e.kind))
		b = append(b, e.name...)
		out = append(out, block4(b)...)
		out = append(out, data...)
	}
	return append(out, block4([]byte{0x7B, 0x00, 0x40, 0, 0})...) // end of archive
}

// TestWritersValid checks the test writers against real tools (skipping a
// tool that is missing) and against unpack itself: what they write must be
// a valid archive of exactly the entries given.
func TestWritersValid(t *testing.T) {
	entries := []wentry{
		{name: "a.txt", body: "alpha\n"},
		{name: "d", kind: 'd'},
		{name: "d/b.txt", body: "bravo bravo\n"},
		{name: "d/l", kind: 's', link: "b.txt"},
		{name: "empty.txt"},
	}
	withHard := append(entries[:len(entries):len(entries)], wentry{name: "h", kind: 'h', link: "a.txt"})
	for _, tc := range []struct {
		ext     string
		data    []byte
		tool    []string
		want    []string // in the tool's output
		hasHard bool
	}{
		{"7z", write7z(entries), []string{"7zz", "l", "-slt"},
			[]string{"Path = d/l", "Attributes = A -rw-r--r--", "lrwxrwxrwx", "Path = empty.txt"}, false},
		{"7z", write7z(entries), []string{"7zz", "t"}, []string{"Everything is Ok", "Files: 4", "Folders: 1"}, false},
		{"rar", writeRAR5(withHard), []string{"bsdtar", "-tvf"},
			[]string{"d/l -> b.txt", "h link to a.txt", "d/b.txt", "empty.txt"}, true},
		{"rar", writeRAR5(withHard), []string{"lsar", "-t"}, []string{"0 failed"}, true},
		{"rar", writeRAR4(entries), []string{"bsdtar", "-tvf"}, []string{"lrwxrwxrwx", "d/l -> b.txt", "d/b.txt"}, false},
		{"rar", writeRAR4(entries), []string{"lsar", "-t"}, []string{"0 failed"}, false},
	} {
		dir := t.TempDir()
		arch := write(t, dir, "w."+tc.ext, tc.data)
		if _, err := exec.LookPath(tc.tool[0]); err != nil {
			t.Logf("%s not installed: not checked with it", tc.tool[0])
		} else if testutil.ProcessesOK(t) {
			out, err := exec.Command(tc.tool[0], append(tc.tool[1:], arch)...).CombinedOutput()
			if err != nil {
				t.Errorf("%v: %v\n%s", tc.tool, err, out)
			}
			for _, w := range tc.want {
				if !bytes.Contains(out, []byte(w)) {
					t.Errorf("%v: no %q in\n%s", tc.tool, w, out)
				}
			}
		}
		dest := filepath.Join(dir, "out")
		if code, _, stderr := run(t, nil, "x", arch, "-o", dest); code != ExitOK {
			t.Fatalf("%v: unpack exit %d\n%s", tc.tool, code, stderr)
		}
		for name, want := range map[string]string{"a.txt": "alpha\n", "d/b.txt": "bravo bravo\n", "d/l": "bravo bravo\n", "empty.txt": ""} {
			if got := readFile(t, filepath.Join(dest, name)); got != want {
				t.Errorf("%v: %s = %q", tc.tool, name, got)
			}
		}
		if l, err := os.Readlink(filepath.Join(dest, "d/l")); err != nil || l != "b.txt" {
			t.Errorf("%v: d/l: %q %v", tc.tool, l, err)
		}
		if tc.hasHard {
			a, _ := os.Stat(filepath.Join(dest, "a.txt"))
			h, err := os.Stat(filepath.Join(dest, "h"))
			if err != nil || !os.SameFile(a, h) {
				t.Errorf("%v: h is not a hard link of a.txt: %v", tc.tool, err)
			}
		}
	}
}
