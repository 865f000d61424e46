package archive

import (
	"errors"
	"io/fs"
	"testing"
)

// TestSizeText: sizes in messages, in binary units.
func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 100 << 20: "100.0 MiB", 1 << 62: "4.0 EiB"} {
		if got := SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestUnixMode: permission bits and setuid/setgid/sticky come over, the
// file type bits do not.
func TestUnixMode(t *testing.T) {
	for m, want := range map[uint32]fs.FileMode{
		0o100644: 0o644,
		0o040755: 0o755,
		0o104755: 0o755 | fs.ModeSetuid,
		0o102711: 0o711 | fs.ModeSetgid,
		0o041777: 0o777 | fs.ModeSticky,
		0o177777: 0o777 | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky,
	} {
		if got := UnixMode(m); got != want {
			t.Errorf("UnixMode(%o) = %v, want %v", m, got, want)
		}
	}
}

// TestErrorfPlain: a message without arguments is kept as written (no
// formatting), one with a verb or "%%" is formatted as fmt does; both are
// their category.
func TestErrorfPlain(t *testing.T) {
	for _, c := range []struct {
		format string
		args   []any
		want   string
	}{
		{"ar: invalid member header", nil, "ar: invalid member header"},
		{"100%% of it", nil, "100% of it"},
		{"%d entries", []any{3}, "3 entries"},
	} {
		err := Corruptf(c.format, c.args...)
		if err.Error() != c.want || !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupported) {
			t.Errorf("Corruptf(%q): %q (corrupt %v), want %q", c.format, err, errors.Is(err, ErrCorrupt), c.want)
		}
	}
}
