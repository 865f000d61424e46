package verify

import "testing"

// impl is one setting of the run-time switches of the assembly paths.
type impl struct {
	name                string
	avx512, avx2, clmul bool
}

// impls lists the implementations this machine and build have, fastest
// first; the last is always pure Go.
func impls() []impl {
	var is []impl
	if hasAVX512 {
		is = append(is, impl{"avx512", true, hasAVX2, hasCLMUL})
	}
	if hasAVX2 || hasCLMUL {
		is = append(is, impl{"avx2-clmul", false, hasAVX2, hasCLMUL})
	}
	return append(is, impl{"generic", false, false, false})
}

// set applies the switches of i and returns a function restoring them.
func (i impl) set() (restore func()) {
	s512, s2, sc := useAVX512, useAVX2, useCLMUL
	useAVX512, useAVX2, useCLMUL = i.avx512, i.avx2, i.clmul
	return func() { useAVX512, useAVX2, useCLMUL = s512, s2, sc }
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
