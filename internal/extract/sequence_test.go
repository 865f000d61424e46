package extract

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// seqAlphabet is what the names and targets of a random sequence are made
// of: a few plain names, the user's files and links, "." and "..".
var seqAlphabet = []string{"a", "b", "s", ".", "..", "sub", "userlink", "up", ".bashrc"}

func seqPath(x uint16) string {
	k := 1 + int(x%3)
	x /= 3
	comps := make([]string, k)
	for i := range comps {
		comps[i] = seqAlphabet[x%uint16(len(seqAlphabet))]
		x /= uint16(len(seqAlphabet))
	}
	return strings.Join(comps, "/")
}

// seqEntries decodes b, 5 bytes an entry: type and flags, name, target.
func seqEntries(b []byte) (entries []*archive.Entry, verdicts []error) {
	for ; len(b) >= 5 && len(entries) < 24; b = b[5:] {
		e := &archive.Entry{Name: seqPath(uint16(b[1]) | uint16(b[2])<<8), Type: archive.Type(b[0] % 4),
			Pending: b[0]&0x10 != 0, Comment: "data" + string(rune('A'+len(entries)))}
		target := seqPath(uint16(b[3]) | uint16(b[4])<<8)
		switch e.Type {
		case archive.TypeDir:
			e.Mode = []os.FileMode{0, 0o777, 0o555, 0o700}[b[0]>>2&3]
		case archive.TypeSymlink, archive.TypeHardlink:
			e.Linkname = target
		}
		var v error
		if b[0]&0x20 != 0 {
			v = errStream
		}
		entries = append(entries, e)
		verdicts = append(verdicts, v)
	}
	return entries, verdicts
}

// runSequence extracts a decoded sequence into a scene (with the user's
// files, links and a link leading outside) under each policy, settling the
// pending entries at the end in order, and checks the rules: nothing
// outside changed, no link made resolves outside, no file of the user's
// changed without Overwrite, no temporary file left, no panic.
//
// Each policy runs twice: the second time with the held files split
// between Put and the writer (WriteHeldInline), each directory's owner
// drawn from the sequence's first byte and the directory's name.
func runSequence(t *testing.T, b []byte) {
	entries, verdicts := seqEntries(b)
	var seed byte
	if len(b) > 0 {
		seed = b[0]
	}
	testSplitOwner = func(dir string) bool {
		h := seed
		for i := 0; i < len(dir); i++ {
			h = h*31 + dir[i]
		}
		return h&1 == 0
	}
	defer func() { testSplitOwner = nil }()
	for run := range 6 {
		pol, split := []Policy{Refuse, Skip, Overwrite}[run%3], run >= 3
		s := newScene(t)
		if err := os.Symlink("..", filepath.Join(s.dest, "up")); err != nil {
			t.Fatal(err)
		}
		s.before = tree(t, s.dest)
		s.noDirTimes = true
		d, err := NewDir(s.dest, DirOptions{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		if split {
			d.WriteHeldInline()
		}
		for _, e := range entries {
			err := d.Put(e, strings.NewReader(e.Comment))
			if err != nil && errors.Is(err, archive.ErrChecksum) {
				t.Errorf("%s: %v", e.Name, err)
			}
		}
		for i, e := range entries {
			if e.Pending {
				d.Settle(e, verdicts[i])
			}
		}
		d.Close()
		s.check(t, pol == Overwrite)
		if temps(s.dest) {
			t.Errorf("policy %d, split %v: temporary files left", pol, split)
		}
		if t.Failed() {
			t.Fatalf("policy %d, split %v: %s", pol, split, describeSeq(entries, verdicts))
		}
	}
}

func describeSeq(entries []*archive.Entry, verdicts []error) string {
	var b strings.Builder
	for i, e := range entries {
		b.WriteString("\n  " + e.Type.String() + " " + e.Name)
		if e.Linkname != "" {
			b.WriteString(" → " + e.Linkname)
		}
		if e.Pending {
			b.WriteString(" (pending")
			if verdicts[i] != nil {
				b.WriteString(", fails")
			}
			b.WriteString(")")
		}
	}
	return b.String()
}

// TestDirSequences runs the property on random sequences.
func TestDirSequences(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 20
	}
	r := rand.New(rand.NewPCG(17, 2026))
	for range n {
		b := make([]byte, 5*(2+r.IntN(12)))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		runSequence(t, b)
	}
}

// FuzzDirSequence: any sequence of dir/file/symlink/hardlink entries keeps
// the destination's rules (see runSequence).
func FuzzDirSequence(f *testing.F) {
	f.Add([]byte{3, 0, 0, 0, 0})
	// a → s/.., then s → .
	f.Add(seqBytes(f, symlink("a", "s/.."), symlink("s", ".")))
	f.Add(seqBytes(f, symlink("a", "."), symlink("a/b", "..")))
	f.Add(seqBytes(f, dir("sub", 0), symlink("s", "sub"), file("s/.bashrc", ""), symlink("s", "."), file("s/.bashrc", "")))
	f.Fuzz(func(t *testing.T, b []byte) { runSequence(t, b) })
}

// seqBytes encodes entries for the fuzzer, when their names are of the
// alphabet.
func seqBytes(f *testing.F, entries ...*archive.Entry) []byte {
	enc := func(p string) (uint16, bool) {
		comps := strings.Split(p, "/")
		if len(comps) > 3 {
			return 0, false
		}
		var x uint16
		for i := len(comps) - 1; i >= 0; i-- {
			j := -1
			for k, a := range seqAlphabet {
				if a == comps[i] {
					j = k
				}
			}
			if j < 0 {
				return 0, false
			}
			x = x*uint16(len(seqAlphabet)) + uint16(j)
		}
		return x*3 + uint16(len(comps)-1), true
	}
	var b []byte
	for _, e := range entries {
		n, ok1 := enc(e.Name)
		l, ok2 := enc(e.Linkname)
		if e.Linkname == "" {
			l, ok2 = 0, true
		}
		if !ok1 || !ok2 {
			f.Fatalf("seed %s → %s is not of the alphabet", e.Name, e.Linkname)
		}
		b = append(b, byte(e.Type), byte(n), byte(n>>8), byte(l), byte(l>>8))
	}
	return b
}
