//go:build amd64 && gc && !purego

#include "textflag.h"
#include "copy_amd64.h"

// func executeAsm(buf []byte, pos int, seqs []seq, lits []byte, wrap int)
//
// executeGeneric with 16-byte copies, 32 bytes of literals and of match at
// least (the callers give slack room past the output and the literals). Registers: DI output, SI literals, R8 the
// sequence, R9 the sequences' end, R10 the ring's start, R11 the
// literals' end, R14 the ring's last lap end (absolute).
TEXT ·executeAsm(SB), NOSPLIT, $0-88
	MOVQ buf_base+0(FP), R10
	MOVQ pos+24(FP), DI
	ADDQ R10, DI
	MOVQ wrap+80(FP), R14
	ADDQ R10, R14
	MOVQ seqs_base+32(FP), R8
	MOVQ seqs_len+40(FP), R9
	SHLQ $4, R9
	ADDQ R8, R9
	MOVQ lits_base+56(FP), SI
	MOVQ lits_len+64(FP), R11
	ADDQ SI, R11

loop:
	CMPQ  R8, R9
	JAE   tail
	MOVL  0(R8), AX // literal length
	MOVL  4(R8), BX // match length
	MOVL  8(R8), CX // offset
	ADDQ  $16, R8
	LITS32(SI, DI)
	CMPQ  AX, $32
	JA    longlits

litdone:
	ADDQ AX, SI
	ADDQ AX, DI
	MOVQ DI, DX
	SUBQ CX, DX
	CMPQ DX, R10
	JB   lastlap
	CMPQ CX, $16
	JB   near

far:
	// 32 bytes whatever the length; with an offset under 32 the second
	// load reads what the first store wrote.
	MATCH32(DX, DI)
	CMPQ  BX, $32
	JA    longmatch

matchdone:
	ADDQ BX, DI
	JMP  loop

longlits:
	MOVQ $32, DX
	COPY16(SI, DI, DX, AX, litloop)
	JMP  litdone

longmatch:
	MOVQ $32, R12
	COPY16(DX, DI, R12, BX, matchloop)
	JMP  matchdone

near:
	XORQ R12, R12
	CMPQ CX, $8
	JB   bytes
	COPY8(DX, DI, R12, BX, R13, words)
	JMP matchdone

bytes:
	COPY1(DX, DI, R12, BX, R13, byteloop)
	JMP matchdone

lastlap:
	// The source is in the ring's last lap: far from every write.
	SUBQ R10, DX
	ADDQ R14, DX
	MOVQ R14, AX
	SUBQ DX, AX // bytes of the last lap from the source on
	CMPQ BX, AX
	JBE  far
	XORQ R12, R12
	COPY1(DX, DI, R12, AX, R13, lapbytes)
	MOVQ R10, DX
	SUBQ R12, DX // the rest from the ring's start, as if at this distance
	COPY1(DX, DI, R12, BX, R13, startbytes)
	JMP  matchdone

tail:
	MOVQ R11, AX
	SUBQ SI, AX
	JZ   done
	XORQ DX, DX
	COPY16(SI, DI, DX, AX, tailloop)

done:
	RET

// func prefetchAsm(buf []byte, pos int, seqs []seq, wrap int, out int)
//
// PREFETCHW of the out bytes the block writes, then PREFETCHT0 of every
// sequence's match source, in the ring's last lap for those before its
// start.
TEXT ·prefetchAsm(SB), NOSPLIT, $0-72
	MOVQ buf_base+0(FP), R10
	MOVQ pos+24(FP), DI
	ADDQ R10, DI
	MOVQ out+64(FP), AX
	ADDQ DI, AX
	MOVQ DI, BX

wloop:
	CMPQ      BX, AX
	JAE       wdone
	BYTE      $0x0F; BYTE $0x0D; BYTE $0x0B // PREFETCHW (BX)
	ADDQ      $64, BX
	JMP       wloop

wdone:
	MOVQ wrap+56(FP), R11
	MOVQ seqs_base+32(FP), R8
	MOVQ seqs_len+40(FP), R9
	SHLQ $4, R9
	ADDQ R8, R9

ploop:
	CMPQ       R8, R9
	JAE        pdone
	MOVL       12(R8), BX
	MOVL       8(R8), CX
	SUBQ       CX, BX
	ADDQ       DI, BX
	LEAQ       (BX)(R11*1), AX
	CMPQ       BX, R10
	CMOVQCS    AX, BX
	PREFETCHT0 (BX)
	ADDQ       $16, R8
	JMP        ploop

pdone:
	RET
