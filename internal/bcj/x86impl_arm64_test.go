//go:build arm64 && gc && !purego

package bcj

import "golang.org/x/sys/cpu"

// findE8Impls lists the implementations this CPU can run; each entry
// selects its implementation and returns a function that restores the
// default.
func findE8Impls() map[string]func() func() {
	m := map[string]func() func(){
		"generic": func() func() { old := useNEON; useNEON = false; return func() { useNEON = old } },
	}
	if cpu.ARM64.HasASIMD {
		m["neon"] = func() func() { old := useNEON; useNEON = true; return func() { useNEON = old } }
	}
	return m
}
