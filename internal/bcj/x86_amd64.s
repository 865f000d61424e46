//go:build amd64 && gc && !purego

#include "textflag.h"

// func findE8SSE2(b []byte) int
// Masks each byte with 0xFE and compares it with 0xE8, 16 bytes a step.
TEXT ·findE8SSE2(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	XORQ AX, AX
	MOVL $0xFEFEFEFE, DX
	MOVQ DX, X1
	PSHUFD $0, X1, X1
	MOVL $0xE8E8E8E8, DX
	MOVQ DX, X2
	PSHUFD $0, X2, X2
	MOVQ CX, BX
	SUBQ $16, BX
	JL   sse2tail

sse2loop:
	MOVOU (SI)(AX*1), X0
	PAND  X1, X0
	PCMPEQB X2, X0
	PMOVMSKB X0, DX
	TESTL DX, DX
	JNZ   found
	ADDQ  $16, AX
	CMPQ  AX, BX
	JLE   sse2loop

sse2tail:
	CMPQ AX, CX
	JAE  notfound
	MOVBLZX (SI)(AX*1), DX
	ANDL $0xFE, DX
	CMPL DX, $0xE8
	JEQ  done
	INCQ AX
	JMP  sse2tail

found:
	BSFL DX, DX
	ADDQ DX, AX

done:
	MOVQ AX, ret+24(FP)
	RET

notfound:
	MOVQ CX, ret+24(FP)
	RET

// func findE8AVX2(b []byte) int
// As findE8SSE2 with 32-byte registers, two of them a step.
TEXT ·findE8AVX2(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	XORQ AX, AX
	MOVL $0xFEFEFEFE, DX
	MOVQ DX, X1
	VPBROADCASTD X1, Y1
	MOVL $0xE8E8E8E8, DX
	MOVQ DX, X2
	VPBROADCASTD X2, Y2
	MOVQ CX, BX
	SUBQ $64, BX
	JL   avx32

avx64loop:
	VPAND   (SI)(AX*1), Y1, Y3
	VPAND   32(SI)(AX*1), Y1, Y4
	VPCMPEQB Y2, Y3, Y3
	VPCMPEQB Y2, Y4, Y4
	VPOR    Y3, Y4, Y5
	VPTEST  Y5, Y5
	JNZ     avx64found
	ADDQ    $64, AX
	CMPQ    AX, BX
	JLE     avx64loop

avx32:
	MOVQ CX, BX
	SUBQ $32, BX
	CMPQ AX, BX
	JG   avxtail
	VPAND   (SI)(AX*1), Y1, Y3
	VPCMPEQB Y2, Y3, Y3
	VPMOVMSKB Y3, DX
	TESTL DX, DX
	JNZ   avxfound
	ADDQ  $32, AX

avxtail:
	VZEROUPPER

avxbytes:
	CMPQ AX, CX
	JAE  avxnotfound
	MOVBLZX (SI)(AX*1), DX
	ANDL $0xFE, DX
	CMPL DX, $0xE8
	JEQ  avxdone
	INCQ AX
	JMP  avxbytes

avx64found:
	VPMOVMSKB Y3, DX
	TESTL DX, DX
	JNZ   avxfound
	VPMOVMSKB Y4, DX
	ADDQ  $32, AX

avxfound:
	VZEROUPPER
	BSFL DX, DX
	ADDQ DX, AX

avxdone:
	MOVQ AX, ret+24(FP)
	RET

avxnotfound:
	MOVQ CX, ret+24(FP)
	RET
