package verify

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hashImports are the standard-library hashes a format must not use for a
// checksum: they are reached through this package instead.
var hashImports = map[string]bool{
	"hash/crc32":    true,
	"hash/crc64":    true,
	"hash/adler32":  true,
	"crypto/sha256": true,
}

// algorithmicImports lists, per file (relative to internal/), the hash
// imports that are part of an algorithm rather than a checksum, each with
// the reason; a comment at the import says the same.
var algorithmicImports = map[string]map[string]string{
	"codec/zip/crypto.go":               {"hash/crc32": "ZipCrypto key schedule"},
	"codec/rar/rar4/unpack29_filter.go": {"hash/crc32": "RAR 3 VM standard-filter identification"},
	"codec/sevenzip/aes.go":             {"crypto/sha256": "7z AES key derivation"},
}

// TestChecksumsGoThroughVerify fails when a non-test file under
// internal/codec, internal/formats or internal/cli imports a standard hash
// package outside algorithmicImports, so that every checksum the formats
// carry keeps going through this package. It also fails on allow-list
// entries that no longer match an import, so the list stays tight.
func TestChecksumsGoThroughVerify(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range []string{"codec", "formats", "cli"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if name := d.Name(); name == "testdata" || strings.HasPrefix(name, "_") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !hashImports[p] {
					continue
				}
				if _, ok := algorithmicImports[rel][p]; ok {
					used[rel+" "+p] = true
					continue
				}
				t.Errorf("%s imports %s: route the checksum through internal/verify (SumCRC32, UpdateCRC32, NewCRC32, UpdateCRC64, New), or, if it is part of an algorithm, add it to algorithmicImports with the reason", rel, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for file, imps := range algorithmicImports {
		for p := range imps {
			if !used[file+" "+p] {
				t.Errorf("algorithmicImports lists %s in %s, which no longer imports it: drop the entry", p, file)
			}
		}
	}
}
