package extract

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
)

// symlink makes a symlink at tmp (below the root) to target. Windows
// stores the target as given, and os.Root leaves "/" as it is (a link to
// "sub/f" would never resolve): the target is converted to "\". Without
// the privilege to make links (Developer Mode or SeCreateSymbolicLinkPrivilege)
// the link is skipped with a warning.
func (d *Dir) symlink(target, tmp string) error {
	err := d.root.Symlink(filepath.FromSlash(target), tmp)
	if errors.Is(err, syscall.ERROR_PRIVILEGE_NOT_HELD) {
		return fmt.Errorf("%w: symlink not made: creating symbolic links needs Developer Mode or the SeCreateSymbolicLinkPrivilege", ErrSkipped)
	}
	return err
}

// finishLinks remakes as directory links the links this extraction made
// whose target is a directory: Windows fixes a link's kind when it is
// made, and a link made before its target directory is a file link, which
// never opens as a directory.
func (d *Dir) finishLinks(links []string) {
	for _, l := range links {
		d.mu.Lock()
		target, ok := d.links[l]
		d.mu.Unlock()
		fi, err := d.root.Lstat(l)
		if !ok || err != nil || !d.mine(l, fi) {
			continue
		}
		if a, ok := fi.Sys().(*syscall.Win32FileAttributeData); !ok || a.FileAttributes&syscall.FILE_ATTRIBUTE_DIRECTORY != 0 {
			continue // already a directory link
		}
		r, err := d.resolve(parent(l), target, nil)
		if err != nil {
			continue
		}
		if ti, err := d.root.Lstat(r); err != nil || !ti.IsDir() {
			continue
		}
		tmp := tempName(l)
		if d.symlink(target, tmp) != nil {
			continue
		}
		info, err := d.root.Lstat(tmp)
		if err == nil {
			d.mu.Lock()
			err = d.root.Rename(tmp, l)
			if err == nil {
				d.recs.setMade(l, identOf(info))
			}
			d.mu.Unlock()
		}
		if err != nil {
			d.root.Remove(tmp)
		}
	}
}
