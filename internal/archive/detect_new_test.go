package archive

import (
	"strings"
	"testing"
)

func TestDetectNewFormats(t *testing.T) {
	cpioODC := "070707" + strings.Repeat("0", 70)
	cpioNewc := "070701" + strings.Repeat("0", 104)
	bin := "\xc7\x71" + strings.Repeat("\x00", 18) + "\x02\x00" + "\x00\x00\x00\x00" + "a\x00"
	for _, tc := range []struct {
		head string
		want Format
	}{
		{"\x1f\x9d\x90abc", Compress},
		{"\x89LZO\x00\r\n\x1a\n\x10\x40", Lzop},
		{cpioODC, Cpio},
		{cpioNewc, Cpio},
		{bin, Cpio},
		{"!<arch>\ndebian-binary   1614834367  0     0     100644  4         `\n2.0\n", Deb},
		{"!<arch>\n//                                              60        `\n", Ar},
		{"!<arch>\nshort.txt/      ", Ar},
		{"070707xyz" + strings.Repeat("0", 70), Unknown},
	} {
		if got := Detect([]byte(tc.head), nil, ""); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.head[:min(len(tc.head), 12)], got, tc.want)
		}
	}
	for in, want := range map[string]string{
		"a.tar.Z": "a.tar", "a.taz": "a.tar", "b.txt.lzo": "b.txt", "b.tzo": "b.tar", "c.Z": "c",
	} {
		f := Compress
		if strings.Contains(in, "zo") {
			f = Lzop
		}
		if got := StreamEntryName(in, f); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
