package rar4

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
)

// volume is one open volume of a RAR 1.5–4.x archive.
type volume struct {
	r    io.Reader
	back []byte   // bytes pushed back, read before r
	f    *os.File // opened by the reader (nil for the first volume)
	path string
	pos  int64 // offset of the next byte in this volume
}

// Read reads from the pushed-back bytes, then the volume.
func (v *volume) Read(p []byte) (int, error) {
	if len(v.back) > 0 {
		n := copy(p, v.back)
		v.back = v.back[n:]
		v.pos += int64(n)
		return n, nil
	}
	n, err := v.r.Read(p)
	v.pos += int64(n)
	return n, err
}

// unread pushes b back in front of the unread bytes.
func (v *volume) unread(b []byte) {
	if len(b) == 0 {
		return
	}
	v.back = append(append([]byte(nil), b...), v.back...)
	v.pos -= int64(len(b))
}

// readFull reads len(b) bytes; it returns io.EOF only when nothing was read.
func (v *volume) readFull(b []byte) error {
	_, err := io.ReadFull(v, b)
	return err
}

// skip discards n bytes.
func (v *volume) skip(n int64) error {
	if n <= 0 {
		return nil
	}
	if sk, ok := v.r.(io.Seeker); ok && len(v.back) == 0 {
		if _, err := sk.Seek(n, io.SeekCurrent); err != nil {
			return err
		}
		v.pos += n
		return nil
	}
	_, err := io.CopyN(io.Discard, v, n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func (v *volume) close() error {
	if v.f != nil {
		err := v.f.Close()
		v.f = nil
		return err
	}
	return nil
}

// nextVolumeName returns the name of the volume after path: with the new
// naming the last group of digits before the extension is incremented
// ("a.part09.rar" → "a.part10.rar"); with the old naming the extension is
// ".rar" (or ".exe") → ".r00" → ".r01" … ".r99" → ".s00". A self-extracting
// first volume "a.part1.exe" continues in "a.part2.rar".
func nextVolumeName(path string, newNaming bool) string {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	stem := base[:len(base)-len(ext)]
	if newNaming {
		if strings.EqualFold(ext, ".exe") {
			ext = ".rar" // a self-extracting first volume; the rest are .rar
		}
		b := []byte(stem)
		end := len(b)
		for end > 0 && (b[end-1] < '0' || b[end-1] > '9') {
			end--
		}
		if end > 0 {
			i := end - 1
			for {
				if b[i] < '9' {
					b[i]++
					break
				}
				b[i] = '0'
				if i == 0 || b[i-1] < '0' || b[i-1] > '9' {
					b = append(b[:i], append([]byte{'1'}, b[i:]...)...)
					break
				}
				i--
			}
			return dir + string(b) + ext
		}
	}
	e := []byte(ext)
	upper := strings.ToUpper(ext) == ext && strings.ToLower(ext) != ext
	if len(e) == 4 && e[2] >= '0' && e[2] <= '9' && e[3] >= '0' && e[3] <= '9' {
		switch {
		case e[3] < '9':
			e[3]++
		case e[2] < '9':
			e[2]++
			e[3] = '0'
		default:
			e[1]++
			e[2], e[3] = '0', '0'
		}
		return dir + stem + string(e)
	}
	if upper {
		return dir + stem + ".R00"
	}
	return dir + stem + ".r00"
}

// openVolume opens the volume at path.
func openVolume(opt *archive.Options, path string) (*os.File, error) {
	if path == "" {
		return nil, archive.Errorf(archive.ErrMissingVolume, "rar: next volume needed but reading from a stream")
	}
	return rarshared.OpenVolume(opt, path)
}
