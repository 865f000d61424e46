// Package rarshared holds what the RAR 1.5–4.x reader (package rar4) and
// the RAR 5 reader (package rar5) both use: the pools their windows and
// filter buffers come from, the naming of volume sets, and the filters the
// two generations define alike (x86 E8/E8E9, DELTA).
package rarshared

import (
	"math/bits"
	"sync"

	"github.com/unpack-dev/unpack/internal/hugemem"
)

// Buffers shared by the RAR readers: decompression windows and
// filter memory come from pools by power-of-two size, so that entries and
// archives opened one after another (random access, solid chains, several
// archives in one process) reuse them instead of each allocating up to
// megabytes. A reader returns its buffers when it is closed. Buffers
// keep old bytes: the decoders never read a window byte they did not
// write in the current stream.
const (
	minPooledLog2 = 12 // 4 KiB
	maxPooledLog2 = 26 // 64 MiB; larger windows are left to the collector
)

var bufPools [maxPooledLog2 + 1]sync.Pool

// poolIndex returns the pool for buffers of capacity n, or -1.
func poolIndex(n int) int {
	if n <= 0 || n&(n-1) != 0 {
		return -1
	}
	i := bits.Len(uint(n)) - 1
	if i < minPooledLog2 || i > maxPooledLog2 {
		return -1
	}
	return i
}

// RoundPow2 returns the least power of two that is at least n (n ≥ 1).
func RoundPow2(n int) int {
	return 1 << bits.Len(uint(n-1))
}

// GetBuf returns a buffer of length n, pooled when n is a power of two in
// the pooled range.
func GetBuf(n int) []byte {
	if i := poolIndex(n); i >= 0 {
		if b, ok := bufPools[i].Get().(*[]byte); ok {
			return (*b)[:n]
		}
	}
	return hugemem.Bytes(n) // windows of 2 MiB and more may get huge pages
}

// PutBuf returns b to its pool (nothing happens for a nil buffer or one
// of a size not pooled). The caller must not use b afterwards.
func PutBuf(b []byte) {
	if i := poolIndex(cap(b)); i >= 0 {
		b = b[:cap(b)]
		bufPools[i].Put(&b)
	}
}

// CopyRing copies the bytes of absolute positions [from, to) from the
// ring buffer src to the ring buffer dst (both of power-of-two lengths,
// position p at index p mod length), a contiguous run at a time.
func CopyRing(dst, src []byte, from, to uint64) {
	dm, sm := uint64(len(dst)-1), uint64(len(src)-1)
	for p := from; p < to; {
		d, s := p&dm, p&sm
		n := min(to-p, uint64(len(dst))-d, uint64(len(src))-s)
		copy(dst[d:d+n], src[s:s+n])
		p += n
	}
}
