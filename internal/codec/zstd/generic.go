//go:build !amd64 || !gc || purego

package zstd

// Fast reports whether this build decodes with its assembly (amd64 with
// BMI2); elsewhere klauspost's decoder is the faster one.
func Fast() bool { return false }

func decodeLoop(c *seqCtx, tabs *fseTables, in []byte, seqs []seq) {
	decodeLoopGeneric(c, tabs, in, seqs)
}

func execute(buf []byte, pos int, seqs []seq, lits []byte, wrap, _ int) {
	executeGeneric(buf, pos, seqs, lits, wrap)
}

func fusedLoop(c *seqCtx, tabs *fseTables, in []byte, n int, buf []byte, pos int, lits []byte, wrap int) {
	fusedLoopGeneric(c, tabs, in, n, buf, pos, lits, wrap)
}
