//go:build amd64 && gc && !purego

package zstd

import "golang.org/x/sys/cpu"

// useBMI2 selects decodeLoopBMI2; tests switch it off to run the twin.
var useBMI2 = cpu.X86.HasBMI2

// decodeLoopBMI2 is decodeLoopGeneric in assembly (seqs_amd64.s), its bit
// reads with SHRX and BZHI; the same refills at the same points, so the
// two agree on every input, good or not.
//
//go:noescape
func decodeLoopBMI2(c *seqCtx, tabs *fseTables, in []byte, seqs []seq)

// fusedBMI2 is fusedLoopGeneric in assembly (seqs_amd64.s): each sequence
// decoded as decodeLoopBMI2 decodes it, checked, and written at once as
// executeAsm writes it, into the slack the callers leave.
//
//go:noescape
func fusedBMI2(c *seqCtx, tabs *fseTables, in []byte, n int, buf []byte, pos int, lits []byte, wrap int)

// executeAsm is executeGeneric in assembly (exec_amd64.s): literals and
// matches copied 16 bytes at a time into the slack the callers leave.
//
//go:noescape
func executeAsm(buf []byte, pos int, seqs []seq, lits []byte, wrap int)

// prefetchAsm loads the match source of every sequence into the cache
// (PREFETCHT0), ahead of executeAsm.
//
//go:noescape
func prefetchAsm(buf []byte, pos int, seqs []seq, wrap int, out int)

// Fast reports whether this build decodes with its assembly (amd64 with
// BMI2); elsewhere klauspost's decoder is the faster one.
func Fast() bool { return useBMI2 }

func decodeLoop(c *seqCtx, tabs *fseTables, in []byte, seqs []seq) {
	if useBMI2 {
		decodeLoopBMI2(c, tabs, in, seqs)
		return
	}
	decodeLoopGeneric(c, tabs, in, seqs)
}

func execute(buf []byte, pos int, seqs []seq, lits []byte, wrap, out int) {
	prefetchAsm(buf, pos, seqs, wrap, out)
	executeAsm(buf, pos, seqs, lits, wrap)
}

func fusedLoop(c *seqCtx, tabs *fseTables, in []byte, n int, buf []byte, pos int, lits []byte, wrap int) {
	if useBMI2 {
		fusedBMI2(c, tabs, in, n, buf, pos, lits, wrap)
		return
	}
	fusedLoopGeneric(c, tabs, in, n, buf, pos, lits, wrap)
}
