package rar5

// Redirections: links and file copies (the file header's redirection
// record).

import (
	"bufio"
	"io"
	"path"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
)

// slashName turns a name stored with Windows separators into a slash path.
func slashName(s string) string { return strings.ReplaceAll(s, `\`, "/") }

// windowsTarget returns the target of a Windows symbolic link or junction
// named name. A relative target gets slash separators. An absolute one
// (\??\C:\…, C:\…, \…, \\server\…) is taken to point into the archive
// when its tail, after some of its leading directories, names an entry
// read before (the archive was made from the directory those leading
// directories name): it becomes the relative path from the link's
// directory to that entry. Any other absolute target is returned as
// stored, backslashes and all, so that no sink takes it for a path of the
// destination (and the directory sink refuses it).
func (r *reader) windowsTarget(name, target string) string {
	t := slashName(target)
	rest, abs := strings.CutPrefix(t, "/??/") // NT namespace: \??\C:\dir
	if len(rest) >= 2 && rest[1] == ':' && isLetter(rest[0]) {
		rest, abs = rest[2:], true
	}
	if strings.HasPrefix(rest, "/") {
		abs = true
	}
	if !abs {
		return t
	}
	parts := strings.FieldsFunc(rest, func(c rune) bool { return c == '/' })
	for i := range parts {
		tail := strings.Join(parts[i:], "/")
		if _, ok := r.seen[tail]; ok {
			return relPath(path.Dir(name), tail)
		}
	}
	if strings.Contains(target, `\`) {
		return target
	}
	return "/" + strings.TrimPrefix(t, "/")
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// relPath returns the relative slash path from directory dir to target,
// both slash paths from the archive's root ("." for the root).
func relPath(dir, target string) string {
	var d []string
	if dir != "." {
		d = strings.Split(dir, "/")
	}
	tp := strings.Split(target, "/")
	i := 0
	for i < len(d) && i < len(tp)-1 && d[i] == tp[i] {
		i++
	}
	up := strings.Repeat("../", len(d)-i)
	return up + strings.Join(tp[i:], "/")
}

// errNoCopySource is returned when a file copy's source is not found again
// when the archive is read from its start.
var errNoCopySource = archive.Corruptf("rar: source of a file copy not found")

// errCopySize: a file copy whose source's data differ in size from the
// copy's record.
var errCopySize = archive.Corruptf("rar: a file copy's source differs in size from the copy's record")

// openCopy returns a reader of the archive, read again from its first
// volume, positioned at the data of the first regular file named src: a
// copy's data is its source's, decoded (in a solid archive, with what
// precedes it) and verified again.
func (r *reader) openCopy(src string) (*reader, error) {
	x := newReader(r.opt, r.path)
	x.keys, x.seekable = r.keys, true
	x.hdrPassword, x.hdrChecked = r.hdrPassword, r.hdrChecked
	sr := io.NewSectionReader(r.again, r.againAt, 1<<62)
	x.vol = volume{r: bufio.NewReaderSize(sr, 64<<10), sr: sr, pos: r.sfxOffset, index: r.index0, name: r.name0}
	err := x.startVolume()
	if err == nil {
		err = x.readAhead()
	}
	for err == nil {
		var e *archive.Entry
		if e, err = x.Next(); err == nil && e.Type == archive.TypeFile && x.cur.redirType == 0 && e.Name == src {
			return x, nil
		}
	}
	x.Close()
	if err == io.EOF {
		err = errNoCopySource
	}
	return nil, err
}

// readCopy reads the current entry, a file copy, from its source.
func (r *reader) readCopy(p []byte) (int, error) {
	if r.copySrc == nil {
		x, err := r.openCopy(r.copyOf)
		if err != nil {
			r.finished, r.rerr = true, err
			return 0, err
		}
		r.copySrc, r.copyGot = x, 0
	}
	n, err := r.copySrc.Read(p)
	if size := r.entry.Size; size >= 0 {
		// No byte past the copy's declared size goes out; a source that
		// ends short of it fails too.
		if r.copyGot+int64(n) > size {
			n, err = int(size-r.copyGot), errCopySize
		} else if err == io.EOF && r.copyGot+int64(n) < size {
			err = errCopySize
		}
		r.copyGot += int64(n)
	}
	if err != nil {
		r.finished, r.rerr = true, err
	}
	return n, err
}

// closeCopy closes the reader of a file copy's source, if any.
func (r *reader) closeCopy() {
	if r.copySrc != nil {
		r.copySrc.Close()
		r.copySrc = nil
	}
}
