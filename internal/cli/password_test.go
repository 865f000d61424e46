package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// pwFixtures are archives made by scripts/testdata/cli.sh, each with the
// password "secret", and the check that accepts a candidate.
var pwFixtures = []struct{ file, check string }{
	{"pw-zipcrypto.zip", "ZipCrypto check byte"},
	{"pw-winzipaes.zip", "WinZip AES verifier"},
	{"pw-data.7z", "7z folder CRC"},
	{"pw-header.7z", "7z header CRC"},
}

// TestPasswordCandidates checks that the candidate that passed a format's
// own check is named by number on stderr, never by value.
func TestPasswordCandidates(t *testing.T) {
	pwFile := write(t, t.TempDir(), "pw.txt", []byte("nope\r\nother\n\nsecret\nlast\n"))
	for _, fx := range pwFixtures {
		arch := filepath.Join("testdata", fx.file)
		for _, tc := range []struct {
			name   string
			args   []string
			code   ExitCode
			report string // "" when no line is expected
		}{
			{"second of three", []string{"--password=nope", "--password=secret", "--password=other"}, ExitOK, "password candidate 2 of 3 accepted"},
			{"first of two", []string{"--password=secret", "--password=nope"}, ExitOK, "password candidate 1 of 2 accepted"},
			{"last of three", []string{"--password=nope", "--password=other", "--password=secret"}, ExitOK, "password candidate 3 of 3 accepted"},
			{"only one", []string{"--password=secret"}, ExitOK, ""},
			{"none right", []string{"--password=nope", "--password=other"}, ExitPassword, ""},
			{"quiet", []string{"-q", "--password=nope", "--password=secret"}, ExitOK, ""},
			{"short flag", []string{"-p=nope", "-p=secret"}, ExitOK, "password candidate 2 of 2 accepted"},
			{"file", []string{"--password-file", pwFile}, ExitOK, "password candidate 3 of 4 accepted"},
		} {
			t.Run(fx.file+"/"+tc.name, func(t *testing.T) {
				for _, cmd := range []string{"t", "x"} {
					args := append([]string{cmd, arch}, tc.args...)
					if cmd == "x" {
						args = append(args, "-o", t.TempDir())
					}
					code, stdout, stderr := run(t, nil, args...)
					if code != tc.code {
						t.Fatalf("%s: exit %d, want %d: %s%s", cmd, code, tc.code, stdout, stderr)
					}
					got := strings.Count(stderr, "accepted")
					switch {
					case tc.report == "" && got != 0:
						t.Errorf("%s: unexpected report: %q", cmd, stderr)
					case tc.report != "" && (got != 1 || !strings.Contains(stderr, "unpack: "+arch+": "+tc.report+"\n")):
						t.Errorf("%s: stderr %q, want one line %q (%s)", cmd, stderr, tc.report, fx.check)
					}
					if strings.Contains(stderr+stdout, "secret") {
						t.Errorf("%s: the password was printed: %q", cmd, stderr+stdout)
					}
				}
			})
		}
	}
}

// TestPasswordCandidateVerbose checks that -v reports a lone candidate too,
// and that a format without a check of its own (7z data, one candidate:
// nothing is tried before decoding) reports none rather than a guess.
func TestPasswordCandidateVerbose(t *testing.T) {
	for _, fx := range pwFixtures {
		code, _, stderr := run(t, nil, "t", "-v", filepath.Join("testdata", fx.file), "--password=secret")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", fx.file, code, stderr)
		}
		want := fx.file != "pw-data.7z"
		if got := strings.Contains(stderr, "password candidate 1 of 1 accepted"); got != want {
			t.Errorf("%s: report %v, want %v: %q", fx.file, got, want, stderr)
		}
	}
}

// TestPasswordCandidatesCorpus runs the encrypted RAR rows of the shared
// corpus with the right password among wrong ones (RAR 5 check value,
// RAR 3 encrypted-header CRC).
func TestPasswordCandidatesCorpus(t *testing.T) {
	n := 0
	for _, row := range testutil.Manifest(t) {
		if row.Format != "rar4" && row.Format != "rar5" || row.Password == "" || row.Expect != "ok" || !row.IsFirstOfUnit() {
			continue
		}
		// A check exists for RAR 5 entries and headers, and for RAR 3
		// encrypted headers; RAR 3 file data has none (the first candidate
		// is used), so those rows are left out.
		if row.Format == "rar4" && !row.HasFeature("encrypted-headers") {
			continue
		}
		n++
		rel := filepath.Base(row.Path)
		t.Run(rel, func(t *testing.T) {
			code, stdout, stderr := run(t, nil, "t", row.Path, "--password=x"+row.Password, "--password="+row.Password, "--password="+row.Password+"y")
			if code != ExitOK {
				t.Fatalf("exit %d: %s%s", code, stdout, stderr)
			}
			if want := "unpack: " + row.Path + ": password candidate 2 of 3 accepted\n"; !strings.Contains(stderr, want) {
				t.Errorf("stderr %q, want %q", stderr, want)
			}
			if strings.Contains(stderr+stdout, row.Password+"y") {
				t.Errorf("a password was printed: %q", stderr+stdout)
			}
		})
	}
	if n == 0 {
		t.Fatal("no encrypted RAR rows in the corpus")
	}
}

// TestBarePasswordHint checks that "-p secret a.zip", which pflag reads as
// a bare -p and two archives, ends with a hint rather than a bare "no such
// file", and that the hint does not repeat the word.
func TestBarePasswordHint(t *testing.T) {
	f := &Factory{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{},
		Getenv: func(string) string { return "" }, Context: t.Context(),
		Prompt: func(string) (string, error) { return "secret", nil }}
	code := Run(f, []string{"t", "-p", "hunter2", filepath.Join("testdata", "pw-zipcrypto.zip")})
	stderr := f.ErrOut.(*strings.Builder).String()
	hint := stderr[strings.Index(stderr, "(to give")+1:]
	if code != ExitError || strings.Count(stderr, "-p=PW or --password=PW") != 1 || strings.Contains(hint, "hunter2") {
		t.Errorf("exit %d, want %d: %q", code, ExitError, stderr)
	}
}

// TestPasswordCandidateJSON checks the summary's password_candidates.
func TestPasswordCandidateJSON(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--password=nope", "--password=secret"}, `"password_candidates":[2]`},
		{[]string{"--password=secret"}, `"password_candidates":[1]`},
		{[]string{"--password=nope"}, ""},
	} {
		args := append([]string{"t", "--json", filepath.Join("testdata", "pw-winzipaes.zip")}, tc.args...)
		_, stdout, _ := run(t, nil, args...)
		summary := stdout[strings.LastIndex(stdout, `{"summary"`):]
		if tc.want == "" && strings.Contains(summary, "password_candidates") || !strings.Contains(summary, tc.want) {
			t.Errorf("%q: summary %s", tc.args, summary)
		}
	}
}

// TestPasswordCandidatesMixed checks an archive whose entries need
// different candidates: both are named, in one line.
func TestPasswordCandidatesMixed(t *testing.T) {
	code, stdout, stderr := run(t, nil, "t", filepath.Join("testdata", "pw-mixed.zip"), "--password=nope", "--password=other", "--password=secret")
	if code != ExitOK {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if want := "password candidates 2, 3 of 3 accepted\n"; strings.Count(stderr, "accepted") != 1 || !strings.HasSuffix(stderr, want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

// TestPasswordCandidatesStdin covers the streaming readers (zip by local
// headers, 7z buffered from a pipe).
func TestPasswordCandidatesStdin(t *testing.T) {
	for _, fx := range pwFixtures {
		data, err := os.ReadFile(filepath.Join("testdata", fx.file))
		if err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(t, bytes.NewReader(data), "t", "-", "--password=nope", "--password=secret")
		if code != ExitOK || !strings.Contains(stderr, "unpack: -: password candidate 2 of 2 accepted\n") {
			t.Errorf("%s: exit %d: %s%s", fx.file, code, stdout, stderr)
		}
	}
}
