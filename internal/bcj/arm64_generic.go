//go:build !arm64 || !gc || purego

package bcj

// convertARM64 is convertARM64Generic where no assembly is available (or
// purego).
func convertARM64(buf []byte, pos uint32) { convertARM64Generic(buf, pos) }
