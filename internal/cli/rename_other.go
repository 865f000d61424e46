//go:build !linux

package cli

// renameNoReplace renames old to new unless new exists (fs.ErrExist
// then); see renameChecked.
func renameNoReplace(old, new string) error { return renameChecked(old, new) }
