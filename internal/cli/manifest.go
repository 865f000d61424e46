package cli

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/termtext"
	"github.com/unpack-dev/unpack/internal/verify"
)

// printManifest writes sums as sha256sum does: "HEX  NAME", sorted by name.
// A name that needs escaping is escaped (termtext) and its line starts
// with a backslash: for backslash, newline and carriage return the escapes
// are coreutils' own (sha256sum 9 escapes exactly these); a name holding
// other controls gets escapes sha256sum -c does not read (it reports the
// line as improperly formatted) rather than reaching a terminal raw.
func printManifest(w io.Writer, sums map[string]string) {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	bw := bufio.NewWriter(w)
	for _, n := range names {
		if esc := termtext.Escape(n); esc != n {
			fmt.Fprintf(bw, "\\%s  %s\n", sums[n], esc)
			continue
		}
		fmt.Fprintf(bw, "%s  %s\n", sums[n], n)
	}
	bw.Flush()
}

// readManifest reads sha256sum output ("HEX  NAME" or "HEX *NAME", escaped
// lines starting with a backslash) or BSD-style "SHA256 (NAME) = HEX".
func readManifest(p string) (map[string]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "SHA256 ("); ok {
			if i := strings.LastIndex(rest, ") = "); i >= 0 {
				m[cleanManifestName(rest[:i])] = strings.ToLower(rest[i+4:])
				continue
			}
		}
		escaped := strings.HasPrefix(line, "\\")
		line = strings.TrimPrefix(line, "\\")
		if len(line) < 66 || (line[64] != ' ') || (line[65] != ' ' && line[65] != '*') {
			return nil, fmt.Errorf("%s:%d: not a sha256sum line", p, ln)
		}
		name := line[66:]
		if escaped {
			var ok bool
			if name, ok = termtext.Unescape(name); !ok {
				return nil, fmt.Errorf("%s:%d: bad escape in an escaped sha256sum line", p, ln)
			}
		}
		m[cleanManifestName(name)] = strings.ToLower(line[:64])
	}
	return m, sc.Err()
}

func cleanManifestName(n string) string {
	return strings.TrimPrefix(path.Clean(strings.TrimPrefix(n, "./")), "/")
}

// compareManifest reports, one line each, manifest files missing from the
// archive, archive files the manifest lacks and files whose SHA-256 differs.
func (r *runner) compareManifest(arch string, want map[string]string) {
	got := map[string]string{}
	for n, s := range r.sums.all() {
		got[cleanManifestName(n)] = s
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		w, inWant := want[n]
		g, inGot := got[n]
		switch {
		case !inGot:
			r.problem(arch, n, archive.Corruptf("missing: listed in the manifest, not in the archive"))
		case !inWant:
			r.problem(arch, n, archive.Corruptf("extra: in the archive, not in the manifest"))
		case w != g:
			r.problem(arch, n, archive.Errorf(archive.ErrChecksum, "SHA-256 differs from the manifest: expected %s, actual %s", w, g))
		}
	}
}

// sumBook is the SHA-256 of each entry's data, collected for --manifest
// and --expect; the entries of one archive may be hashed on several
// goroutines. A nil *sumBook collects nothing.
type sumBook struct {
	mu sync.Mutex
	m  map[string]string
}

// hashing returns data wrapped so that its SHA-256 is recorded for name
// when it has been read to the end.
func (b *sumBook) hashing(name string, data io.Reader) io.Reader {
	if b == nil {
		return data
	}
	return &archive.Hashed{R: data, H: verify.New(verify.SHA256), Done: func(sum []byte) {
		b.mu.Lock()
		b.m[name] = hex.EncodeToString(sum)
		b.mu.Unlock()
	}}
}

// link records for a hard link the sum of its target.
func (b *sumBook) link(name, target string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.m[cleanManifestName(target)]; ok {
		b.m[name] = s
	} else if s, ok := b.m[target]; ok {
		b.m[name] = s
	}
}

// drop forgets the sum of an entry that failed after it was read.
func (b *sumBook) drop(name string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	delete(b.m, name)
	b.mu.Unlock()
}

// get is the recorded sum of an entry ("" when none).
func (b *sumBook) get(name string) string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.m[name]
}

// all returns the sums recorded; the caller may not change them.
func (b *sumBook) all() map[string]string {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.m
}
