//go:build (!amd64 && !arm64) || !gc || purego

package bcj

// findE8Impls lists the implementations of findE8 on this build: only the
// generic one.
func findE8Impls() map[string]func() func() {
	return map[string]func() func(){"generic": func() func() { return func() {} }}
}
