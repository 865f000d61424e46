package verify

import (
	"runtime"
	"testing"
)

// impl is one setting of the run-time switches of the assembly paths.
type impl struct {
	name                      string
	avx512, avx2, neon, clmul bool
}

// impls lists the implementations this machine and build have, fastest
// first; the last is always pure Go.
func impls() []impl {
	var is []impl
	if hasAVX512 {
		is = append(is, impl{"avx512", true, hasAVX2, false, hasCLMUL})
	}
	if hasAVX2 || hasNEON || hasCLMUL {
		name := "avx2-clmul"
		if runtime.GOARCH == "arm64" {
			name = "neon-pmull"
		}
		is = append(is, impl{name, false, hasAVX2, hasNEON, hasCLMUL})
	}
	return append(is, impl{"generic", false, false, false, false})
}

// set applies the switches of i and returns a function restoring them.
func (i impl) set() (restore func()) {
	s512, s2, sn, sc := useAVX512, useAVX2, useNEON, useCLMUL
	useAVX512, useAVX2, useNEON, useCLMUL = i.avx512, i.avx2, i.neon, i.clmul
	return func() { useAVX512, useAVX2, useNEON, useCLMUL = s512, s2, sn, sc }
}

// forEachImpl runs f once per implementation this machine has, restoring
// the switches afterwards.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	for _, i := range impls() {
		restore := i.set()
		t.Run(i.name, f)
		restore()
	}
}

// generic is the pure-Go setting.
var generic = impl{name: "generic"}
