package rarshared

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
)

// VolumeNames names the volumes of a multi-volume set. Two schemes exist:
//
//   - new (RAR 3 and later by default): NAME.partN.rar, N counted from 1
//     with a fixed width (part1, part01, part001…), widening past its width;
//   - old: NAME.rar, NAME.r00 … NAME.r99, NAME.s00 … (the letter advances
//     after 99, as WinRAR does).
//
// Volume i (0-based) of either scheme is VolumeNames.Name(i).
type VolumeNames struct {
	dir, stem string // directory and file name up to ".part" or the extension
	ext       string // ".rar", ".exe" (new scheme), or the first volume's extension (old)
	width     int    // digits in the part number (new scheme)
	old       bool
	upper     bool // old scheme: extension in upper case
}

// ParseVolumeName splits path into its naming scheme and the volume index
// it names. newStyle says which scheme to assume for a name that fits both
// (NAME.rar): the first volume of either.
func ParseVolumeName(path string, newStyle bool) (VolumeNames, int) {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	lowerExt := strings.ToLower(ext)
	stem := base[:len(base)-len(ext)]
	// New scheme: "….partN" before the extension.
	if i := strings.LastIndex(strings.ToLower(stem), ".part"); i >= 0 && (lowerExt == ".rar" || lowerExt == ".exe") {
		digits := stem[i+5:]
		if n, err := strconv.Atoi(digits); err == nil && n >= 1 && len(digits) > 0 && digits[0] != '+' && digits[0] != '-' {
			return VolumeNames{dir: dir, stem: stem[:i+5], ext: ext, width: len(digits)}, n - 1
		}
	}
	if newStyle && (lowerExt == ".rar" || lowerExt == ".exe") {
		// A first volume named without a part number; assume part1.
		return VolumeNames{dir: dir, stem: stem + ".part", ext: ext, width: 1}, 0
	}
	v := VolumeNames{dir: dir, stem: stem, ext: ext, old: true, upper: ext != lowerExt}
	if len(lowerExt) == 4 && lowerExt[1] >= 'r' && lowerExt[1] <= 'z' {
		if n, err := strconv.Atoi(lowerExt[2:]); err == nil && lowerExt[2] >= '0' && lowerExt[2] <= '9' {
			v.ext = ".rar"
			if v.upper {
				v.ext = ".RAR"
			}
			return v, int(lowerExt[1]-'r')*100 + n + 1
		}
	}
	return v, 0
}

// Name returns the path of volume i (0-based).
func (v VolumeNames) Name(i int) string {
	if !v.old {
		n := strconv.Itoa(i + 1)
		if len(n) < v.width {
			n = strings.Repeat("0", v.width-len(n)) + n
		}
		return v.dir + v.stem + n + v.ext
	}
	if i == 0 {
		return v.dir + v.stem + v.ext
	}
	i--
	letter := byte('r' + i/100)
	if letter > 'z' {
		letter = 'z'
	}
	ext := "." + string(letter) + strconv.Itoa(i%100/10) + strconv.Itoa(i%10)
	if v.upper {
		ext = strings.ToUpper(ext)
	}
	return v.dir + v.stem + ext
}

// OpenVolume opens volume path for reading, turning a missing file into an
// archive.ErrMissingVolume error that names it (an *archive.VolumeError).
func OpenVolume(opt *archive.Options, path string) (*os.File, error) {
	f, err := opt.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &archive.VolumeError{Volume: filepath.Base(path), Err: archive.ErrMissingVolume}
		}
		return nil, err
	}
	return f, nil
}
