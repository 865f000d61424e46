package tar

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

func TestParseNumeric(t *testing.T) {
	for _, c := range []struct {
		field string
		octal bool // octalOnly
		want  int64
		ok    bool
	}{
		{"0000644\x00", false, 0o644, true},
		{"0000644 ", false, 0o644, true},
		{"   644 \x00", false, 0o644, true},
		{"644\x00\x00\x00\x00\x00", false, 0o644, true},
		{"\x00   12\x00\x00", false, 0o12, true},    // one leading NUL, then spaces
		{"\x00\x00\x00\x00123\x00", false, 0, true}, // digits after NUL padding are never used
		{"\x00\x00\x00\x00\x00\x00\x00\x00", false, 0, true},
		{"0000012 garbage", false, 0o12, true}, // the field ends at the space
		{"00000128", false, 0, false},          // not octal
		{"0000644x", false, 0, false},
		{"        ", false, 0, false}, // blanks only
		{"\x00       ", false, 0, false},
		{"-0000001", false, 0, false},
		{"\x80\x00\x00\x00\x00\x00\x02\x00", false, 512, true},            // base-256
		{"\xff\xff\xff\xff\xff\xff\xff\xff", false, -1, true},             // base-256, negative
		{"\x80\x00\x00\x00\x00\x00\x02\x00", true, 0, false},              // not in the checksum
		{"\x80\x7f\xff\xff\xff\xff\xff\xff\xff\xff\xff", false, 0, false}, // beyond int64
		{"\x81\x00\x00\x00\x00\x00\x02\x00", false, 0, false},             // GNU: only 0x80 and 0xff
		{"777777777777", false, 0o777777777777, true},
	} {
		got, ok := parseNumeric([]byte(c.field), c.octal)
		if got != c.want || ok != c.ok {
			t.Errorf("parseNumeric(%q, %v) = %d, %v; want %d, %v", c.field, c.octal, got, ok, c.want, c.ok)
		}
	}
}

// TestChecksumSigned: a header whose bytes above 0x7f were summed as
// signed chars (old Sun and BSD tars) is accepted, as GNU tar does.
func TestChecksumSigned(t *testing.T) {
	h := ustarHdr("caf\xe9\xe9.txt", '0', 3)
	b := h.b
	copy(b[offChksum:offChksum+8], "        ")
	var signed, unsigned int64
	for _, c := range b {
		signed += int64(int8(c))
		unsigned += int64(c)
	}
	for _, sum := range []int64{signed, unsigned, unsigned + 1} {
		blk := b
		h2 := &hdr{blk}
		h2.octal(offChksum, 7, sum)
		blk = h2.b
		data := append(append(blk[:], padded([]byte("abc"))...), make([]byte, 1024)...)
		got, _, err := readAll(t, data)
		if sum == unsigned+1 {
			var oe *archive.OffsetError
			if !errors.Is(err, errHeaderChecksum) || !errors.As(err, &oe) || oe.Offset != 0 {
				t.Errorf("a wrong checksum: %v", err)
			}
			continue
		}
		if err != nil || len(got) != 1 || string(got[0].data) != "abc" {
			t.Errorf("checksum %d: %v %v", sum, got, err)
		}
	}
}

// TestEnd: the archive ends at one zero block; a warning of its kind when
// the next block is missing or not zero; silently at two, or at the end
// of the input where a header would start.
func TestEnd(t *testing.T) {
	file := append(ustarHdr("a", '0', 2).bytes(), padded([]byte("hi"))...)
	zero := make([]byte, blockSize)
	for _, c := range []struct {
		name string
		tail []byte
		lone bool
	}{
		{"two zero blocks", append(zero, zero...), false},
		{"no zero block", nil, false},
		{"one zero block", zero, true},
		{"a zero block and garbage", append(zero, bytes.Repeat([]byte("x"), blockSize)...), true},
		{"a zero block and a short one", append(zero, make([]byte, 100)...), true},
	} {
		data := append(append([]byte(nil), file...), c.tail...)
		got, warns, err := readAll(t, data)
		if err != nil || len(got) != 1 || string(got[0].data) != "hi" {
			t.Errorf("%s: %v %v", c.name, got, err)
		}
		if lone := len(warns[archive.WarnLoneZeroBlock]) == 1; lone != c.lone || len(warns) > 1 || !c.lone && len(warns) > 0 {
			t.Errorf("%s: warnings %v", c.name, warns)
		}
		if c.lone && !strings.Contains(warns[archive.WarnLoneZeroBlock][0], "(byte 1024)") {
			t.Errorf("%s: %q does not say where", c.name, warns[archive.WarnLoneZeroBlock][0])
		}
	}
	// A damaged header is named by where it is, whichever way the data
	// before it was read.
	bad := append(append([]byte(nil), file...), bytes.Repeat([]byte("x"), blockSize)...)
	for _, writeTo := range []bool{false, true} {
		r := NewReader(bufio.NewReader(bytes.NewReader(bad)), nil)
		r.Next()
		if writeTo {
			r.WriteTo(io.Discard)
		} else {
			io.Copy(io.Discard, struct{ io.Reader }{r})
		}
		var oe *archive.OffsetError
		if _, err := r.Next(); !errors.Is(err, archive.ErrCorrupt) || !errors.As(err, &oe) || oe.Offset != 1024 {
			t.Errorf("WriteTo %v: %v", writeTo, err)
		}
	}
	// Inside a header, or a partial block: truncated.
	for _, cut := range []int{100, blockSize + 1} {
		_, _, err := readAll(t, file[:cut])
		if !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
}

// TestPax: per-file records over global ones, an empty value restoring the
// ustar field; malformed records ignored with a warning, the ustar field
// kept.
func TestPax(t *testing.T) {
	g := paxData("mtime=1600000000.5", "comment=global")
	x := paxData("path=long/pax/name.txt", "mtime=1700000000.25", "atime=-1.5")
	x2 := paxData("comment=", "size=3")
	data := tarOf(
		ustarHdr("pax_global", 'g', int64(len(g))).bytes(), g,
		ustarHdr("PaxHeaders/a", 'x', int64(len(x))).bytes(), x,
		ustarHdr("a", '0', 1).bytes(), []byte("A"),
		ustarHdr("PaxHeaders/b", 'x', int64(len(x2))).bytes(), x2,
		ustarHdr("b", '0', 9).bytes(), []byte("BBB"),
		ustarHdr("c", '0', 1).bytes(), []byte("C"),
	)
	got, warns, err := readAll(t, data)
	if err != nil || len(got) != 3 || len(warns) != 0 {
		t.Fatalf("%v %v %v", got, warns, err)
	}
	a, b, c := got[0], got[1], got[2]
	if a.Name != "long/pax/name.txt" || !a.ModTime.Equal(time.Unix(1700000000, 250e6)) ||
		!a.AccessTime.Equal(time.Unix(-2, 5e8)) || a.Comment != "global" || string(a.data) != "A" {
		t.Errorf("a: %+v", a.Entry)
	}
	if b.Name != "b" || b.Size != 3 || string(b.data) != "BBB" || b.Comment != "" || !b.ModTime.Equal(time.Unix(1600000000, 5e8)) {
		t.Errorf("b: %+v %q", b.Entry, b.data)
	}
	if c.Name != "c" || c.Comment != "global" || string(c.data) != "C" {
		t.Errorf("c: %+v", c.Entry)
	}

	for _, bad := range []struct {
		name string
		rec  string
	}{
		{"a time with non-digits in its fraction", paxRecord("mtime", "1700000000.5x")},
		{"a time with a sign", paxRecord("mtime", "+1700000000")},
		{"a size that is no number", paxRecord("size", "12k")},
		{"a last record with an empty value and no newline", "7 path="},
		{"a record without '='", "9 pathxx\n"},
		{"a record without a blank", "9pathxx=\n"},
		{"a length beyond the data", "99 path=x\n"},
		{"a length that is no number", "x path=x\n"},
	} {
		x := []byte(paxRecord("linkpath", "kept") + bad.rec)
		data := tarOf(
			ustarHdr("PaxHeaders/l", 'x', int64(len(x))).bytes(), x,
			ustarHdr("l", '2', 0).set(offLinkname, "target").bytes(),
			ustarHdr("f", '0', 1).bytes(), []byte("F"),
		)
		got, warns, err := readAll(t, data)
		if err != nil || len(got) != 2 {
			t.Errorf("%s: %v %v", bad.name, got, err)
			continue
		}
		l := got[0]
		if l.Name != "l" || l.Linkname != "kept" || !l.ModTime.Equal(time.Unix(1e9, 0)) || got[1].Name != "f" || string(got[1].data) != "F" {
			t.Errorf("%s: %+v", bad.name, l.Entry)
		}
		if len(warns[archive.WarnPaxRecordIgnored]) != 1 || len(warns) != 1 {
			t.Errorf("%s: warnings %v", bad.name, warns)
		}
	}
}

// TestNames: GNU long names and link names, the ustar prefix, star's
// shorter prefix and its access time, pax over GNU long names (GNU tar).
func TestNames(t *testing.T) {
	long := strings.Repeat("d/", 80) + "file.txt"
	longLink := strings.Repeat("t", 300)
	star := ustarHdr("name", '0', 0).set(offPrefix, "star/prefix").
		octal(offStarAtime, 12, 1234).set(offStarAtime+11, " ").
		octal(offStarCtime, 12, 5678).set(offStarCtime+11, " ")
	x := paxData("path=pax/wins")
	data := tarOf(
		gnuHdr("././@LongLink", 'L', int64(len(long)+1)).bytes(), []byte(long+"\x00"),
		gnuHdr("././@LongLink", 'K', int64(len(longLink))).bytes(), []byte(longLink),
		gnuHdr("short", '2', 0).set(offLinkname, "shortlink").bytes(),
		ustarHdr("name", '5', 0).set(offPrefix, "ustar/prefix").bytes(),
		star.bytes(),
		gnuHdr("././@LongLink", 'L', 4).bytes(), []byte("gnu\x00"),
		ustarHdr("PaxHeaders", 'x', int64(len(x))).bytes(), x,
		ustarHdr("ustar", '0', 0).bytes(),
		ustarHdr("v7", '0', 0).set(offMagic, "\x00\x00\x00\x00\x00\x00\x00\x00").set(offPrefix, "ignored").bytes(),
	)
	got, warns, err := readAll(t, data)
	if err != nil || len(warns) != 0 || len(got) != 5 {
		t.Fatalf("%v %v %v", got, warns, err)
	}
	for i, c := range []struct {
		name, link string
		typ        archive.Type
	}{
		{long, longLink, archive.TypeSymlink},
		{"ustar/prefix/name", "", archive.TypeDir},
		{"star/prefix/name", "", archive.TypeFile},
		{"pax/wins", "", archive.TypeFile},
		{"v7", "", archive.TypeFile},
	} {
		if got[i].Name != c.name || got[i].Linkname != c.link || got[i].Type != c.typ {
			t.Errorf("entry %d: %q -> %q (%v), want %q -> %q (%v)", i, got[i].Name, got[i].Linkname, got[i].Type, c.name, c.link, c.typ)
		}
	}
	if !got[2].AccessTime.Equal(time.Unix(1234, 0)) {
		t.Errorf("star atime %v", got[2].AccessTime)
	}
}

// TestTypes: what GNU tar does with each type flag and its data.
func TestTypes(t *testing.T) {
	data := tarOf(
		gnuHdr("label", 'V', 0).bytes(),
		// A hard link's size field is not its data; here it is not
		// even a number.
		ustarHdr("hard", '1', 0).set(offSize, "garbage!").set(offLinkname, "f").bytes(),
		ustarHdr("sym", '2', 5).set(offLinkname, "f").bytes(), []byte("junk!"),
		ustarHdr("dir", '5', 5000).bytes(), // a directory's size is no data
		ustarHdr("slash/", '0', 3).bytes(), []byte("xyz"),
		gnuHdr("cont", 'M', 4).bytes(), []byte("more"),
		gnuHdr("dump", 'D', 4).bytes(), []byte("Ya\x00\x00"),
		ustarHdr("odd", 'Z', 3).bytes(), []byte("zzz"),
		ustarHdr("fifo", '6', 0).bytes(),
		ustarHdr("contig", '7', 2).bytes(), []byte("cc"),
		ustarHdr("areg", 0, 2).bytes(), []byte("aa"),
		ustarHdr("mtime", '0', 0).set(offMtime, "12345678901x").bytes(),
	)
	got, warns, err := readAll(t, data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.Name+":"+e.Type.String()+":"+string(e.data))
	}
	want := "hard:hardlink: sym:symlink: dir:dir: slash/:dir: dump:dir: odd:file:zzz fifo:other: contig:file:cc areg:file:aa mtime:file:"
	if s := strings.Join(names, " "); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	if !got[len(got)-1].ModTime.IsZero() {
		t.Errorf("bad mtime read as %v", got[len(got)-1].ModTime)
	}
	for _, k := range []archive.WarnKind{archive.WarnTarHeaderSkipped, archive.WarnTarUnknownType, archive.WarnTarBadField} {
		n := 1
		if k == archive.WarnTarHeaderSkipped {
			n = 2 // the continuation and the dump directory's listing
		}
		if len(warns[k]) != n {
			t.Errorf("%s: %q", k, warns[k])
		}
	}
}

// TestBase256Size: a size in GNU's base-256 encoding.
func TestBase256Size(t *testing.T) {
	h := gnuHdr("big", '0', 0).set(offSize, "\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x01")
	body := bytes.Repeat([]byte("q"), 513)
	got, _, err := readAll(t, tarOf(h.bytes(), body))
	if err != nil || len(got) != 1 || !bytes.Equal(got[0].data, body) {
		t.Fatalf("%v %v", got, err)
	}
	// Negative, or not a number: the archive cannot go on.
	for _, f := range []string{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "12345678901x"} {
		_, _, err := readAll(t, tarOf(gnuHdr("bad", '0', 0).set(offSize, f).bytes()))
		if !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("size %q: %v", f, err)
		}
	}
}

// TestChecksumWords: the word-at-a-time checksum accepts exactly what the
// byte loop accepts (unsigned and signed sums), on blocks of every byte
// value, the checksum field's own bytes included.
func TestChecksumWords(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		var b block
		for j := range b {
			switch i % 4 {
			case 0:
				b[j] = byte(r.IntN(256))
			case 1:
				b[j] = 0xFF
			case 2:
				b[j] = byte(0x80 + r.IntN(128))
			default:
				b[j] = byte(r.IntN(128))
			}
		}
		var u, s int64
		for j, c := range b {
			if offChksum <= j && j < offChksum+8 {
				c = ' '
			}
			u += int64(c)
			s += int64(int8(c))
		}
		want := u
		if i%2 == 1 {
			want = s
		}
		if r.IntN(8) == 0 {
			want += int64(r.IntN(3)) - 1 // sometimes wrong
		}
		field := fmt.Sprintf("%07o\x00", want)
		if want < 0 || len(field) != 8 {
			continue
		}
		copy(b[offChksum:], field)
		if got, ok := b.checksumOK(), want == u || want == s; got != ok {
			t.Fatalf("block %d: checksumOK %v, want %v (unsigned %d, signed %d, field %d)", i, got, ok, u, s, want)
		}
	}
}

// TestOctalField holds parseNumeric's fast path to the general way: on
// fields of the two lengths it takes, made of digits, terminators and
// bytes that break them, whenever it gives a value the general way gives
// the same.
func TestOctalField(t *testing.T) {
	alphabet := []byte("012345670123456701234567 \x00\t8x\x80\xff/")
	r := rand.New(rand.NewPCG(13, 23))
	taken := 0
	for n := 0; n < 400000; n++ {
		f := make([]byte, []int{8, 12}[n%2])
		for i := range f {
			f[i] = alphabet[r.IntN(len(alphabet))]
		}
		if n%4 < 2 { // most fields as tars write them: digits, then a terminator
			for i := range f[:len(f)-1] {
				f[i] = byte('0' + r.IntN(8))
			}
			f[len(f)-1] = " \x00\t7"[r.IntN(4)]
			if len(f) == 8 && n%8 < 2 { // a checksum: six digits, NUL, space
				f[6] = " \x00\t7"[r.IntN(4)]
			}
		}
		v, ok := octalField(f)
		if !ok {
			continue
		}
		taken++
		if gv, gok := parseNumericGeneric(f, true); gv != v || !gok {
			t.Fatalf("%q: fast path %d, general way %d, %v", f, v, gv, gok)
		}
	}
	if taken < 100000 {
		t.Errorf("the fast path took %d fields", taken)
	}
	for _, f := range []string{"0000644\x00", "0000644 ", "77777777777\x00", "00000000000 ", "7777777\x00", "012345\x00 ", "777777 \x00", "012345\x00x"} {
		v, ok := octalField([]byte(f))
		if gv, gok := parseNumericGeneric([]byte(f), false); !ok || v != gv || !gok {
			t.Errorf("%q: fast path %d, %v; general way %d, %v", f, v, ok, gv, gok)
		}
	}
}
