//go:build !amd64 || !gc || purego

package zstd

func decodeLoop(c *seqCtx, tabs *fseTables, in []byte, seqs []seq) {
	decodeLoopGeneric(c, tabs, in, seqs)
}

func execute(buf []byte, pos int, seqs []seq, lits []byte, wrap, _ int) {
	executeGeneric(buf, pos, seqs, lits, wrap)
}
