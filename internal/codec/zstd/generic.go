package zstd

func decodeSeqs(s *seqState) error { return decodeSeqsGeneric(s) }

func execute(buf []byte, pos int, seqs []seq, lits []byte) { executeGeneric(buf, pos, seqs, lits) }
