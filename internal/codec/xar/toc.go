package xar

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// toc is what the table of contents says.
type toc struct {
	checkOffset, checkSize int64 // the TOC checksum in the heap; size -1: none
	files                  []*file
	digest                 []byte // of the compressed TOC, by the header's algorithm
}

// file is one <file> element, its path joined from its ancestors' names.
type file struct {
	id       string
	name     string // its own name, then (after paths) its full path
	typ      string
	mode     fs.FileMode
	hasMode  bool
	mtime    time.Time
	atime    time.Time
	link     string // symlink target
	linkTo   string // hard link: "original", or the id of the original
	data     *extent
	eas      []*extent // extended attributes' data, checked, not extracted
	depth    int
	children int
}

// extent is a <data> element: where a file's encoded data lie in the heap
// and how they are checked.
type extent struct {
	length, offset, size int64
	encoding             string // the <encoding style>, "" for none given
	archived, extracted  checksum
}

// checksum is an archived- or extracted-checksum.
type checksum struct {
	kind verify.Kind
	want []byte
}

// maxDepth bounds the nesting of <file> elements.
const maxDepth = 1024

// parseTOC reads the decompressed TOC. pathBudget bounds the bytes of all
// the files' paths together (which nesting multiplies).
func parseTOC(b []byte, pathBudget int64) (*toc, error) {
	t := &toc{checkSize: -1}
	d := xml.NewDecoder(bytes.NewReader(b))
	var (
		stack []string // element names from the root
		files []*file  // enclosing <file> elements
		text  []byte
		attrs []xml.Attr
		base  bool // the current <name> is base64
	)
	cur := func() *file {
		if len(files) == 0 {
			return nil
		}
		return files[len(files)-1]
	}
	parent := func(n int) string { // the element n levels above the current one
		if len(stack) > n {
			return stack[len(stack)-1-n]
		}
		return ""
	}
	for {
		tok, err := d.Token()
		if err == io.EOF && len(stack) == 0 {
			break
		}
		if err != nil {
			return nil, ErrTOC
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			name := tk.Name.Local
			stack = append(stack, name)
			text = text[:0]
			attrs = tk.Attr
			switch {
			case name == "file" && (parent(1) == "toc" || parent(1) == "file"):
				if len(files) >= maxDepth {
					return nil, archive.Limitf("xar: files nested deeper than %d", maxDepth)
				}
				f := &file{id: attr(tk.Attr, "id"), depth: len(files) + 1}
				if p := cur(); p != nil {
					p.children++
				}
				files = append(files, f)
				t.files = append(t.files, f)
			case name == "data" && parent(1) == "file":
				if f := cur(); f != nil {
					f.data = &extent{length: -1, offset: -1, size: -1}
				}
			case name == "ea" && parent(1) == "file":
				if f := cur(); f != nil {
					f.eas = append(f.eas, &extent{length: -1, offset: -1, size: -1})
				}
			case name == "encoding" && parent(2) == "file":
				if x := cur().extent(parent(1)); x != nil {
					x.encoding = attr(tk.Attr, "style")
				}
			case name == "name" && parent(1) == "file":
				base = attr(tk.Attr, "enctype") == "base64"
			case name == "type" && parent(1) == "file":
				if f := cur(); f != nil {
					f.linkTo = attr(tk.Attr, "link")
				}
			}
		case xml.CharData:
			text = append(text, tk...)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, ErrTOC
			}
			name := stack[len(stack)-1]
			s := strings.TrimSpace(string(text))
			text = text[:0]
			if err := t.set(cur(), name, parent(1), parent(2), s, attrs, base); err != nil {
				return nil, err
			}
			attrs = nil
			if name == "file" && len(files) > 0 && (parent(1) == "toc" || parent(1) == "file") {
				if files[len(files)-1].name == "" {
					return nil, archive.Corruptf("xar: a file without a name")
				}
				files = files[:len(files)-1]
			}
			stack = stack[:len(stack)-1]
		}
	}
	// A parent's name may follow its children: the paths are joined
	// once every name is known.
	if err := t.paths(pathBudget); err != nil {
		return nil, err
	}
	return t, nil
}

// set applies a leaf element's text.
func (t *toc) set(f *file, name, up, up2, s string, attrs []xml.Attr, base bool) error {
	if up == "checksum" && up2 == "toc" {
		v, err := number(s)
		if err != nil {
			return err
		}
		switch name {
		case "offset":
			t.checkOffset = v
		case "size":
			t.checkSize = v
		}
		return nil
	}
	if f == nil {
		return nil
	}
	if x := f.extent(up); x != nil && up2 == "file" {
		var err error
		switch name {
		case "length":
			x.length, err = number(s)
		case "offset":
			x.offset, err = number(s)
		case "size":
			x.size, err = number(s)
		case "archived-checksum":
			x.archived, err = parseChecksum(attr(attrs, "style"), s)
		case "extracted-checksum":
			x.extracted, err = parseChecksum(attr(attrs, "style"), s)
		}
		return err
	}
	if up != "file" {
		return nil
	}
	switch name {
	case "name":
		if f.name != "" {
			return nil // a repeated name (some writers do): the first counts
		}
		if base {
			v, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return ErrTOC
			}
			s = string(v)
		}
		f.name = s
		if s == "" {
			return archive.Corruptf("xar: a file without a name")
		}
	case "type":
		f.typ = s
	case "mode":
		m, err := strconv.ParseUint(s, 8, 32)
		if err != nil {
			return archive.Corruptf("xar: invalid mode %q", s)
		}
		f.mode, f.hasMode = modeOf(m), true
	case "mtime":
		f.mtime = parseTime(s)
	case "atime":
		f.atime = parseTime(s)
	case "link":
		if strings.EqualFold(attr(attrs, "type"), "hard") {
			f.linkTo = s
		} else {
			f.link = s
		}
	}
	return nil
}

// extent is the extent an element named up (a child of f) describes:
// f's data, or its last extended attribute's.
func (f *file) extent(up string) *extent {
	switch {
	case f == nil:
	case up == "data":
		return f.data
	case up == "ea" && len(f.eas) > 0:
		return f.eas[len(f.eas)-1]
	}
	return nil
}

// paths turns each file's name into its full path: t.files is in
// document order, parents before their children, and each file's depth
// says which of the files before it is its parent.
func (t *toc) paths(budget int64) error {
	var stack []string // the paths of the current file's ancestors
	var used int64
	for _, f := range t.files {
		stack = stack[:f.depth-1]
		p := f.name
		if len(stack) > 0 {
			p = stack[len(stack)-1] + "/" + f.name
		}
		used += int64(len(p))
		if used > budget {
			return archive.Limitf("xar: the paths of the table of contents exceed the memory limit")
		}
		f.name = p
		stack = append(stack, p)
	}
	return nil
}

func attr(as []xml.Attr, name string) string {
	for _, a := range as {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// number parses a decimal size or offset, which must fit an int64.
func number(s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, archive.Corruptf("xar: invalid number %q in the table of contents", s)
	}
	return v, nil
}

func parseChecksum(style, s string) (checksum, error) {
	k, ok := checkKinds[strings.ToLower(style)]
	if !ok {
		return checksum{}, archive.Unsupportedf("xar: checksum %q", style)
	}
	if k == verify.None {
		return checksum{}, nil
	}
	v, err := hex.DecodeString(s)
	if err != nil || len(v) != k.Size() {
		return checksum{}, archive.Corruptf("xar: invalid %s checksum %q", style, s)
	}
	return checksum{kind: k, want: v}, nil
}

// parseTime reads the TOC's ISO 8601 times ("2006-01-02T15:04:05Z", with
// or without the zone, fractions allowed); anything else is no time.
func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// modeOf maps a Unix mode's permission bits to an fs.FileMode.
func modeOf(m uint64) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
