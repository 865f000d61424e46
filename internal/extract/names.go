package extract

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// CleanName turns an archive entry name into a safe relative slash path, or
// returns an ErrInsecurePath error saying why it is refused: absolute paths,
// drive letters, ".." segments, backslashes, NUL bytes and overlong names.
// Leading "./" and trailing "/" are removed; "" means the destination itself.
func CleanName(name string) (string, error) {
	switch {
	case strings.IndexByte(name, 0) >= 0:
		return "", fmt.Errorf("%w: name contains a NUL byte", ErrInsecurePath)
	case strings.Contains(name, `\`):
		return "", fmt.Errorf("%w: backslash in name (Windows path)", ErrInsecurePath)
	case strings.HasPrefix(name, "/"):
		return "", fmt.Errorf("%w: absolute path", ErrInsecurePath)
	case len(name) >= 2 && name[1] == ':' && isLetter(name[0]):
		return "", fmt.Errorf("%w: drive letter", ErrInsecurePath)
	case len(name) > 4096:
		return "", fmt.Errorf("%w: name longer than 4096 bytes", ErrInsecurePath)
	}
	for len(name) > 2 && name[:2] == "./" && name[2] != '/' { // as tar -C dir . writes them
		name = name[2:]
	}
	clean := true // no empty or "." component: path.Clean would return it
	for rest := name; ; {
		seg, more, found := strings.Cut(rest, "/")
		if seg == "" || seg == "." {
			clean = false
		}
		if seg == ".." {
			return "", fmt.Errorf("%w: \"..\" in path", ErrInsecurePath)
		}
		if len(seg) > 255 {
			return "", fmt.Errorf("%w: path component longer than 255 bytes", ErrInsecurePath)
		}
		if !found {
			break
		}
		rest = more
	}
	if clean {
		return name, nil
	}
	c := path.Clean(name)
	if c == "." {
		return "", nil
	}
	return c, nil
}

// StripAbsolute removes what makes an entry name absolute: leading slashes
// and a drive letter ("/etc/x", "//srv/x", "C:/x", "C:x"), as GNU tar,
// bsdtar, unzip and 7-Zip do, and reports whether it removed anything.
// ".." components are not its business: CleanName still refuses them.
func StripAbsolute(name string) (string, bool) {
	n := name
	if len(n) >= 2 && n[1] == ':' && isLetter(n[0]) {
		n = n[2:]
	}
	n = strings.TrimLeft(n, "/")
	return n, n != name
}

// Why CleanLinkTarget refused a symlink target.
var (
	errAbsoluteTarget = errors.New("symlink to absolute path")
	errTargetLeaves   = errors.New("leaves the destination")
)

// CleanLinkTarget checks that a symlink at name pointing to target stays
// inside the destination, and returns target unchanged when it does.
func CleanLinkTarget(name, target string) (string, error) {
	switch {
	case target == "":
		return "", fmt.Errorf("%w: empty symlink target", ErrInsecurePath)
	case strings.IndexByte(target, 0) >= 0:
		return "", fmt.Errorf("%w: symlink target contains a NUL byte", ErrInsecurePath)
	case strings.HasPrefix(target, "/"):
		return "", fmt.Errorf("%w: %w %q", ErrInsecurePath, errAbsoluteTarget, target)
	case strings.Contains(target, `\`):
		return "", fmt.Errorf("%w: backslash in symlink target %q", ErrInsecurePath, target)
	case len(target) >= 2 && target[1] == ':' && isLetter(target[0]):
		return "", fmt.Errorf("%w: symlink to drive letter path %q", ErrInsecurePath, target)
	}
	// Walk the target from the link's directory; it may never rise above the
	// destination, not even in the middle ("a/../../x").
	depth := strings.Count(name, "/")
	for _, seg := range strings.Split(target, "/") {
		switch seg {
		case "", ".":
		case "..":
			depth--
			if depth < 0 {
				return "", fmt.Errorf("%w: symlink target %q %w", ErrInsecurePath, target, errTargetLeaves)
			}
		default:
			depth++
		}
	}
	return target, nil
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
