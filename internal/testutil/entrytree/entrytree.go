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
// not the size its entry gives is an error.
func Read(r archive.Reader) (map[string]string, error) {
	t := map[string]string{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return t, err
		}
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			n, err := io.Copy(h, r)
			if err != nil {
				return t, fmt.Errorf("%s: %w", e.Name, err)
			}
			if n != e.Size {
				return t, fmt.Errorf("%s: %d bytes, entry says %d", e.Name, n, e.Size)
			}
			t[e.Name] = hex.EncodeToString(h.Sum(nil))
		case archive.TypeHardlink:
			t[e.Name] = t[e.Linkname]
		case archive.TypeSymlink:
			t["link "+e.Name] = e.Linkname
		}
	}
}

// Sized reads every entry of r: each file as "SHA256 SIZE", each symlink
// as "-> TARGET", any other entry by its type ("dir", "hardlink"). A file
// whose data is not the size its entry gives (when it gives one) is an
// error.
func Sized(r archive.Reader) (map[string]string, error) {
	t := map[string]string{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return t, err
		}
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			n, err := io.Copy(h, r)
			if err != nil {
				return t, fmt.Errorf("%s: %w", e.Name, err)
			}
			if e.Size >= 0 && n != e.Size {
				return t, fmt.Errorf("%s: %d bytes, entry says %d", e.Name, n, e.Size)
			}
			t[e.Name] = hex.EncodeToString(h.Sum(nil)) + " " + strconv.FormatInt(n, 10)
		case archive.TypeSymlink:
			t[e.Name] = "-> " + e.Linkname
		default:
			t[e.Name] = e.Type.String()
		}
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
