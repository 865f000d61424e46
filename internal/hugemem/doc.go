// Package hugemem allocates the large byte buffers of the decoders — LZMA
// dictionaries, RAR windows, PPMd model heaps, multi-block output buffers —
// so that the kernel may back them with 2 MiB pages.
//
// A first touch of a 4 KiB page costs a page fault: a 64 MiB dictionary
// is 16384 of them, a large share of a whole decode where faults are slow
// (virtual machines; figures in docs/BENCHMARKS.md). Linux backs a region
// advised MADV_HUGEPAGE with huge pages when it can (transparent_hugepage
// "madvise" mode, the common default), one fault per 2 MiB, and random
// access to a big window or model also misses the TLB far less. The advice is a hint: where the
// kernel refuses it, the buffer is an ordinary slice. Elsewhere than Linux,
// Bytes is make.
package hugemem

// Min is the size from which Bytes asks for huge pages; smaller buffers
// are plain slices (a huge page would only add memory).
const Min = 2 << 20
