package xar

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"crypto/md5"
	"fmt"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/xz"
)

// odc is a cpio archive (odc format) of the given files, in order.
func odc(files ...string) []byte {
	var b bytes.Buffer
	for i, name := range append(files, "TRAILER!!!") {
		data := "data of " + name
		mode := 0o100644
		if name == "TRAILER!!!" {
			data, mode = "", 0
		}
		fmt.Fprintf(&b, "070707%06o%06o%06o%06o%06o%06o%06o%011o%06o%011o%s\x00%s",
			0, i+1, mode, 0, 0, 1, 0, 0, len(name)+1, len(data), name, data)
	}
	return b.Bytes()
}

// smallSeeds are small crafted archives covering each feature: the
// fixtures are too large for the fuzzer to mutate usefully.
func smallSeeds(f testing.TB) [][]byte {
	data := []byte("hello, fuzzer")
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(data)
	w.Close()
	var gz bytes.Buffer
	g := gzip.NewWriter(&gz)
	g.Write(odc("./a", "./b/c"))
	g.Close()
	zdata := fmt.Sprintf(`<data><length>%d</length><offset>%d</offset><size>%d</size>
<encoding style="application/x-gzip"/><extracted-checksum style="md5">%x</extracted-checksum></data>`,
		z.Len(), len(data), len(data), md5.Sum(data))
	payload := fmt.Sprintf(`<data><length>%d</length><offset>%d</offset><size>%d</size>
<encoding style="application/octet-stream"/></data>`, gz.Len(), len(data)+z.Len(), gz.Len())
	heap := append(append(bytes.Clone(data), z.Bytes()...), gz.Bytes()...)
	files := `<file id="1"><name>d</name><type>directory</type><mode>0755</mode>` +
		fileXML(2, "a", stored(0, data)) + fileXML(3, "z", zdata) + `</file>
<file id="4"><name>s</name><type>symlink</type><link type="file">d/a</link></file>
<file id="5"><name>h</name><type link="2">hardlink</type></file>
<file id="6"><name>c.pkg</name><type>directory</type>` + fileXML(7, "Payload", payload) + `</file>`
	return [][]byte{makeXar(f, "sha1", files, heap), makeXar(f, "md5", files, heap), makeXar(f, "sha256", files, heap)}
}

// FuzzXAR reads any input as a XAR, from a file and from a pipe: errors
// of a category, never a panic or a hang.
func FuzzXAR(f *testing.F) {
	for _, s := range smallSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, seekable := range []bool{true, false} {
			in := &archive.Input{R: bytes.NewReader(data), Size: -1}
			if seekable {
				in.RA, in.Size = bytes.NewReader(data), int64(len(data))
			}
			r, err := NewReader(in, &archive.Options{MemLimit: 64 << 20, Threads: 1})
			if err == nil {
				err = readSized(t, r)
				r.Close()
			}
			if err != nil && !archive.Categorized(err) {
				t.Fatalf("error of no category: %v", err)
			}
		}
	})
}

// readSized reads every entry of r as readAll does (every Pending entry
// settled), and no file hands out more bytes than its declared size,
// error or not.
func readSized(t *testing.T, r *Reader) error {
	pending := map[*archive.Entry]bool{}
	for {
		e, err := r.Next()
		for _, v := range r.Settled() {
			if v.Err != nil {
				return v.Err
			}
			delete(pending, v.Entry)
		}
		if err == io.EOF {
			if len(pending) != 0 {
				t.Fatalf("%d entries never settled", len(pending))
			}
			return nil
		}
		if err != nil {
			return err
		}
		if e.Pending {
			pending[e] = true
		}
		if e.Type != archive.TypeFile {
			continue
		}
		n, err := io.Copy(io.Discard, io.LimitReader(r, 1<<20))
		if e.Size >= 0 && n > e.Size {
			t.Fatalf("%s: %d bytes, more than the %d it declares", e.Name, n, e.Size)
		}
		if err != nil {
			return err
		}
	}
}

// FuzzPbzx decodes any input as a pbzx stream.
func FuzzPbzx(f *testing.F) {
	f.Add([]byte("pbzx\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x03abc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		z, err := NewPbzxReader(bytes.NewReader(data), xz.Config{MemLimit: 64 << 20, Threads: 1})
		if err == nil {
			_, err = io.Copy(io.Discard, z)
			z.Close()
		}
		if err != nil && !archive.Categorized(err) {
			t.Fatalf("error of no category: %v", err)
		}
	})
}

// TestSmallSeeds reads the fuzz seeds: every feature they hold is read.
func TestSmallSeeds(t *testing.T) {
	for _, b := range smallSeeds(t) {
		res, err := readCrafted(t, b, false)
		if err != nil {
			t.Fatal(err)
		}
		if res.files["d/z"] != res.files["d/a"] || res.files["h"] != res.files["d/a"] || res.files["c.pkg/Payload/b/c"] == "" || res.links["s"] != "d/a" {
			t.Errorf("%+v", res)
		}
	}
}
