package cli

import (
	"io/fs"
	"os"
)

// renameChecked renames old to new unless new exists, without
// renameat2: a regular file is linked under the new name (which fails if
// it exists) and its old name removed; anything else is renamed after a
// check that new does not exist (a name appearing between the two is
// then replaced: the check narrows the window, it cannot close it).
func renameChecked(old, new string) error {
	fi, err := os.Lstat(old)
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() {
		if err := os.Link(old, new); err == nil {
			return os.Remove(old)
		} else if _, serr := os.Lstat(new); serr == nil {
			return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
		}
	}
	if _, err := os.Lstat(new); err == nil {
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
	}
	return os.Rename(old, new)
}
