package osnames

import (
	"fmt"
	"strings"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Names remembers the names one extraction has claimed, by their key under
// a policy, so that two different entry names the target system stores as
// one file are caught as the archive contradicting itself, not mistaken for
// a file that was there before. It is safe for concurrent use.
type Names struct {
	p    Policy
	mu   sync.Mutex
	seen map[string]claim // by Key(fixed name)
}

type claim struct {
	name string // the entry's (cleaned) name, before any rename
	dir  bool
}

// NewNames returns an empty set of names under p.
func NewNames(p Policy) *Names {
	return &Names{p: p, seen: map[string]claim{}}
}

// Claim records the entry called name (cleaned, before any rename) that is
// written as fixed (what p.Check returned for it), a directory when dir is
// set, and each of its parent directories. It fails with an *AliasError
// when an earlier claim under another name is the same file on the target
// system, unless both are directories (those merge, as on that system).
// The same name claimed again (an archive that stores a path twice) is no
// conflict here. Claim does nothing under Unix, where the key is the name.
func (n *Names) Claim(name, fixed string, dir bool) error {
	if n.p == Unix {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	// Check renames component by component, so the parents of name and
	// fixed correspond one to one.
	ni, fi := 0, 0
	for {
		a, b := strings.IndexByte(name[ni:], '/'), strings.IndexByte(fixed[fi:], '/')
		if a < 0 || b < 0 {
			break
		}
		ni, fi = ni+a, fi+b
		if err := n.claim(name[:ni], fixed[:fi], true); err != nil {
			return err
		}
		ni, fi = ni+1, fi+1
	}
	return n.claim(name, fixed, dir)
}

func (n *Names) claim(name, fixed string, dir bool) error {
	k := n.p.Key(fixed)
	prev, ok := n.seen[k]
	if !ok {
		n.seen[k] = claim{name: name, dir: dir}
		return nil
	}
	if prev.name == name || (prev.dir && dir) {
		return nil
	}
	return &AliasError{Name: name, Other: prev.name, Policy: n.p}
}

// AliasError reports two entry names of one archive that the target system
// stores as one file ("README" and "readme" on Windows or macOS). It is
// archive.ErrCorrupt: the archive contradicts itself there.
type AliasError struct {
	Name, Other string // this entry's name, and the earlier one it meets
	Policy      Policy
}

func (e *AliasError) Error() string {
	return fmt.Sprintf("%q and %q are one file on %v", e.Name, e.Other, e.Policy)
}

// Unwrap makes an AliasError archive.ErrCorrupt.
func (e *AliasError) Unwrap() error { return archive.ErrCorrupt }
