package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames old to new unless new exists (fs.ErrExist
// then): renameat2 RENAME_NOREPLACE, one call that never replaces a name.
// Where the file system refuses the flag, the way of other systems.
func renameNoReplace(old, new string) error {
	err := unix.Renameat2(unix.AT_FDCWD, old, unix.AT_FDCWD, new, unix.RENAME_NOREPLACE)
	switch err {
	case nil:
		return nil
	case unix.EINVAL, unix.ENOSYS, unix.EOPNOTSUPP:
		return renameChecked(old, new)
	}
	return &os.LinkError{Op: "rename", Old: old, New: new, Err: err}
}
