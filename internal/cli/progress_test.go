package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestBarLabel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		width int
		want  string
	}{
		{"a.txt", 8, "a.txt   "},
		{"exactly8", 8, "exactly8"},
		{"dir/sub/file-name.txt", 12, "…le-name.txt"},
		{"bad\x1b[2Jname\n", 18, `bad\x1b[2Jname\n  `},
		{"rlo\u202etxt.exe\x9b", 24, `rlo\u202etxt.exe\x9b    `},
		{"x[red]y", 8, "x[red]y "},
		{"Grüße.txt", 10, "Grüße.txt "},
		{"éééééééééééé", 5, "…éééé"},
	} {
		got := barLabel(tc.name, tc.width)
		if got != tc.want {
			t.Errorf("barLabel(%q, %d) = %q, want %q", tc.name, tc.width, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n != tc.width {
			t.Errorf("barLabel(%q, %d) is %d runes", tc.name, tc.width, n)
		}
	}
}

func TestNameWidth(t *testing.T) {
	for _, tc := range []struct{ term, want int }{
		{0, minNameWidth}, {40, minNameWidth}, {90, minNameWidth}, {110, 110 - progressFixed - barWidth},
		{100, 100 - progressFixed - barWidth}, {300, maxNameWidth},
	} {
		if got := nameWidth(tc.term); got != tc.want {
			t.Errorf("nameWidth(%d) = %d, want %d", tc.term, got, tc.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the bar's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// gatedWriter holds the writes that cross each offset in gates until the
// test releases them, so the test sees the bar while an entry is read.
type gatedWriter struct {
	n       int64
	gates   []int64
	reached chan int64
	release chan struct{}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	if len(g.gates) > 0 && g.n+int64(len(p)) > g.gates[0] {
		g.gates = g.gates[1:]
		g.reached <- g.n
		<-g.release
	}
	g.n += int64(len(p))
	return len(p), nil
}

// storedZip writes a zip of the named entries, each size bytes, stored.
func storedZip(t *testing.T, dir string, size int, names ...string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(bytes.Repeat([]byte{byte('a' + i)}, size))
	}
	zw.Close()
	return write(t, dir, "big.zip", buf.Bytes())
}

// waitFor polls s until it holds want, failing after a timeout.
func waitFor(t *testing.T, s *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr never showed %q: %q", want, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestProgressShowsEntries runs `x -c` on a fake terminal and holds the
// output while each entry is written: the bar must name that entry, with
// the rate and the time left; colour follows NO_COLOR and TERM; the bar is
// cleared at the end.
func TestProgressShowsEntries(t *testing.T) {
	const size = 1 << 20
	arch := storedZip(t, t.TempDir(), size, "first.bin", "dir/second.bin")
	for _, tc := range []struct {
		name  string
		env   map[string]string
		color bool
	}{
		{"colour", map[string]string{"TERM": "xterm-256color"}, true},
		{"NO_COLOR", map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, false},
		{"dumb terminal", map[string]string{"TERM": "dumb"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := &gatedWriter{gates: []int64{0, size}, reached: make(chan int64), release: make(chan struct{})}
			errOut := &syncBuffer{}
			f := &Factory{In: strings.NewReader(""), Out: out, ErrOut: errOut, ErrIsTerminal: true,
				TermWidth: func() int { return 100 }, Getenv: func(k string) string { return tc.env[k] },
				Context: context.Background()}
			codec := make(chan ExitCode, 1)
			go func() { codec <- Run(f, []string{"x", "-c", arch}) }()
			for _, name := range []string{"first.bin", "dir/second.bin"} {
				<-out.reached
				waitFor(t, errOut, barLabel(name, nameWidth(100)))
				out.release <- struct{}{}
			}
			if code := <-codec; code != ExitOK {
				t.Fatalf("exit %d: %q", code, errOut.String())
			}
			if out.n != 2*size {
				t.Errorf("wrote %d bytes, want %d", out.n, 2*size)
			}
			got := errOut.String()
			if !strings.Contains(got, "iB/s") || !strings.Contains(got, "%") {
				t.Errorf("no rate or percentage: %q", got)
			}
			if hasColor := strings.Contains(got, "\x1b["); hasColor != tc.color {
				t.Errorf("colour codes: %v, want %v: %q", hasColor, tc.color, got)
			}
			// Cleared: the last line drawn is blanks, back at column 0.
			last := got[strings.LastIndexByte(got[:len(got)-1], '\r')+1:]
			if strings.TrimSpace(last) != "" || !strings.HasSuffix(got, "\r") {
				t.Errorf("bar not cleared at the end: %q", last)
			}
		})
	}
}

// TestProgressQuietWhenNotATerminal checks that nothing but errors reach a
// stderr that is not a terminal, that -v names entries instead, and that
// a terminal gets no bar with -q or --json.
func TestProgressQuietWhenNotATerminal(t *testing.T) {
	dir := t.TempDir()
	arch := storedZip(t, dir, 1000, "a.bin", "b.bin")
	for _, tc := range []struct {
		name     string
		terminal bool
		args     []string
		want     string
	}{
		{"pipe", false, []string{"x", arch, "-o", "out1"}, ""},
		{"pipe verify", false, []string{"t", arch}, ""},
		{"pipe -v", false, []string{"x", "-v", arch, "-o", "out2"}, "a.bin\nb.bin\n"},
		{"terminal -v", true, []string{"x", "-v", arch, "-o", "out3"}, "a.bin\nb.bin\n"},
		{"terminal -q", true, []string{"x", "-q", arch, "-o", "out4"}, ""},
		{"terminal --json", true, []string{"t", "--json", arch}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, ErrIsTerminal: tc.terminal,
				Getenv: func(string) string { return "" }, Context: context.Background()}
			args := append([]string(nil), tc.args...)
			for i, a := range args {
				if strings.HasPrefix(a, "out") {
					args[i] = filepath.Join(dir, a)
				}
			}
			if code := Run(f, args); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			// Entries extracted on several cores are named in any order.
			lines := strings.SplitAfter(errOut.String(), "\n")
			slices.Sort(lines)
			if got := strings.Join(lines, ""); got != tc.want {
				t.Errorf("stderr %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "out1", "a.bin")); err != nil {
		t.Error(err)
	}
}

// TestProgressClearedForProblems checks that a problem reported while the
// bar is shown starts on a cleared line, not after the bar's text.
func TestProgressClearedForProblems(t *testing.T) {
	const size = 1 << 20
	dir := t.TempDir()
	arch := storedZip(t, dir, size, "first.bin", "bad.bin")
	data, err := os.ReadFile(arch)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(data, []byte("bad.bin")) // the local header's name; the central one comes later
	i = bytes.LastIndex(data[:i], []byte("bad.bin"))
	data[i+len("bad.bin")+100] ^= 1 // a flipped bit in the stored data: a CRC mismatch
	write(t, dir, "big.zip", data)
	out := &gatedWriter{gates: []int64{0}, reached: make(chan int64), release: make(chan struct{})}
	errOut := &syncBuffer{}
	f := &Factory{In: strings.NewReader(""), Out: out, ErrOut: errOut, ErrIsTerminal: true,
		Getenv: func(string) string { return "" }, Context: context.Background()}
	codec := make(chan ExitCode, 1)
	go func() { codec <- Run(f, []string{"x", "-c", arch}) }()
	<-out.reached
	waitFor(t, errOut, "first.bin")
	out.release <- struct{}{}
	if code := <-codec; code != ExitCorrupt {
		t.Fatalf("exit %d, want %d: %q", code, ExitCorrupt, errOut.String())
	}
	got := errOut.String()
	at := strings.Index(got, "unpack: "+arch+": bad.bin: ")
	if at < 0 {
		t.Fatalf("no problem line: %q", got)
	}
	// On the terminal, the line holds what follows its last \r: that must be
	// nothing, after a run of blanks as wide as any bar drawn before.
	segs := strings.Split(got[strings.LastIndexByte(got[:at], '\n')+1:at], "\r")
	n := len(segs)
	widest := 0
	for _, s := range segs {
		widest = max(widest, utf8.RuneCountInString(s))
	}
	if n < 2 || segs[n-1] != "" || strings.Trim(segs[n-2], " ") != "" || len(segs[n-2]) < widest {
		t.Errorf("the problem line does not start on a cleared line: %q", segs)
	}
}

// TestProgressBarFits draws the bar on terminals of several widths: the
// line never reaches the last column, and the bar narrows before it goes.
func TestProgressBarFits(t *testing.T) {
	for _, cols := range []int{20, 40, 60, 80, 100, 200} {
		for _, color := range []bool{false, true} {
			var buf bytes.Buffer
			b := &progressBar{w: &buf, cols: cols, total: 3 << 30, color: color,
				label: barLabel("some/dir/file.bin", nameWidth(cols)), start: time.Now().Add(-3 * time.Second)}
			b.draw(1 << 30)
			line := strings.TrimPrefix(buf.String(), "\r")
			line = strings.NewReplacer("\x1b[32m", "", "\x1b[0m", "").Replace(line)
			if n := utf8.RuneCountInString(line); n > cols-1 {
				t.Errorf("%d columns, colour %v: line of %d: %q", cols, color, n, line)
			}
			if cols >= 100 && !strings.Contains(line, "[==") {
				t.Errorf("%d columns: no bar: %q", cols, line)
			}
			if cols >= 80 && !strings.Contains(line, "1.0 GiB/3.0 GiB") {
				t.Errorf("%d columns: no sizes: %q", cols, line)
			}
		}
	}
}
