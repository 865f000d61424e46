//go:build arm64 && gc && !purego

package bcj

// convertARM64 converts the instructions of buf (a multiple of 4 bytes
// long, first byte at stream position pos) like convertARM64Generic, four
// at a time with NEON.
func convertARM64(buf []byte, pos uint32) {
	if !useNEON {
		convertARM64Generic(buf, pos)
		return
	}
	n := len(buf) &^ 15
	convertARM64NEON(buf[:n], pos)
	convertARM64Generic(buf[n:], pos+uint32(n))
}

// convertARM64NEON is implemented in arm64_arm64.s (ASIMD). len(buf) must
// be a multiple of 16; it mirrors convertARM64Generic, computing both the
// BL and the ADRP conversion of every word and selecting by masks.
//
//go:noescape
func convertARM64NEON(buf []byte, pos uint32)
