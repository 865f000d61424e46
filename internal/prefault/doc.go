// Package prefault has the kernel map the program's code and read-only
// data into its page table in one call when it starts, instead of a page
// fault each time the code first reaches a new 64 KiB of it, and back the
// start of the Go heap with huge pages, instead of a page fault for each
// 4 KiB of it the run first touches.
//
// Imported (for its init) by cmd/unpack. A run on a small archive touches
// code all over the binary — the init functions of a hundred packages,
// the detector, the command, the format's reader — and each first touch of
// a stretch of the file mapping is a page fault, which costs 14–100 µs on
// a virtual machine (docs/BENCHMARKS.md). MADV_POPULATE_READ (Linux 5.14)
// maps every page already in the page cache in about as long as a few of
// those faults take. Where the kernel lacks it, or elsewhere than Linux,
// nothing happens: it is an optimisation only.
package prefault
