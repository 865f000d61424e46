//go:build amd64 && gc && !purego

package lzo

// decompress1X is decompress1XGeneric in assembly (lzo1x_amd64.s): the
// same checks in the same order, the literal runs copied 16 bytes at a
// time where both buffers have the room.
//
//go:noescape
func decompress1X(dst, src []byte) int

// FastPaths names the assembly paths in use.
func FastPaths() []string { return []string{"LZO1X amd64"} }
