//go:build amd64 && gc && !purego

#include "textflag.h"

// func executeAsm(buf []byte, pos int, seqs []seq, lits []byte)
//
// executeGeneric with 16-byte copies (the callers give slack room past the
// output and the literals) and the match source of the sequence 8 ahead
// prefetched. Registers: DI output, SI literals, R8 the sequence, R9 the
// sequences' end, R10 the block's output start, R11 the literals' end.
TEXT ·executeAsm(SB), NOSPLIT, $0-80
	MOVQ buf_base+0(FP), DI
	ADDQ pos+24(FP), DI
	MOVQ DI, R10
	MOVQ seqs_base+32(FP), R8
	MOVQ seqs_len+40(FP), R9
	SHLQ $4, R9
	ADDQ R8, R9
	MOVQ lits_base+56(FP), SI
	MOVQ lits_len+64(FP), R11
	ADDQ SI, R11

loop:
	CMPQ R8, R9
	JAE  tail
	LEAQ 128(R8), AX
	CMPQ AX, R9
	JAE  nofetch
	MOVL 12(AX), BX
	MOVL 8(AX), CX
	SUBQ CX, BX
	PREFETCHT0 (R10)(BX*1)

nofetch:
	MOVL 0(R8), AX // literal length
	MOVL 4(R8), BX // match length
	MOVL 8(R8), CX // offset
	ADDQ $16, R8
	TESTQ AX, AX
	JZ    match
	MOVOU (SI), X0
	MOVOU X0, (DI)
	CMPQ  AX, $16
	JBE   litdone
	MOVQ  $16, DX

litloop:
	MOVOU (SI)(DX*1), X0
	MOVOU X0, (DI)(DX*1)
	ADDQ  $16, DX
	CMPQ  DX, AX
	JB    litloop

litdone:
	ADDQ AX, SI
	ADDQ AX, DI

match:
	MOVQ DI, DX
	SUBQ CX, DX
	CMPQ CX, $16
	JB   near
	MOVOU (DX), X0
	MOVOU X0, (DI)
	CMPQ  BX, $16
	JBE   matchdone
	MOVQ  $16, R12

matchloop:
	MOVOU (DX)(R12*1), X0
	MOVOU X0, (DI)(R12*1)
	ADDQ  $16, R12
	CMPQ  R12, BX
	JB    matchloop

matchdone:
	ADDQ BX, DI
	JMP  loop

near:
	XORQ R12, R12
	CMPQ CX, $8
	JB   bytes

words:
	MOVQ (DX)(R12*1), R13
	MOVQ R13, (DI)(R12*1)
	ADDQ $8, R12
	CMPQ R12, BX
	JB   words
	JMP  matchdone

bytes:
	MOVB (DX)(R12*1), R13
	MOVB R13, (DI)(R12*1)
	INCQ R12
	CMPQ R12, BX
	JB   bytes
	JMP  matchdone

tail:
	MOVQ R11, AX
	SUBQ SI, AX
	JZ   done
	XORQ DX, DX

tailloop:
	MOVOU (SI)(DX*1), X0
	MOVOU X0, (DI)(DX*1)
	ADDQ  $16, DX
	CMPQ  DX, AX
	JB    tailloop

done:
	RET

// func prefetchAsm(buf []byte, pos int, seqs []seq)
TEXT ·prefetchAsm(SB), NOSPLIT, $0-56
	MOVQ buf_base+0(FP), DI
	ADDQ pos+24(FP), DI
	MOVQ seqs_base+32(FP), R8
	MOVQ seqs_len+40(FP), R9
	SHLQ $4, R9
	ADDQ R8, R9

ploop:
	CMPQ R8, R9
	JAE  pdone
	MOVL 12(R8), BX
	MOVL 8(R8), CX
	SUBQ CX, BX
	PREFETCHT0 (DI)(BX*1)
	ADDQ $16, R8
	JMP  ploop

pdone:
	RET
