// Package hugemem allocates the large byte buffers of the decoders — LZMA
// dictionaries, RAR windows, PPMd model heaps, multi-block output buffers —
// so that the kernel may back them with transparent huge pages.
//
// A first touch of a 4 KiB page costs a page fault: a 64 MiB dictionary
// is 16384 of them, a large share of a whole decode where faults are slow
// (virtual machines; figures in docs/BENCHMARKS.md). Linux backs a region
// advised MADV_HUGEPAGE with huge pages when it can (transparent_hugepage
// "madvise" mode, the common default), one fault per 2 MiB, and random
// access to a big window or model also misses the TLB far less. The advice is a hint: where the
// kernel refuses it, the buffer is an ordinary slice. Elsewhere than Linux,
// Bytes is make, and Mapped too.
//
// Mapped maps a buffer outside the Go heap, for one a decoder holds for a
// long time and frees explicitly (gzip's parallel pieces): the garbage
// collector does not count it towards its next cycle.
//
// The base and huge page sizes are the system's: 4 KiB and 2 MiB on amd64
// and most arm64 kernels, but arm64 kernels built with 16 or 64 KiB pages
// have 32 or 512 MiB huge pages (and ppc64 has its own). The huge page size
// is read once, on the first large allocation, from
// /sys/kernel/mm/transparent_hugepage/hpage_pmd_size; without that
// directory the kernel has no transparent huge pages and nothing is
// advised.
package hugemem

// Min is the size from which Bytes asks for huge pages (and only from one
// huge page on, where those are larger); smaller buffers are plain slices
// (a huge page would only add memory).
const Min = 2 << 20
