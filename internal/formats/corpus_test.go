package formats

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// knownFailures lists corpus rows (local_path) that are expected to fail for
// now, each with its reason, read from testdata/corpus-known-failures.txt.
func knownFailures(t *testing.T) map[string]string {
	m := map[string]string{}
	f, err := os.Open(filepath.Join("testdata", "corpus-known-failures.txt"))
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, why, _ := strings.Cut(line, "\t")
		m[p] = why
	}
	return m
}

// readAll opens path and hashes every regular file; links are collected.
func readAll(row testutil.Row) (files, links map[string]string, err error) {
	p := row.Path
	var unverified error
	opt := &archive.Options{Unverified: func(msg string) { unverified = archive.Unsupportedf("%s", msg) }}
	defer func() {
		if err == nil {
			err = unverified
		}
	}()
	if row.Password != "" {
		opt.Passwords = []string{row.Password}
	}
	oo := OpenOptions{}
	if row.Format == "br" {
		oo.Format = archive.Brotli // brotli has no magic; users name it with --format
	}
	if want, _ := testutil.ExpectedFiles(row.Expected); want != nil {
		_, oo.Raw = want["<stream>"]
	}
	a, err := Open(p, opt, oo)
	if err != nil {
		return nil, nil, err
	}
	defer a.Close()
	files, links = map[string]string{}, map[string]string{}
	wantLinks := testutil.ExpectedLinks(row.Expected)
	var firstErr error
	for {
		e, err := a.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return files, links, err
		}
		name := strings.TrimPrefix(path.Clean(strings.TrimPrefix(e.Name, "./")), "/")
		switch e.Type {
		case archive.TypeDir:
			delete(files, name) // as on disk: a later directory replaces a file
		case archive.TypeFile:
			h := sha256.New()
			if _, err := io.Copy(h, a); err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("%s: %w", e.Name, err)
				}
				continue
			}
			if e.Name == archive.StreamEntryName(p, a.Format) && !a.Tar && a.Format.Stream() {
				name = "<stream>"
			}
			files[name] = hex.EncodeToString(h.Sum(nil))
		case archive.TypeSymlink:
			links[name] = e.Linkname
		case archive.TypeHardlink:
			// Extracted as another name for the same file. Where the corpus
			// lists it as a link (RAR hard links and file copies), compare it
			// as one; else as a file with its target's content.
			target := strings.TrimPrefix(path.Clean(strings.TrimPrefix(e.Linkname, "./")), "/")
			if _, listed := wantLinks[name]; listed {
				links[name] = e.Linkname
			} else if sum, ok := files[target]; ok {
				files[name] = sum
			}
		}
	}
	return files, links, firstErr
}

// rowFormat is the format a manifest row names ("zip", "rar5", "tar.gz",
// "cab"): a format's own name, or the format whose suffix is the name's
// last part; Unknown for a format unpack does not know.
func rowFormat(name string) archive.Format {
	if f := archive.Format(name); f != archive.Unknown && slices.Contains(All(), f) {
		return f
	}
	last := "." + name[strings.LastIndexByte(name, '.')+1:]
	for f, sfx := range archive.Suffixes {
		if slices.Contains(sfx, last) {
			return f
		}
	}
	return archive.Unknown
}

// TestCorpus runs every row of the shared corpus whose format is implemented
// and checks its expected outcome: the same files with the same SHA-256, or
// the expected failure.
func TestCorpus(t *testing.T) {
	rows := testutil.Manifest(t)
	known := knownFailures(t)
	var passed, failed, skipped, knownFailed int
	for _, row := range rows {
		if !row.IsFirstOfUnit() {
			continue
		}
		if f := rowFormat(row.Format); f == archive.Unknown || !Implemented(f) {
			skipped++
			continue
		}
		if testing.Short() && row.HasFeature("large-entry") {
			skipped++ // 4 GiB of output: over the 3 minutes below under qemu-s390x
			continue
		}
		res := make(chan error, 1)
		var files, links map[string]string
		go func() {
			defer func() {
				if p := recover(); p != nil {
					res <- fmt.Errorf("PANIC: %v", p)
				}
			}()
			var err error
			files, links, err = readAll(row)
			res <- err
		}()
		var err error
		select {
		case err = <-res:
		case <-time.After(3 * time.Minute):
			t.Errorf("%s: hang (no result in 3 minutes)", row.Local)
			failed++
			continue
		}
		if errors.Is(err, ErrNotImplemented) {
			skipped++
			continue
		}
		verdict := judge(row, files, links, err)
		if why, ok := known[row.Local]; ok {
			if verdict == "" {
				t.Logf("%s: listed as a known failure (%s) but passes now", row.Local, why)
				passed++
			} else {
				knownFailed++
			}
			continue
		}
		if verdict != "" {
			failed++
			t.Errorf("%s [%s, expect %s]: %s", row.Local, row.Format, row.Expect, verdict)
			continue
		}
		passed++
	}
	t.Logf("corpus: %d passed, %d failed, %d known failures, %d skipped (format not implemented)",
		passed, failed, knownFailed, skipped)
	fmt.Printf("corpus: %d passed, %d failed, %d known failures, %d skipped (format not implemented)\n",
		passed, failed, knownFailed, skipped)
}

// judge returns "" when the outcome matches the row's expectation, else why not.
func judge(row testutil.Row, files, links map[string]string, err error) string {
	if err != nil && strings.HasPrefix(err.Error(), "PANIC") {
		return err.Error()
	}
	switch row.Expect {
	case "ok", "ok?":
		if err != nil {
			return "failed: " + err.Error()
		}
		want, rerr := testutil.ExpectedFiles(row.Expected)
		if rerr != nil {
			return rerr.Error()
		}
		matched := map[string]bool{}
		for name, sum := range want {
			got, ok := files[name]
			if !ok && !utf8.ValidString(name) {
				// The reference tools wrote undeclared legacy names as raw
				// bytes; we decode them (CP437 in zip). Match by content.
				for n, s := range files {
					if s == sum && !matched[n] {
						if _, exact := want[n]; !exact {
							got, ok, name = s, true, n
							break
						}
					}
				}
			}
			if !ok {
				return "missing file " + name
			}
			matched[name] = true
			if got != sum {
				return "content differs: " + name
			}
		}
		// A RAR 5 file copy the corpus lists as a link is read as an
		// independent file with its source's content (as unrar makes it).
		wantLinks := testutil.ExpectedLinks(row.Expected)
		for name, target := range wantLinks {
			if _, ok := links[name]; !ok && want != nil && files[name] != "" && files[name] == want[target] {
				matched[name] = true
				delete(wantLinks, name)
			}
		}
		for name := range files {
			if _, ok := want[name]; !ok && want != nil && !matched[name] {
				return "unexpected file " + name
			}
		}
		for name, target := range wantLinks {
			if links[name] != target {
				return fmt.Sprintf("link %s: got %q, want %q", name, links[name], target)
			}
		}
	case "must-fail":
		if err == nil {
			return "succeeded, but the file is invalid"
		}
	case "unsupported":
		if err == nil {
			return "succeeded, but should be refused as unsupported"
		}
	case "needs-password":
		if !errors.Is(err, archive.ErrNeedPassword) && !errors.Is(err, archive.ErrPassword) {
			return fmt.Sprintf("want a password error, got %v", err)
		}
	}
	return ""
}
