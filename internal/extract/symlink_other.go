//go:build !windows

package extract

// symlink makes a symlink at tmp (below the root) to target.
func (d *Dir) symlink(target, tmp string) error { return d.root.Symlink(target, tmp) }
