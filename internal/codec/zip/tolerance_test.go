package zip

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// spelledZip builds a one-entry stored archive whose local header and
// central record spell the name each their own way.
func spelledZip(localName string, localFlags uint16, centralName string, centralFlags uint16, data string) []byte {
	var b []byte
	le16 := func(v int) { b = binary.LittleEndian.AppendUint16(b, uint16(v)) }
	le32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	crc := crc32.ChecksumIEEE([]byte(data))
	le32(sigLocal)
	le16(10)
	le16(int(localFlags))
	le16(0)
	le32(0)
	le32(crc)
	le32(uint32(len(data)))
	le32(uint32(len(data)))
	le16(len(localName))
	le16(0)
	b = append(b, localName...)
	b = append(b, data...)
	cd := len(b)
	le32(sigCentral)
	le16(3<<8 | 20)
	le16(10)
	le16(int(centralFlags))
	le16(0)
	le32(0)
	le32(crc)
	le32(uint32(len(data)))
	le32(uint32(len(data)))
	le16(len(centralName))
	le16(0)
	le16(0)
	le16(0)
	le16(0)
	le32(0o100644 << 16)
	le32(0)
	b = append(b, centralName...)
	end := len(b)
	le32(sigEnd)
	le16(0)
	le16(0)
	le16(1)
	le16(1)
	le32(uint32(end - cd))
	le32(uint32(cd))
	le16(0)
	return b
}

// TestNameSpellings compares local and central names after decoding both
// the same way: an encoding difference is no mismatch, a different name is.
func TestNameSpellings(t *testing.T) {
	for _, tc := range []struct {
		desc           string
		local          string
		localFlags     uint16
		central        string
		centralFlags   uint16
		want, mismatch bool
	}{
		{desc: "CP437 local, UTF-8 central", local: "\x81ber.txt", central: "über.txt", centralFlags: flagUTF8, want: true},
		{desc: "UTF-8 local, CP437 central", local: "über.txt", localFlags: flagUTF8, central: "\x81ber.txt", want: true},
		{desc: "different names", local: "evil_local.txt", central: "benign.txt", mismatch: true},
	} {
		r, err := openBytes(spelledZip(tc.local, tc.localFlags, tc.central, tc.centralFlags, "data"), nil)
		if err != nil {
			t.Fatalf("%s: open: %v", tc.desc, err)
		}
		x, err := readAllVia(r, func(r io.Reader) io.Reader { return r })
		switch {
		case tc.mismatch && !errors.Is(err, ErrHeaderMismatch):
			t.Errorf("%s: got %v, want ErrHeaderMismatch", tc.desc, err)
		case tc.want && (err != nil || len(x.files) != 1):
			t.Errorf("%s: got %v, %v; want one file", tc.desc, x.files, err)
		}
	}
}

// TestNoEndRecord reads a seekable zip without an end of central directory
// record by its local headers, with a warning; input that does not start
// with a local header stays refused.
func TestNoEndRecord(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"a.txt", "b.txt"} {
		w, _ := zw.Create(name)
		io.WriteString(w, strings.Repeat(name, 1000))
	}
	zw.Close()
	full := buf.Bytes()
	cd := bytes.Index(full, []byte("PK\x01\x02"))
	cut := full[:cd]

	var warnings []string
	opt := &archive.Options{Warn: func(m string) { warnings = append(warnings, m) }}
	r, err := openBytes(cut, opt)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if _, ok := r.(*StreamReader); !ok {
		t.Fatalf("got %T, want a *StreamReader", r)
	}
	x, err := readAllVia(r, func(r io.Reader) io.Reader { return r })
	if err != nil || len(x.files) != 2 {
		t.Fatalf("got %v, %v; want two files", x.files, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "local headers") {
		t.Errorf("warnings %q", warnings)
	}

	// Cut inside the second entry's data: the first still reads.
	r, err = openBytes(full[:cd-10], opt)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	x, err = readAllVia(r, func(r io.Reader) io.Reader { return r })
	if !errors.Is(err, archive.ErrCorrupt) || len(x.files) != 1 {
		t.Errorf("truncated: got %v, %v; want one file and corrupt", x.files, err)
	}

	// Neither an end record nor a local header: not a zip to read.
	junk := append([]byte("MZ"), cut...)
	if _, err := openBytes(junk[:len(junk)/2], nil); !errors.Is(err, ErrFormat) {
		t.Errorf("no local header at the start: got %v, want ErrFormat", err)
	}
}

// TestEncryptedDirectory reports PKWARE central directory encryption as
// unsupported, never as corrupt or empty.
func TestEncryptedDirectory(t *testing.T) {
	// Masked local header (flag bit 13), the central directory replaced by
	// what an encrypted one looks like: no record signatures.
	b := spelledZip("a.txt", flagMasked|flagStrongEnc|1, "a.txt", flagMasked|flagStrongEnc|1, "data")
	cd := bytes.Index(b, []byte("PK\x01\x02"))
	end := bytes.Index(b, []byte("PK\x05\x06"))
	for i := cd; i < end; i++ {
		b[i] = byte(i * 37)
	}
	_, err := openBytes(b, nil)
	if !errors.Is(err, archive.ErrUnsupported) || errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("masked local header: got %v, want unsupported", err)
	}

	// A zip64 end record that needs version 6.2 (central directory
	// encryption).
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("a.txt")
	io.WriteString(w, "data")
	zw.Close()
	z := buf.Bytes()
	end = bytes.Index(z, []byte("PK\x05\x06"))
	var e64 []byte
	le16 := func(v int) { e64 = binary.LittleEndian.AppendUint16(e64, uint16(v)) }
	le32 := func(v uint32) { e64 = binary.LittleEndian.AppendUint32(e64, v) }
	le64 := func(v uint64) { e64 = binary.LittleEndian.AppendUint64(e64, v) }
	cdOff := binary.LittleEndian.Uint32(z[end+16:])
	cdSize := binary.LittleEndian.Uint32(z[end+12:])
	le32(sigEnd64)
	le64(44)
	le16(62)
	le16(62)
	le32(0)
	le32(0)
	le64(1)
	le64(1)
	le64(uint64(cdSize))
	le64(uint64(cdOff))
	le32(sigLocator64)
	le32(0)
	le64(uint64(end))
	le32(1)
	z = append(append(append([]byte(nil), z[:end]...), e64...), z[end:]...)
	_, err = openBytes(z, nil)
	if !errors.Is(err, archive.ErrUnsupported) {
		t.Errorf("zip64 end record version 6.2: got %v, want unsupported", err)
	}
}
