// Package entrytree reads an archive.Reader into a map of entry sums for
// tests (its own package: testutil is imported by archive's dependencies).
package entrytree

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Read reads every entry of r: each file's SHA-256 (a hard link takes its
// target's), each symlink as "link NAME" → target. A file whose data is
// not the size its entry gives (when it gives one) is an error.
func Read(r archive.Reader) (map[string]string, error) {
	t := map[string]string{}
	return t, walk(r, func(e *archive.Entry, sum string, _ int64) {
		switch e.Type {
		case archive.TypeFile:
			t[e.Name] = sum
		case archive.TypeHardlink:
			t[e.Name] = t[e.Linkname]
		case archive.TypeSymlink:
			t["link "+e.Name] = e.Linkname
		}
	})
}

// Sized reads every entry of r: each file as "SHA256 SIZE", each symlink
// as "-> TARGET", any other entry by its type ("dir", "hardlink"). A file
// whose data is not the size its entry gives (when it gives one) is an
// error.
func Sized(r archive.Reader) (map[string]string, error) {
	t := map[string]string{}
	return t, walk(r, func(e *archive.Entry, sum string, n int64) {
		switch e.Type {
		case archive.TypeFile:
			t[e.Name] = sum + " " + strconv.FormatInt(n, 10)
		case archive.TypeSymlink:
			t[e.Name] = "-> " + e.Linkname
		default:
			t[e.Name] = e.Type.String()
		}
	})
}

// walk calls f for every entry of r, with a file's SHA-256 (hex) and
// length as read from r, up to r's end (nil) or first error.
func walk(r archive.Reader, f func(e *archive.Entry, sum string, n int64)) error {
	for {
		e, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var sum string
		var n int64
		if e.Type == archive.TypeFile {
			h := sha256.New()
			if n, err = io.Copy(h, r); err != nil {
				return fmt.Errorf("%s: %w", e.Name, err)
			}
			if e.Size >= 0 && n != e.Size {
				return fmt.Errorf("%s: %d bytes, entry says %d", e.Name, n, e.Size)
			}
			sum = hex.EncodeToString(h.Sum(nil))
		}
		f(e, sum, n)
	}
}

// Show prints what Read gives one sorted "NAME VALUE" line per entry.
func Show(t map[string]string) string {
	var s []string
	for k, v := range t {
		s = append(s, k+" "+v)
	}
	sort.Strings(s)
	return strings.Join(s, "\n")
}
