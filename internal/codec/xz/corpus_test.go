package xz

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// TestCorpus runs every xz file of the shared corpus: good files decode
// byte-exact, bad ones fail as corrupt or with a checksum mismatch,
// unsupported ones as unsupported. unsupported-check.xz has a check ID xz
// does not define: like xz, it decodes with a warning that nothing was
// verified.
func TestCorpus(t *testing.T) {
	for _, row := range testutil.Manifest(t) {
		if row.Format != "xz" || !row.IsFirstOfUnit() {
			continue
		}
		base := filepath.Base(row.Path)
		t.Run(strings.TrimPrefix(row.Local, "files/"), func(t *testing.T) {
			data, err := os.ReadFile(row.Path)
			if err != nil {
				t.Fatal(err)
			}
			for _, threads := range []int{1, 2} {
				var warnings []string
				cfg := Config{Threads: threads, Warn: func(s string) { warnings = append(warnings, s) }}
				sum, _, err := decode(t, bytes.NewReader(data), cfg, plain)
				switch {
				case base == "unsupported-check.xz":
					if err != nil || len(warnings) != 1 {
						t.Fatalf("err %v, warnings %q; want a decode with one warning", err, warnings)
					}
				case row.Expect == "ok":
					if err != nil {
						t.Fatal(err)
					}
					want, err := testutil.ExpectedFiles(row.Expected)
					if err != nil || want == nil {
						t.Fatalf("no expected sums: %v", err)
					}
					if sum != want["<stream>"] {
						t.Fatalf("sha256 %s, want %s", sum, want["<stream>"])
					}
				case row.Expect == "must-fail":
					if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, verify.ErrChecksum) {
						t.Fatalf("err = %v, want ErrCorrupt or ErrChecksum", err)
					}
				case row.Expect == "unsupported":
					if !errors.Is(err, archive.ErrUnsupported) {
						t.Fatalf("err = %v, want ErrUnsupported", err)
					}
				default:
					if err != nil && !isCategorized(err) {
						t.Fatalf("uncategorized error %v", err)
					}
				}
			}
		})
	}
}
