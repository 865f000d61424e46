package cli

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", maxSecret+1)
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{"secret\n", "secret", false},
		{"secret\nmore\n", "secret", false},
		{"secret\r\n", "secret", false}, // a Windows console line
		{"se\rcret\n", "se\rcret", false},
		{"no newline", "no newline", false},
		{"\n", "", false},
		{"", "", true},
		{"pass word with spaces\n", "pass word with spaces", false},
		{long + "\n", "", true},
	} {
		for name, r := range map[string]io.Reader{
			"whole":   strings.NewReader(tc.in),
			"onebyte": iotest.OneByteReader(strings.NewReader(tc.in)),
			"half":    iotest.HalfReader(strings.NewReader(tc.in)),
		} {
			got, err := readLine(r)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("%s %.20q: %q, %v; want %q, error %v", name, tc.in, got, err, tc.want, tc.err)
			}
		}
	}
}
