//go:build !windows

package extract

// symlink makes a symlink at tmp (below the root) to target.
func (d *Dir) symlink(target, tmp string) error { return d.root.Symlink(target, tmp) }

// finishLinks has nothing to do where a symlink has no kind of its own
// (Windows fixes a link as a file or directory link when it is made).
func (d *Dir) finishLinks([]string) {}
