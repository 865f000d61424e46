package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/termtext"
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
	for n, s := range r.sums {
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
