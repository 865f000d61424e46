// Package osnames holds the rules by which an operating system stores a file
// name: which names it cannot hold (and the deterministic rename unpack uses
// instead), and which different names it stores as one file.
//
// Windows rules follow Microsoft's "Naming Files, Paths, and Namespaces"
// (learn.microsoft.com/windows/win32/fileio/naming-a-file) and, for the
// renames, 7-Zip's: a character Windows refuses becomes '_', as does each
// trailing dot or space, and a reserved device name gets a leading '_'.
// macOS rules follow Apple's APFS Guide: names are UTF-8, and the default
// (case-insensitive) volumes are also normalization-insensitive.
//
// A name here is a cleaned, slash-separated relative path (no "..", no
// leading '/'), as extract.CleanName returns it; every rule works on one
// path component at a time, so a directory renamed in one entry is renamed
// the same way in every entry below it.
package osnames

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unicode/utf8"
)

// Policy names the operating system whose naming rules apply.
type Policy uint8

// Policies. The zero value is Unix: names are bytes, every name is held as
// it is, and different names are different files.
const (
	Unix    Policy = iota // Linux, the BSDs and other Unix systems
	Windows               // NTFS and FAT through the Win32 API
	Darwin                // macOS on APFS or HFS+ (case-insensitive by default)
)

// Default returns the policy of the running system.
func Default() Policy {
	switch runtime.GOOS {
	case "windows":
		return Windows
	case "darwin", "ios":
		return Darwin
	}
	return Unix
}

// String returns the system's name as messages give it ("Windows").
func (p Policy) String() string {
	switch p {
	case Unix:
		return "Unix"
	case Windows:
		return "Windows"
	case Darwin:
		return "macOS"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// ErrRefused is wrapped by the error of a name the target system cannot
// hold and that no rename makes safe to write. The directory sink reports it
// as an insecure path (the entry is refused, exit code 3).
var ErrRefused = errors.New("name the target system cannot hold")

// maxComponent bounds one path component: 255 UTF-16 code units on NTFS,
// 255 bytes of UTF-8 on APFS.
const maxComponent = 255

// Check returns name as the target system can hold it. When the system
// cannot hold name as it is, fixed is the deterministic rename and warning
// says what changed (fixed == name and warning == "" otherwise). A name
// that cannot be renamed safely is refused with an error wrapping
// ErrRefused. Check(fixed) returns fixed unchanged.
func (p Policy) Check(name string) (fixed, warning string, err error) {
	return p.check(name, false)
}

// CheckLink is Check for the target of a symbolic link: its components are
// renamed as Check renames names, so that a link still reaches an entry that
// was renamed, "." and ".." are kept, and on Windows a target that would be
// read as rooted, drive-relative or UNC ("/x", "C:x", `\\server\share`) is
// refused (a link target that is not relative is never safe to write).
func (p Policy) CheckLink(target string) (fixed, warning string, err error) {
	if p == Windows {
		switch {
		case strings.HasPrefix(target, "/"), strings.HasPrefix(target, `\`):
			return "", "", fmt.Errorf("%w: rooted or UNC link target %q", ErrRefused, target)
		case len(target) >= 2 && target[1] == ':' && isASCIILetter(target[0]):
			return "", "", fmt.Errorf("%w: drive-relative link target %q", ErrRefused, target)
		case strings.Contains(target, `\`):
			return "", "", fmt.Errorf("%w: backslash in link target %q", ErrRefused, target)
		}
	}
	return p.check(target, true)
}

// check applies the component rules of p to every component of name; with
// link set, "." and ".." and empty components pass unchanged.
func (p Policy) check(name string, link bool) (fixed, warning string, err error) {
	if p == Unix {
		return name, "", nil
	}
	var (
		b       strings.Builder // the renamed name, once a component changed
		renamed bool
		why     reasons
	)
	start := 0 // offset of comp in name
	for rest, more := name, true; more; {
		var comp string
		comp, rest, more = strings.Cut(rest, "/")
		fc := comp
		if !link || (comp != "" && comp != "." && comp != "..") {
			switch p {
			case Windows:
				fc = windowsComponent(comp, &why)
			case Darwin:
				fc = darwinComponent(comp, &why)
			default:
				return "", "", fmt.Errorf("osnames: unknown %v", p)
			}
			if n := componentLen(p, fc); n > maxComponent {
				return "", "", fmt.Errorf("%w: component %q is %d %s long once renamed for %v (at most %d)",
					ErrRefused, fc, n, p.unit(), p, maxComponent)
			}
		}
		if fc != comp && !renamed {
			renamed = true
			b.WriteString(name[:start])
		}
		if renamed {
			b.WriteString(fc)
			if more {
				b.WriteByte('/')
			}
		}
		start += len(comp) + 1
	}
	if !renamed {
		return name, "", nil
	}
	fixed = b.String()
	return fixed, fmt.Sprintf("stored as %q: %s", fixed, why.String(p)), nil
}

// Key returns the identity under which p stores name: two names with the
// same key are one file on that system. name should be one Check accepted
// unchanged (a fixed name); on Unix the key is name itself.
func (p Policy) Key(name string) string {
	switch p {
	case Windows:
		return windowsKey(name)
	case Darwin:
		return darwinKey(name)
	}
	return name
}

// componentLen measures a component in the unit the system limits.
func componentLen(p Policy, s string) int {
	if p == Windows {
		return utf16Len(s)
	}
	return len(s)
}

func (p Policy) unit() string {
	if p == Windows {
		return "UTF-16 units"
	}
	return "bytes"
}

// reasons collects what a rename changed, each kind once, in a fixed order.
type reasons uint8

const (
	badUTF8  reasons = 1 << iota // bytes that are not UTF-8
	badChar                      // a character Windows refuses
	trailing                     // a trailing dot or space
	device                       // a reserved device name
)

func (r reasons) String(p Policy) string {
	var parts []string
	if r&badUTF8 != 0 {
		parts = append(parts, fmt.Sprintf("bytes that are not UTF-8 (written as %%XX); %v names are UTF-8", p))
	}
	if r&badChar != 0 {
		parts = append(parts, `Windows names cannot hold <>:"\|?* or control characters (written as _)`)
	}
	if r&trailing != 0 {
		parts = append(parts, "Windows drops a trailing dot or space (written as _)")
	}
	if r&device != 0 {
		parts = append(parts, "a Windows device name (CON, NUL, COM1, ...) even with an extension (prefixed with _)")
	}
	return strings.Join(parts, "; ")
}

// escapeInvalid writes each byte of s that is not part of valid UTF-8 as
// %XX (upper-case hex), so that names differing only in such bytes stay
// different; valid text is copied unchanged.
func escapeInvalid(s string, why *reasons) string {
	if utf8.ValidString(s) {
		return s
	}
	*why |= badUTF8
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n <= 1 {
			fmt.Fprintf(&b, "%%%02X", s[0])
			s = s[1:]
			continue
		}
		b.WriteString(s[:n])
		s = s[n:]
	}
	return b.String()
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
