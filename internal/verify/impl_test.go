package verify

import "testing"

// forEachImpl runs f once per implementation this machine has: the
// assembly paths (when compiled in and supported) and the pure-Go ones,
// restoring the switches afterwards.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	saveAVX2, saveCLMUL := useAVX2, useCLMUL
	defer func() { useAVX2, useCLMUL = saveAVX2, saveCLMUL }()
	if hasAVX2 || hasCLMUL {
		useAVX2, useCLMUL = hasAVX2, hasCLMUL
		t.Run("asm", f)
	}
	useAVX2, useCLMUL = false, false
	t.Run("generic", f)
}
