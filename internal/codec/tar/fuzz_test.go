package tar

import (
	gotar "archive/tar"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// FuzzTar reads any input without a panic or a hang, and where both this
// reader and archive/tar accept an input, they must give the same entries
// with the same bytes. Where GNU tar, which this reader follows, and
// archive/tar read an input differently (see divergent), the outcomes are
// not compared.
func FuzzTar(f *testing.F) {
	for _, p := range fixtures(f) {
		data, _ := os.ReadFile(p)
		if len(data) < 64<<10 {
			f.Add(data)
		}
	}
	x := paxData("path=pax/name", "mtime=1700000000.5", "linkpath=t")
	f.Add(tarOf(ustarHdr("x", 'x', int64(len(x))).bytes(), x, ustarHdr("a", '2', 0).bytes()))
	f.Add(tarOf(pax10("s", 3000, "2\n0\n2\n2998\n2\n", "abcd")...))
	f.Add(tarOf(oldSparseHdr("s", 3000, 4, [2]int64{0, 2}, [2]int64{2998, 2}).bytes(), []byte("abcd")))
	f.Add(tarOf(gnuHdr("big", '0', 0).set(offSize, base256(3, 12)).bytes(), []byte("abc")))
	f.Fuzz(func(t *testing.T, data []byte) {
		ours, warned, err := readOurs(t, data)
		if err != nil {
			return
		}
		theirs, err := readStd(data)
		if err != nil || theirs == nil || warned || divergent(data) {
			return
		}
		if len(ours) != len(theirs) {
			t.Fatalf("%d entries, archive/tar %d:\n%v\n%v", len(ours), len(theirs), ours, theirs)
		}
		for i := range ours {
			if ours[i] != theirs[i] {
				t.Fatalf("entry %d:\n ours %v\n std  %v", i, ours[i], theirs[i])
			}
		}
	})
}

// TestStdAgrees: the fixtures, but for those with global pax headers and
// sparse files (archive/tar gives the global header as an entry) are
// compared by FuzzTar's rules, not left out by them.
func TestStdAgrees(t *testing.T) {
	compared := 0
	for _, p := range fixtures(t) {
		data, _ := os.ReadFile(p)
		ours, warned, err := readOurs(t, data)
		if err != nil || warned {
			t.Fatalf("%s: %v (warned %v)", p, err, warned)
		}
		theirs, err := readStd(data)
		if err != nil || theirs == nil || divergent(data) {
			t.Logf("%s: not compared (archive/tar: %v)", p, err)
			continue
		}
		compared++
		if fmt.Sprint(ours) != fmt.Sprint(theirs) {
			t.Errorf("%s:\n ours %v\n std  %v", p, ours, theirs)
		}
	}
	if compared < 10 {
		t.Errorf("%d fixtures compared", compared)
	}
}

// fuzzEntry is what both readers must agree on.
type fuzzEntry struct {
	name, link string
	typ        archive.Type
	size       int64
	sec        int64 // mtime
	nsec       int
	data       string
}

func newFuzzEntry(name, link string, typ archive.Type, size int64, mtime time.Time, data string) fuzzEntry {
	return fuzzEntry{name, link, typ, size, mtime.Unix(), mtime.Nanosecond(), data}
}

func (e fuzzEntry) String() string {
	return fmt.Sprintf("%q->%q %v %d %d.%09d %q", e.name, e.link, e.typ, e.size, e.sec, e.nsec, e.data)
}

// readOurs reads data with this reader; warned reports any warning but
// that of a lone zero block (which archive/tar reads the same).
func readOurs(t *testing.T, data []byte) (out []fuzzEntry, warned bool, err error) {
	opt := &archive.Options{Warning: func(k archive.WarnKind, _ string) {
		warned = warned || k != archive.WarnLoneZeroBlock
	}}
	r := NewReader(bytes.NewReader(data), opt)
	for range 1000 {
		e, err := r.Next()
		if err == io.EOF {
			return out, warned, nil
		}
		if err != nil {
			return nil, warned, err
		}
		var b strings.Builder
		n, err := io.Copy(&b, io.LimitReader(struct{ io.Reader }{r}, 1<<20))
		// No byte past a file's declared size, error or not.
		if e.Type == archive.TypeFile && e.Size >= 0 && n > e.Size {
			t.Fatalf("%s: %d bytes, more than the %d it declares", e.Name, n, e.Size)
		}
		if err != nil {
			return nil, warned, err
		}
		// WriteTo into a HoleWriter gives the same bytes.
		if e.Type == archive.TypeFile && e.Size < 1<<20 && n == e.Size && len(out) < 20 {
			var w holeWriter
			r2 := NewReader(bufio.NewReaderSize(bytes.NewReader(data), 16), nil) // WriteTo from a bufio buffer
			for range len(out) + 1 {
				r2.Next()
			}
			if _, err := r2.WriteTo(&expander{&w}); err != nil || w.data.String() != b.String() {
				t.Fatalf("%s: WriteTo gives %d bytes (%v), Read %d", e.Name, w.data.Len(), err, b.Len())
			}
		}
		out = append(out, newFuzzEntry(e.Name, e.Linkname, e.Type, e.Size, e.ModTime, b.String()))
	}
	return nil, warned, io.ErrShortBuffer // too many entries to compare
}

// expander writes holes out as zeros, to compare with Read.
type expander struct{ w *holeWriter }

func (x *expander) Write(p []byte) (int, error) { return x.w.Write(p) }
func (x *expander) WriteHole(n int64) error {
	if n > 1<<20 {
		return io.ErrShortBuffer
	}
	x.w.Write(make([]byte, n))
	return nil
}

// readStd reads data with archive/tar, as this reader's entries; nil when
// it holds an entry archive/tar reads differently by design: a global pax
// header (returned as an entry, not applied), a type this reader reads
// otherwise (volume labels, multi-volume and dump directory headers,
// unknown types), data after a symlink or device header (archive/tar
// does not skip it), a regular file named with a trailing slash (a
// directory to GNU tar), pax and GNU long names together (GNU tar: pax
// wins), GNU sparse records of an unknown version (GNU tar: 1.0 for any
// minor).
func readStd(data []byte) ([]fuzzEntry, error) {
	tr := gotar.NewReader(bytes.NewReader(data))
	var out []fuzzEntry
	for range 1000 {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var typ archive.Type
		switch h.Typeflag {
		case gotar.TypeReg, gotar.TypeCont, gotar.TypeGNUSparse:
			if strings.HasSuffix(h.Name, "/") {
				return nil, nil
			}
			typ = archive.TypeFile
		case gotar.TypeLink:
			typ = archive.TypeHardlink
		case gotar.TypeDir:
			typ = archive.TypeDir
		case gotar.TypeSymlink, gotar.TypeChar, gotar.TypeBlock, gotar.TypeFifo:
			if h.Size != 0 {
				return nil, nil
			}
			typ = archive.TypeSymlink
			if h.Typeflag != gotar.TypeSymlink {
				typ = archive.TypeOther
			}
		default:
			return nil, nil
		}
		if p, ok := h.PAXRecords["path"]; ok && p != "" && p != h.Name && h.PAXRecords["GNU.sparse.name"] == "" {
			return nil, nil
		}
		if p, ok := h.PAXRecords["linkpath"]; ok && p != "" && p != h.Linkname {
			return nil, nil
		}
		major, minor := h.PAXRecords["GNU.sparse.major"], h.PAXRecords["GNU.sparse.minor"]
		if (major != "" || minor != "") && !(major == "0" && (minor == "0" || minor == "1") || major == "1" && minor == "0") {
			return nil, nil
		}
		var b strings.Builder
		if _, err := io.Copy(&b, io.LimitReader(tr, 1<<20)); err != nil {
			return nil, err
		}
		size := h.Size
		if typ != archive.TypeFile {
			size = 0
		}
		out = append(out, newFuzzEntry(h.Name, h.Linkname, typ, size, h.ModTime, b.String()))
	}
	return nil, io.ErrShortBuffer
}

// divergent reports an input holding a block that GNU tar's rules and
// archive/tar's read differently when both accept it: a numeric field in
// a form the two parse to different values (NUL padding before the
// digits, base-256 with a first byte other than 0x80 and 0xff), a ustar
// magic with another version (archive/tar: no prefix), a star trailer
// (archive/tar: star's prefix), GNU times that do not parse (archive/tar:
// the ustar prefix), an old sparse map whose terminator is read from the
// other field or that goes on in extension blocks. Only blocks that pass
// a header checksum are looked at.
func divergent(data []byte) bool {
	for off := 0; off+blockSize <= len(data); off += blockSize {
		var b block
		copy(b[:], data[off:])
		if b.isZero() || !b.checksumOK() && !stdChecksumOK(&b) {
			continue
		}
		for _, fl := range [][2]int{{offMode, 8}, {108, 8}, {116, 8}, {offSize, 12}, {offMtime, 12}, {offChksum, 8}, {329, 8}, {337, 8}} {
			if !canonical(b[fl[0] : fl[0]+fl[1]]) {
				return true
			}
		}
		magic := string(b[offMagic : offMagic+8])
		switch {
		case magic[:6] == "ustar\x00" && (magic[6:] != "00" || string(b[508:512]) == "tar\x00"):
			return true
		case magic == "ustar  \x00":
			if !canonical(b[offGNUAtime:offGNUAtime+12]) || !canonical(b[offGNUAtime+12:offGNUAtime+24]) {
				return true
			}
			if b[offType] == 'S' {
				if b[offGNUExtended] != 0 || !canonical(b[offGNURealsize:offGNURealsize+12]) {
					return true
				}
				for i := 0; i < 4; i++ {
					e := b[offGNUSparse+24*i:]
					if (e[0] == 0) != (e[12] == 0) || !canonical(e[:12]) || !canonical(e[12:24]) {
						return true
					}
				}
			}
		}
	}
	return false
}

// canonical reports a numeric field that GNU tar and archive/tar parse to
// the same value: base-256 from 0x80 or 0xff, or octal digits after at
// most one NUL and spaces, then only NULs and spaces; or all NULs.
func canonical(f []byte) bool {
	if f[0] == 0x80 || f[0] == 0xff {
		return true
	}
	if bytes.Count(f, []byte{0}) == len(f) {
		return true
	}
	i := 0
	if f[0] == 0 {
		i++
	}
	for i < len(f) && f[i] == ' ' {
		i++
	}
	j := i
	for j < len(f) && isOctal(f[j]) {
		j++
	}
	if j == i {
		return false
	}
	for ; j < len(f); j++ {
		if f[j] != 0 && f[j] != ' ' {
			return false
		}
	}
	return true
}

// stdChecksumOK is archive/tar's header checksum test: the field trimmed
// of spaces and NULs at both ends, in octal.
func stdChecksumOK(b *block) bool {
	s := strings.Trim(string(b[offChksum:offChksum+8]), " \x00")
	var want int64
	for i := 0; i < len(s); i++ {
		if !isOctal(s[i]) {
			return false
		}
		want = want<<3 | int64(s[i]-'0')
	}
	var u, sg int64
	for i, c := range b {
		if offChksum <= i && i < offChksum+8 {
			c = ' '
		}
		u += int64(c)
		sg += int64(int8(c))
	}
	return want == u || want == sg
}
