package archive

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestDetect(t *testing.T) {
	tarHdr := make([]byte, 512)
	copy(tarHdr, "file.txt")
	copy(tarHdr[100:], "0000644\x00")
	copy(tarHdr[124:], "00000000000\x00")
	copy(tarHdr[257:], "ustar\x0000")
	sum := 0
	for i, c := range tarHdr {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int(c)
	}
	copy(tarHdr[148:], []byte(octal(sum)))
	cases := []struct {
		name string
		head []byte
		file string
		want Format
	}{
		{"xz", []byte{0xFD, '7', 'z', 'X', 'Z', 0, 0, 4}, "", XZ},
		{"7z", []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4}, "", SevenZip},
		{"rar5", []byte("Rar!\x1a\x07\x01\x00xx"), "", RAR5},
		{"rar4", []byte("Rar!\x1a\x07\x00xx"), "", RAR4},
		{"rar sfx", append(bytes.Repeat([]byte{0x90}, 5000), "Rar!\x1a\x07\x01\x00"...), "", RAR5},
		{"lzip", []byte("LZIP\x01\x0c"), "", Lzip},
		{"zip", []byte("PK\x03\x04\x14\x00"), "", Zip},
		{"empty zip", []byte("PK\x05\x06" + string(make([]byte, 18))), "", Zip},
		{"gzip", []byte{0x1f, 0x8b, 8, 0}, "", Gzip},
		{"bzip2", []byte("BZh91AY&SY"), "", Bzip2},
		{"bzip2 empty", []byte("BZh9\x17\x72\x45\x38\x50\x90\x00\x00\x00\x00"), "", Bzip2},
		{"not bzip2", []byte("BZh0xxxxxxxx"), "", Unknown},
		{"zstd", []byte{0x28, 0xB5, 0x2F, 0xFD, 0}, "", Zstd},
		{"zstd skippable", []byte{0x50, 0x2A, 0x4D, 0x18, 1, 0, 0, 0, 9, 0x28, 0xB5, 0x2F, 0xFD, 0}, "", Zstd},
		{"lz4", []byte{0x04, 0x22, 0x4D, 0x18, 0x64}, "", LZ4},
		{"lz4 legacy", []byte{0x02, 0x21, 0x4C, 0x18}, "", LZ4},
		{"lz4 skippable", []byte{0x50, 0x2A, 0x4D, 0x18, 1, 0, 0, 0, 9, 0x04, 0x22, 0x4D, 0x18, 0x64}, "", LZ4},
		// Skippable-frame lengths near and past the largest 32-bit int, in a
		// 16-byte file: 8+n overflowed int on 386 and arm and sliced out of range.
		{"skippable 7FFFFFF8", skippable16(0x7FFFFFF8), "", Zstd},
		{"skippable 7FFFFFFF", skippable16(0x7FFFFFFF), "", Zstd},
		{"skippable FFFFFFF8", skippable16(0xFFFFFFF8), "", Zstd},
		{"skippable FFFFFFFF", skippable16(0xFFFFFFFF), "a.lz4", LZ4},
		{"skippable past the head", skippable16(8), "", Zstd},
		{"lzma", []byte{0x5D, 0, 0, 0x80, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0}, "", LZMA},
		{"lzma odd dict by name", []byte{0x5D, 1, 2, 3, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0}, "a.lzma", LZMA},
		{"tar", tarHdr, "", Tar},
		{"empty tar", make([]byte, 1024), "", Tar},
		{"brotli by name", []byte{0x1b, 0x03}, "x.br", Brotli},
		{"text", []byte("hello world, this is text"), "x.gz", Unknown},
	}
	for _, c := range cases {
		if got := Detect(c.head, nil, c.file); got != c.want {
			t.Errorf("%s: Detect = %q, want %q", c.name, got, c.want)
		}
		checkTailMatters(t, c.head, c.file)
	}
	// A zip with a prefix is found by its end record in the tail.
	if got := Detect([]byte("MZ stub"), zipEndTail, "x.exe"); got != Zip {
		t.Errorf("sfx zip: %q", got)
	}
	// Behind a stub with a 7z signature further in, the end record wins,
	// so a 7z found without the tail is no final answer.
	stub7z := append([]byte("MZ stub"), magic7z...)
	checkTailMatters(t, stub7z, "x.exe")
	if !TailMatters(Detect(stub7z, nil, "x.exe")) {
		t.Error("7z behind a stub: TailMatters = false")
	}
}

// zipEndTail is the end of a file holding a zip's end record.
var zipEndTail = append([]byte("junk"), "PK\x05\x06"+string(make([]byte, 18))...)

// checkTailMatters fails t if a tail with a zip's end record changes what
// Detect names head although TailMatters says it cannot.
func checkTailMatters(t *testing.T, head []byte, name string) {
	t.Helper()
	f := Detect(head, nil, name)
	if g := Detect(head, zipEndTail, name); g != f && !TailMatters(f) {
		t.Errorf("%q: Detect = %q without the tail, %q with it, but TailMatters(%q) = false", head[:min(len(head), 16)], f, g, f)
	}
}

// skippable16 is a 16-byte file: a skippable frame declaring n bytes of
// content, and 8 bytes of it.
func skippable16(n uint32) []byte {
	b := []byte{0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}
	binary.LittleEndian.PutUint32(b[4:], n)
	return b
}

func octal(n int) string {
	s := ""
	for i := 0; i < 6; i++ {
		s = string(rune('0'+n%8)) + s
		n /= 8
	}
	return s + "\x00 "
}

func TestStreamEntryName(t *testing.T) {
	for _, c := range []struct {
		path string
		f    Format
		want string
	}{
		{"a/b.txt.gz", Gzip, "b.txt"}, {"x.tgz", Gzip, "x.tar"}, {"x.TXZ", XZ, "x.tar"}, {"y.zst", Zstd, "y"},
		{"noext", Gzip, "noext.out"}, {"-", XZ, "stdin.out"}, {".gz", Gzip, ".gz.out"}, {"a.tar.lz", Lzip, "a.tar"},
	} {
		if got := StreamEntryName(c.path, c.f); got != c.want {
			t.Errorf("StreamEntryName(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte("Rar!\x1a\x07\x01\x00"), "a.rar")
	f.Add([]byte{0x50, 0x2A, 0x4D, 0x18, 0xff, 0xff, 0xff, 0xff}, "")
	f.Add(skippable16(0x7FFFFFF8), "")
	f.Add(make([]byte, 600), "x.tar")
	f.Fuzz(func(t *testing.T, head []byte, name string) {
		Detect(head, head, name)
		checkTailMatters(t, head, name)
		StreamEntryName(name, Gzip)
	})
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"a.tar.gz": "a", "dir/b.part1.rar": "b", "c.7z.001": "c",
		"d.zip": "d", "-": "stdin", "e.particle.zip": "e.particle", "f": "f", ".tar": ".tar",
		"g.tgz": "g", "h.tar.zst": "h", "i.TXZ": "i", "j.PART01.RAR": "j", "k.tar.lz4": "k",
		"l.gz": "l", ".part1.rar": "archive", "m.part.rar": "m.part"} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}
