package zip

import (
	"encoding/binary"
	"hash/crc32"
	"io/fs"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

func TestDecodeName(t *testing.T) {
	cp := []byte{0x99, 'l', 'f', 0x84, 's', 's', 'e', 'r'}
	unicode := "Ölfässer"
	for _, tc := range []struct {
		raw     []byte
		flags   uint16
		unicode string
		want    string
	}{
		{[]byte("plain.txt"), 0, "", "plain.txt"},
		{cp, 0, "", "Ölfässer"},                        // CP437
		{[]byte("Ölfässer"), flagUTF8, "", "Ölfässer"}, // flagged UTF-8
		{[]byte("Ölfässer"), 0, "", "Ölfässer"},        // valid UTF-8 without the flag
		{cp, 0, unicode, unicode},                      // Info-ZIP Unicode path
		{[]byte{0xb0, 0xff}, 0, "", "░\u00a0"},
	} {
		if got := decodeName(tc.raw, tc.flags, tc.unicode); got != tc.want {
			t.Errorf("decodeName(%q, %#x, %q) = %q, want %q", tc.raw, tc.flags, tc.unicode, got, tc.want)
		}
	}
}

// extra builds an extra field block from tag/data pairs.
func extra(fields ...any) []byte {
	var b []byte
	for i := 0; i < len(fields); i += 2 {
		data := fields[i+1].([]byte)
		b = binary.LittleEndian.AppendUint16(b, uint16(fields[i].(int)))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(data)))
		b = append(b, data...)
	}
	return b
}

func TestParseExtra(t *testing.T) {
	raw := []byte("name")
	mtime := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	// NTFS: reserved, attribute 1 of 24 bytes: mtime, atime, ctime.
	ntfs := make([]byte, 4+4+24)
	binary.LittleEndian.PutUint16(ntfs[4:], 1)
	binary.LittleEndian.PutUint16(ntfs[6:], 24)
	ticks := uint64(mtime.Unix())*1e7 + 116444736000000000 + 1234567
	binary.LittleEndian.PutUint64(ntfs[8:], ticks)
	binary.LittleEndian.PutUint64(ntfs[16:], ticks)
	ext := []byte{3, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(ext[1:], uint32(mtime.Unix()))
	binary.LittleEndian.PutUint32(ext[5:], uint32(mtime.Unix()+60))
	unicode := append([]byte{1}, binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(raw))...)
	unicode = append(unicode, "ñame"...)
	zip64 := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 1<<33), 1<<32)
	aes := []byte{2, 0, 'A', 'E', 3, 8, 0}

	h := &header{usize: 0xFFFFFFFF, csize: 0xFFFFFFFF}
	nu, nc, no, nd := true, true, false, false
	var off uint64
	u := h.parseExtra(extra(extZip64, zip64, extTime, ext, extUnicode, unicode, extWinZipAES, aes), false, &nu, &nc, &no, &nd, &off, raw)
	if h.usize != 1<<33 || h.csize != 1<<32 || !h.zip64 || nu || nc {
		t.Errorf("zip64: %d %d", h.usize, h.csize)
	}
	if !h.modTime.Equal(mtime) || !h.accessTime.Equal(mtime.Add(time.Minute)) {
		t.Errorf("extended time: %v %v", h.modTime, h.accessTime)
	}
	if u != "ñame" {
		t.Errorf("unicode path %q", u)
	}
	if h.aesVersion != 2 || h.aesStrength != 3 || h.aesMethod != methodDeflate {
		t.Errorf("aes: %+v", h)
	}

	h = &header{}
	h.parseExtra(extra(extNTFS, ntfs, extTime, ext), true, new(bool), new(bool), new(bool), new(bool), &off, raw)
	if want := mtime.Add(123456700); !h.modTime.Equal(want) {
		t.Errorf("NTFS time %v, want %v (NTFS wins over the extended timestamp)", h.modTime, want)
	}

	// A bad Unicode path (CRC of another name) is ignored.
	bad := append([]byte{1, 0, 0, 0, 0}, "x"...)
	if u := (&header{}).parseExtra(extra(extUnicode, bad), true, new(bool), new(bool), new(bool), new(bool), &off, raw); u != "" {
		t.Errorf("stale unicode path used: %q", u)
	}
	// DOS time fallback, in local time.
	h = &header{dosDate: 41<<9 | 3<<5 | 4, dosTime: 5<<11 | 6<<5 | 3}
	h.parseExtra(nil, true, new(bool), new(bool), new(bool), new(bool), &off, raw)
	if want := time.Date(2021, 3, 4, 5, 6, 6, 0, time.Local); !h.modTime.Equal(want) {
		t.Errorf("DOS time %v, want %v", h.modTime, want)
	}
}

func TestTypeAndMode(t *testing.T) {
	for _, tc := range []struct {
		creator uint16
		attr    uint32
		name    string
		typ     archive.Type
		mode    fs.FileMode
	}{
		{hostUnix << 8, 0o100644 << 16, "f", archive.TypeFile, 0o644},
		{hostUnix << 8, 0o104755 << 16, "f", archive.TypeFile, 0o755 | fs.ModeSetuid},
		{hostUnix << 8, 0o041777 << 16, "d/", archive.TypeDir, 0o777 | fs.ModeSticky},
		{hostUnix << 8, 0o120777 << 16, "l", archive.TypeSymlink, 0o777},
		{hostUnix << 8, 0o010644 << 16, "fifo", archive.TypeOther, 0o644},
		{hostDOS << 8, dosDir, "d", archive.TypeDir, 0},
		{hostDOS << 8, dosRO, "f", archive.TypeFile, 0o444},
		{hostNTFS << 8, 0, "d/", archive.TypeDir, 0},
	} {
		h := &header{creator: tc.creator, extAttr: tc.attr, name: tc.name}
		typ, mode := h.typeAndMode()
		if typ != tc.typ || mode != tc.mode {
			t.Errorf("%#x %o %q: %v %v, want %v %v", tc.creator, tc.attr, tc.name, typ, mode, tc.typ, tc.mode)
		}
	}
}
