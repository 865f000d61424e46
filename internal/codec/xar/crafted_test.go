package xar

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// makeXar builds a XAR: the TOC holds files (XML of <file> elements) and a
// checksum of kind check, at the start of the heap as xar writes it; heap
// follows, and the files' data offsets are relative to it.
func makeXar(t testing.TB, check string, files string, heap []byte) []byte {
	t.Helper()
	k := checkKinds[check]
	files = offsetRE.ReplaceAllStringFunc(files, func(m string) string {
		v, _ := strconv.ParseInt(offsetRE.FindStringSubmatch(m)[1], 10, 64)
		return fmt.Sprintf("<offset>%d</offset>", v+int64(k.Size()))
	})
	toc := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<xar><toc><creation-time>2021-03-04T05:06:07</creation-time>
<checksum style="%s"><offset>0</offset><size>%d</size></checksum>
%s</toc></xar>`, check, k.Size(), files)
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(toc))
	w.Close()
	alg, name := map[string]uint32{"none": 0, "sha1": 1, "md5": 2}[check], ""
	hsize := 28
	if check == "sha256" || check == "sha512" {
		alg, name, hsize = 3, check, 28+36
	}
	h := make([]byte, hsize)
	copy(h, Magic)
	binary.BigEndian.PutUint16(h[4:], uint16(hsize))
	binary.BigEndian.PutUint16(h[6:], 1)
	binary.BigEndian.PutUint64(h[8:], uint64(z.Len()))
	binary.BigEndian.PutUint64(h[16:], uint64(len(toc)))
	binary.BigEndian.PutUint32(h[24:], alg)
	copy(h[28:], name)
	out := append(h, z.Bytes()...)
	if hh := verify.New(k); hh != nil {
		hh.Write(z.Bytes())
		out = hh.Sum(out)
	}
	return append(out, heap...)
}

var offsetRE = regexp.MustCompile(`<offset>(\d+)</offset>`)

func sha1hex(b []byte) string {
	s := sha1.Sum(b)
	return hex.EncodeToString(s[:])
}

// stored is the <data> of b stored at off, with SHA-1 checksums.
func stored(off int, b []byte) string {
	return fmt.Sprintf(`<data><length>%d</length><offset>%d</offset><size>%d</size>
<encoding style="application/octet-stream"/>
<archived-checksum style="sha1">%s</archived-checksum>
<extracted-checksum style="sha1">%s</extracted-checksum></data>`, len(b), off, len(b), sha1hex(b), sha1hex(b))
}

func fileXML(id int, name, inner string) string {
	return fmt.Sprintf(`<file id="%d"><name>%s</name><type>file</type><mode>0644</mode>%s</file>`, id, name, inner)
}

func readCrafted(t testing.TB, b []byte, seekable bool) (*result, error) {
	t.Helper()
	r, err := openBytes(t, b, seekable)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readAll(r)
}

// TestTOCChecksums reads TOCs checked by each algorithm, the "other" ones
// named in the header, and fails each when the stored digest is flipped.
func TestTOCChecksums(t *testing.T) {
	data := []byte("hello, xar\n")
	for _, check := range []string{"none", "md5", "sha1", "sha256", "sha512"} {
		b := makeXar(t, check, fileXML(1, "a", stored(0, data)), data)
		res, err := readCrafted(t, b, true)
		if err != nil {
			t.Fatalf("%s: %v", check, err)
		}
		if !strings.HasSuffix(res.files["a"], " 11") {
			t.Errorf("%s: %v", check, res.files)
		}
		if check == "none" {
			continue
		}
		b[len(b)-len(data)-1] ^= 1
		if _, err := readCrafted(t, b, true); !errors.Is(err, archive.ErrChecksum) || !testutil.Names(err, "table of contents") {
			t.Errorf("%s: flipped TOC checksum: %v", check, err)
		}
	}
}

// TestFileChecksums: a wrong archived- or extracted-checksum, or a wrong
// size, fails the entry, naming what failed; the other entries read.
func TestFileChecksums(t *testing.T) {
	data := []byte("some file data")
	good := stored(0, data)
	cases := []struct {
		name, data, want string
	}{
		{"archived", strings.Replace(good, "<archived-checksum style=\"sha1\">"+sha1hex(data), "<archived-checksum style=\"sha1\">"+sha1hex([]byte("x")), 1), "archived-checksum"},
		{"extracted", strings.Replace(good, "<extracted-checksum style=\"sha1\">"+sha1hex(data), "<extracted-checksum style=\"sha1\">"+sha1hex([]byte("x")), 1), "extracted-checksum"},
		{"size", strings.Replace(good, fmt.Sprintf("<size>%d</size>", len(data)), "<size>5</size>", 1), "size"},
	}
	for _, c := range cases {
		files := fileXML(1, "bad", c.data) + fileXML(2, "ok", stored(0, data))
		r, err := openBytes(t, makeXar(t, "sha1", files, data), true)
		if err != nil {
			t.Fatal(err)
		}
		var failed, ok bool
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(io.Discard, r)
			switch e.Name {
			case "bad":
				failed = err != nil && (errors.Is(err, archive.ErrCorrupt) || errors.Is(err, archive.ErrChecksum)) && testutil.Names(err, c.want)
				if !failed {
					t.Errorf("%s: %v", c.name, err)
				}
			case "ok":
				ok = err == nil
			}
		}
		if !failed || !ok {
			t.Errorf("%s: failed %v, ok %v", c.name, failed, ok)
		}
	}
}

// TestExtents: shared extents read from a file (and refused from a pipe),
// partial overlaps and extents past the end refused.
func TestExtents(t *testing.T) {
	data := []byte("0123456789abcdef")
	shared := fileXML(1, "a", stored(0, data)) + fileXML(2, "b", stored(0, data))
	res, err := readCrafted(t, makeXar(t, "sha1", shared, data), true)
	if err != nil || res.files["a"] != res.files["b"] || res.files["a"] == "" {
		t.Errorf("shared: %v %v", res, err)
	}
	if _, err := readCrafted(t, makeXar(t, "sha1", shared, data), false); !errors.Is(err, archive.ErrUnsupported) {
		// From a pipe the second reads behind the first: its own error.
		if err == nil {
			t.Error("shared from a pipe: no error")
		}
	}
	overlap := fileXML(1, "a", stored(0, data[:10])) + fileXML(2, "b", stored(5, data[5:]))
	if _, err := readCrafted(t, makeXar(t, "sha1", overlap, data), true); !errors.Is(err, ErrExtent) {
		t.Errorf("overlap: %v", err)
	}
	past := fileXML(1, "a", strings.Replace(stored(0, data), "<offset>0</offset>", "<offset>4611686018427387000</offset>", 1))
	if _, err := readCrafted(t, makeXar(t, "sha1", past, data), true); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("past the end: %v", err)
	}
	huge := fileXML(1, "a", strings.Replace(stored(0, data), "<length>16</length>", "<length>9223372036854775807</length>", 1))
	if _, err := readCrafted(t, makeXar(t, "sha1", huge, data), true); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("huge length: %v", err)
	}
}

// TestTOCLimits: a TOC larger than the memory limit, a declared size the
// TOC does not have, deep nesting, and malformed XML.
func TestTOCLimits(t *testing.T) {
	b := makeXar(t, "sha1", fileXML(1, "a", ""), nil)
	r, err := NewReader(&archive.Input{R: bytes.NewReader(b), Size: -1}, &archive.Options{MemLimit: 100})
	if !errors.Is(err, archive.ErrLimit) {
		t.Errorf("memlimit: %v %v", r, err)
	}
	c := bytes.Clone(b)
	binary.BigEndian.PutUint64(c[16:], binary.BigEndian.Uint64(c[16:])+1)
	if _, err := openBytes(t, c, true); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("declared size: %v", err)
	}
	deep := strings.Repeat(`<file id="1"><name>d</name><type>directory</type>`, maxDepth+1) + strings.Repeat("</file>", maxDepth+1)
	if _, err := openBytes(t, makeXar(t, "sha1", deep, nil), true); !errors.Is(err, archive.ErrLimit) {
		t.Errorf("deep: %v", err)
	}
	for _, bad := range []string{`<file><name>a</name>`, `<file id="1"><type>file</type></file>`, `<file id="1"><name>a</name><mode>99</mode></file>`} {
		if _, err := openBytes(t, makeXar(t, "sha1", bad, nil), true); !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestLinksAndNames: symlinks, hard links by id (an unknown id refused),
// base64 names, other file types, and a name with ../ passed on as stored
// (the sink refuses it).
func TestLinksAndNames(t *testing.T) {
	data := []byte("target data")
	files := `<file id="1"><name>t</name><type link="original">hardlink</type>` + stored(0, data) + `</file>
<file id="2"><name>h</name><type link="1">hardlink</type></file>
<file id="3"><name>s</name><type>symlink</type><link type="file">t</link></file>
<file id="4"><name enctype="base64">bcOkw59l</name><type>directory</type></file>
<file id="5"><name>p</name><type>fifo</type></file>
<file id="6"><name>../up</name><type>file</type></file>`
	res, err := readCrafted(t, makeXar(t, "sha1", files, data), false)
	if err != nil {
		t.Fatal(err)
	}
	if res.types["h"] != archive.TypeHardlink || res.files["h"] != res.files["t"] || res.links["s"] != "t" ||
		res.types["mäße"] != archive.TypeDir || res.types["p"] != archive.TypeOther || res.types["../up"] != archive.TypeFile {
		t.Errorf("%+v", res)
	}
	bad := `<file id="2"><name>h</name><type link="9">hardlink</type></file>`
	if _, err := readCrafted(t, makeXar(t, "sha1", bad, nil), true); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("unknown hard link id: %v", err)
	}
}

// TestUnknownEncoding fails that entry alone, as unsupported.
func TestUnknownEncoding(t *testing.T) {
	data := []byte("abc")
	odd := strings.Replace(stored(0, data), "application/octet-stream", "application/x-zstd", 1)
	files := fileXML(1, "odd", odd) + fileXML(2, "ok", stored(0, data))
	r, err := openBytes(t, makeXar(t, "sha1", files, data), true)
	if err != nil {
		t.Fatal(err)
	}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(io.Discard, r)
		if (e.Name == "odd") != errors.Is(err, archive.ErrUnsupported) {
			t.Errorf("%s: %v", e.Name, err)
		}
	}
}

// TestPayloadNotCpio: a Payload whose gzip stream holds no cpio archive
// is refused; a Payload that is neither compressed nor cpio is a file.
func TestPayloadNotCpio(t *testing.T) {
	var gz bytes.Buffer
	gz.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3})
	fw := mustDeflate(t, []byte("not a cpio archive at all, just some text that is long enough to peek at"))
	gz.Write(fw)
	files := `<file id="1"><name>c.pkg</name><type>directory</type>` + fileXML(2, "Payload", stored(0, gz.Bytes())) + `</file>`
	if _, err := readCrafted(t, makeXar(t, "sha1", files, gz.Bytes()), true); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("gzip without cpio: %v", err)
	}
	plain := []byte("plain text payload")
	files = fileXML(1, "Payload", stored(0, plain))
	res, err := readCrafted(t, makeXar(t, "sha1", files, plain), true)
	if err != nil || res.types["Payload"] != archive.TypeFile {
		t.Errorf("plain Payload: %v %v", res, err)
	}
}

// mustDeflate is a raw deflate stream of b with a gzip trailer (CRC-32 and
// size), completing a gzip member whose header the caller wrote.
func mustDeflate(t testing.TB, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(b)
	w.Close()
	raw := z.Bytes()[2 : z.Len()-4]
	out := append([]byte(nil), raw...)
	var tr [8]byte
	h := verify.New(verify.CRC32)
	h.Write(b)
	copy(tr[:4], reverse(h.Sum(nil)))
	binary.LittleEndian.PutUint32(tr[4:], uint32(len(b)))
	return append(out, tr[:]...)
}

func reverse(b []byte) []byte {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return b
}

// TestExtendedAttributes: an <ea>'s data are checked in heap order (not
// extracted); a wrong checksum fails, naming the attribute's file.
func TestExtendedAttributes(t *testing.T) {
	r, err := openBytes(t, readFile(t, "t-gzip.xar"), false)
	if err != nil {
		t.Fatal(err)
	}
	eas := 0
	for _, it := range r.items {
		if it.ea {
			eas++
		}
	}
	if eas == 0 {
		t.Fatal("the fixture holds no extended attribute")
	}
	data := []byte("file data")
	attr := []byte("attribute value")
	ea := strings.Replace(stored(len(data), attr), "<data>", "<ea><name>user.x</name>", 1)
	ea = strings.Replace(ea, "</data>", "</ea>", 1)
	files := fileXML(1, "f", stored(0, data)+ea)
	heap := append(bytes.Clone(data), attr...)
	if _, err := readCrafted(t, makeXar(t, "sha1", files, heap), false); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(files, sha1hex(attr), sha1hex(data), 1)
	if _, err := readCrafted(t, makeXar(t, "sha1", bad, heap), true); !errors.Is(err, archive.ErrChecksum) || !testutil.Names(err, "extended attribute") {
		t.Errorf("%v", err)
	}
}

// TestSizeExceeded: a file whose data decode to more than its declared
// <size> hands out no byte past that size, only ErrSize, read in one call
// or byte by byte, from a file or a pipe.
func TestSizeExceeded(t *testing.T) {
	body := []byte("0123456789abcdef")
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(body)
	w.Close()
	data := fmt.Sprintf(`<data><length>%d</length><offset>0</offset><size>6</size>
<encoding style="application/x-gzip"/></data>`, z.Len())
	b := makeXar(t, "sha1", fileXML(1, "f", data), z.Bytes())
	for _, seekable := range []bool{true, false} {
		for _, chunk := range []int{1 << 20, 1} {
			r, err := openBytes(t, b, seekable)
			if err != nil {
				t.Fatal(err)
			}
			e, err := r.Next()
			if err != nil || e.Size != 6 {
				t.Fatalf("entry %+v, %v", e, err)
			}
			got, err := testutil.ReadInChunks(r, chunk)
			if !errors.Is(err, ErrSize) {
				t.Errorf("seekable %v, chunk %d: error %v, want ErrSize", seekable, chunk, err)
			}
			r.Close()
			if string(got) != "012345" {
				t.Errorf("seekable %v, chunk %d: handed out %q, want the declared 6 bytes", seekable, chunk, got)
			}
		}
	}
}
