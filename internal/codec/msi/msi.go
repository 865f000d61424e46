// Package msi reads a Windows Installer database (.msi) as the file tree
// it installs, as msitools' msiextract does: the Directory, Component and
// File tables (decoded from the string pool and the _Columns definitions
// in the compound file) give each file's path with its long names, and
// the files' data come from the cabinets the Media table names, embedded
// ("#name", a stream of the database) or beside the .msi. The cabinets'
// own checks (CFDATA checksums) are verified by the cab reader, and each
// file's MD5, when the MsiFileHash table lists it, as its data end.
package msi

import (
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/cab"
	"github.com/unpack-dev/unpack/internal/codec/cfb"
	"github.com/unpack-dev/unpack/internal/verify"
)

func isUTF8(s string) bool { return utf8.ValidString(s) }

// maxDepth bounds the nesting of the Directory table.
const maxDepth = 256

// Reader is an archive.Reader over the files an MSI installs.
type Reader struct {
	d      *db
	opt    *archive.Options
	dir    string            // where external cabinets are looked for
	names  map[string]string // File key -> path
	cabs   []string          // the Media table's cabinets, in order
	i      int               // next cabinet
	cur    *cab.Reader
	closer io.Closer
	md5s   map[string][]byte // File key -> MD5, from MsiFileHash
	hash   hash.Hash         // of the current file, when listed there
	want   []byte
}

// Open reads the database in in (a seekable file).
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if in.RA == nil {
		return nil, archive.Unsupportedf("msi: installer databases are read from a file, not a pipe")
	}
	f, err := cfb.OpenFile(in.RA, in.Size, opt.Limit())
	if err != nil {
		return nil, err
	}
	return NewReader(f, filepath.Dir(in.Path), opt)
}

// NewReader reads the tables of the database f; external cabinets are
// looked for in dir.
func NewReader(f *cfb.File, dir string, opt *archive.Options) (*Reader, error) {
	d := &db{f: f, streams: map[string]*cfb.Entry{}, limit: opt.Limit()}
	for _, e := range f.Entries {
		if e.Parent == nil && !e.Storage {
			d.streams[cfb.DisplayName(e.Name, true)] = e
		}
	}
	if err := d.loadStrings(); err != nil {
		return nil, err
	}
	if err := d.loadColumns(); err != nil {
		return nil, err
	}
	r := &Reader{d: d, opt: opt, dir: dir}
	if err := r.resolve(); err != nil {
		return nil, err
	}
	return r, nil
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// longName is the long part of a "short|long" name.
func longName(s string) string {
	if _, long, ok := strings.Cut(s, "|"); ok {
		return long
	}
	return s
}

// resolve maps every File key to its installed path, and lists the
// cabinets.
func (r *Reader) resolve() error {
	dirs, err := r.d.table("Directory")
	if err != nil {
		return err
	}
	byID := map[string]map[string]any{}
	for _, d := range dirs {
		byID[str(d, "Directory")] = d
	}
	// dirName is a directory's own part of the path: "" for ".", and
	// ok false for the root (SourceDir).
	dirName := func(d map[string]any) (string, bool) {
		if str(d, "Directory") == "ProgramFilesFolder" {
			return "Program Files", true
		}
		target, _, _ := strings.Cut(str(d, "DefaultDir"), ":")
		name := longName(target)
		switch name {
		case ".":
			return "", true
		case "SourceDir":
			return "", false
		}
		return name, true
	}
	// Each directory's path is its parent's and its own name, memoised;
	// a loop in the parents ends the walk, as msiextract's does, and
	// nesting is bounded (a path is as long as its depth).
	dirPath := map[string]string{}
	resolveDir := func(id string) (string, error) {
		var chain []map[string]any // from id up to a resolved directory or the root
		seen := map[string]bool{}
		base := ""
		for d := byID[id]; d != nil; d = byID[str(d, "Directory_Parent")] {
			did := str(d, "Directory")
			if p, ok := dirPath[did]; ok {
				base = p
				break
			}
			if seen[did] {
				break
			}
			seen[did] = true
			if len(chain) >= maxDepth {
				return "", archive.Limitf("msi: directories nested deeper than %d", maxDepth)
			}
			chain = append(chain, d)
			if _, ok := dirName(d); !ok {
				break // the root
			}
		}
		p := base
		for i := len(chain) - 1; i >= 0; i-- {
			if name, ok := dirName(chain[i]); ok && name != "" {
				p = path.Join(p, name)
			}
			dirPath[str(chain[i], "Directory")] = p
		}
		return p, nil
	}
	comps, err := r.d.table("Component")
	if err != nil {
		return err
	}
	compDir := map[string]string{}
	for _, c := range comps {
		p, err := resolveDir(str(c, "Directory_"))
		if err != nil {
			return err
		}
		compDir[str(c, "Component")] = p
	}
	files, err := r.d.table("File")
	if err != nil {
		return err
	}
	r.names = map[string]string{}
	for _, f := range files {
		r.names[str(f, "File")] = path.Join(compDir[str(f, "Component_")], longName(str(f, "FileName")))
	}
	hashes, err := r.d.table("MsiFileHash")
	if err != nil {
		return err
	}
	r.md5s = map[string][]byte{}
	for _, h := range hashes {
		var sum []byte
		for _, k := range []string{"HashPart1", "HashPart2", "HashPart3", "HashPart4"} {
			v, _ := h[k].(int)
			sum = binary.LittleEndian.AppendUint32(sum, uint32(int32(v)))
		}
		r.md5s[str(h, "File_")] = sum
	}
	media, err := r.d.table("Media")
	if err != nil {
		return err
	}
	for _, m := range media {
		if c := str(m, "Cabinet"); c != "" {
			r.cabs = append(r.cabs, c)
		}
	}
	return nil
}

// openCab opens cabinet c: "#name" a stream of the database, else a file
// beside it.
func (r *Reader) openCab(c string) error {
	if name, ok := strings.CutPrefix(c, "#"); ok {
		e, ok := r.d.streams[name]
		if !ok {
			return archive.Corruptf("msi: embedded cabinet %s missing", name)
		}
		ra, err := r.d.f.ReaderAt(e)
		if err != nil {
			return err
		}
		cr, err := cab.NewReader(ra, e.Size, r.opt)
		if err != nil {
			return err
		}
		r.cur = cr
		return nil
	}
	if strings.ContainsAny(c, `/\`) || c == ".." {
		return archive.Corruptf("msi: cabinet name %q is a path", c)
	}
	f, err := r.opt.Open(filepath.Join(r.dir, c))
	if err != nil {
		if os.IsNotExist(err) {
			return archive.Errorf(archive.ErrMissingVolume, "msi: external cabinet %s not found beside the database", c)
		}
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	cr, err := cab.NewReader(f, fi.Size(), r.opt)
	if err != nil {
		f.Close()
		return err
	}
	r.cur, r.closer = cr, f
	return nil
}

func (r *Reader) closeCab() {
	if r.cur != nil {
		r.cur.Close()
		r.cur = nil
	}
	if r.closer != nil {
		r.closer.Close()
		r.closer = nil
	}
}

// Next returns the next installed file.
func (r *Reader) Next() (*archive.Entry, error) {
	for {
		if r.cur == nil {
			if r.i >= len(r.cabs) {
				return nil, io.EOF
			}
			r.i++
			if err := r.openCab(r.cabs[r.i-1]); err != nil {
				return nil, err
			}
		}
		e, err := r.cur.Next()
		if err == io.EOF {
			r.closeCab()
			continue
		}
		if err != nil {
			return nil, err
		}
		c := *e
		if p, ok := r.names[e.Name]; ok {
			c.Name = p
		}
		r.hash, r.want = nil, nil
		if sum, ok := r.md5s[e.Name]; ok {
			c.Checksum, c.ChecksumValue = verify.MD5, sum
			r.hash, r.want = verify.New(verify.MD5), sum
		}
		return &c, nil
	}
}

// Read reads the current file's data.
func (r *Reader) Read(p []byte) (int, error) {
	if r.cur == nil {
		return 0, io.EOF
	}
	n, err := r.cur.Read(p)
	if r.hash != nil {
		r.hash.Write(p[:n])
		if err == io.EOF {
			h := r.hash
			r.hash = nil
			if cerr := verify.Check(verify.MD5, h, r.want); cerr != nil {
				return n, fmt.Errorf("msi: MsiFileHash: %w", cerr)
			}
		}
	}
	return n, err
}

// Close closes the open cabinet.
func (r *Reader) Close() error {
	r.closeCab()
	return nil
}
