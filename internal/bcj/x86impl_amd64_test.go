//go:build amd64 && gc && !purego

package bcj

import "golang.org/x/sys/cpu"

// findE8Impls lists the fast paths this CPU can run; each entry selects its
// implementation and returns a function that restores the default.
func findE8Impls() map[string]func() func() {
	m := map[string]func() func(){
		"sse2": func() func() { old := useAVX2; useAVX2 = false; return func() { useAVX2 = old } },
	}
	if cpu.X86.HasAVX2 {
		m["avx2"] = func() func() { old := useAVX2; useAVX2 = true; return func() { useAVX2 = old } }
	}
	return m
}
