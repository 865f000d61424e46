//go:build amd64 && gc && !purego

#include "textflag.h"

// seqCtx field offsets (seqs.go).
#define C_PTR 0
#define C_FLOOR 8
#define C_AVAIL 16
#define C_LLS 24
#define C_MLS 32
#define C_OFS 40
#define C_REP0 48
#define C_REP1 56
#define C_REP2 64
#define C_LITUSED 72
#define C_HIST 80
#define C_WINDOW 88
#define C_OP 96
#define C_END 104
#define C_BAD 112

// Offsets of the tables in fseTables: LL, OF, ML.
#define T_OF 4096
#define T_ML 8192

// REFILL moves the 8-byte window back by the whole bytes read, not below
// the floor, and reloads it. Clobbers AX, R9.
#define REFILL \
	MOVQ    $64, AX        \
	SUBQ    CX, AX         \
	SHRQ    $3, AX         \
	MOVQ    R8, R9         \
	SUBQ    AX, R9         \
	CMPQ    R9, C_FLOOR(R14) \
	CMOVQCS C_FLOOR(R14), R9 \
	MOVQ    R8, AX         \
	SUBQ    R9, AX         \
	SHLQ    $3, AX         \
	ADDQ    AX, CX         \
	MOVQ    R9, R8         \
	MOVQ    (R8), BX

// GETBITS reads AX bits into dst.
#define GETBITS(dst) \
	SUBQ  AX, CX      \
	SHRXQ CX, BX, dst \
	BZHIQ AX, dst, dst

// func decodeLoopBMI2(c *seqCtx, tabs *fseTables, in []byte, seqs []seq)
//
// decodeLoopGeneric with BMI2 bit reads. Registers: R14 c, R10 tabs,
// BX the bit window, CX its bits left, R8 its address, R13 the sequence,
// R15 op, DX/SI/DI the LL/ML/OF states; AX, R9, R11, R12 scratch.
TEXT ·decodeLoopBMI2(SB), NOSPLIT, $0-64
	MOVQ c+0(FP), R14
	MOVQ tabs+8(FP), R10
	MOVQ in_base+16(FP), R8
	MOVQ C_FLOOR(R14), AX
	ADDQ R8, AX
	MOVQ AX, C_FLOOR(R14)
	ADDQ C_PTR(R14), R8
	MOVQ C_AVAIL(R14), CX
	MOVQ seqs_base+40(FP), R13
	MOVQ seqs_len+48(FP), AX
	SHLQ $4, AX
	ADDQ R13, AX
	MOVQ AX, C_END(R14)
	MOVQ C_OP(R14), R15
	MOVQ C_LLS(R14), DX
	MOVQ C_MLS(R14), SI
	MOVQ C_OFS(R14), DI

loop:
	REFILL
	MOVBQZX T_OF+1(R10)(DI*8), AX
	GETBITS(R11)
	MOVL    T_OF+4(R10)(DI*8), R9
	ADDQ    R9, R11
	CMPQ    CX, $32
	JGE     ofok
	REFILL

ofok:
	MOVBQZX T_ML+1(R10)(SI*8), AX
	GETBITS(R12)
	MOVL    T_ML+4(R10)(SI*8), R9
	ADDQ    R9, R12
	MOVL    R12, 4(R13)
	MOVBQZX 1(R10)(DX*8), AX
	GETBITS(R12)
	MOVL    4(R10)(DX*8), R9
	ADDQ    R9, R12
	CMPQ    R11, $3
	JBE     repeat
	SUBQ    $3, R11
	MOVQ    C_REP1(R14), AX
	MOVQ    AX, C_REP2(R14)
	MOVQ    C_REP0(R14), AX
	MOVQ    AX, C_REP1(R14)
	MOVQ    R11, C_REP0(R14)

offdone:
	ADDQ    R12, R15
	ADDQ    R12, C_LITUSED(R14)
	MOVQ    R15, AX
	ADDQ    C_HIST(R14), AX
	CMPQ    AX, C_WINDOW(R14)
	CMOVQHI C_WINDOW(R14), AX
	LEAQ    -1(R11), R9
	CMPQ    R9, AX
	JAE     bad
	MOVL    R12, 0(R13)
	MOVL    R11, 8(R13)
	MOVL    R15, 12(R13)
	MOVL    4(R13), AX
	ADDQ    AX, R15
	ADDQ    $16, R13
	CMPQ    R13, C_END(R14)
	JAE     done
	CMPQ    CX, $26
	JGE     stok
	REFILL

stok:
	MOVBQZX (R10)(DX*8), AX
	GETBITS(R9)
	MOVWQZX 2(R10)(DX*8), DX
	ADDQ    R9, DX
	MOVBQZX T_ML(R10)(SI*8), AX
	GETBITS(R9)
	MOVWQZX T_ML+2(R10)(SI*8), SI
	ADDQ    R9, SI
	MOVBQZX T_OF(R10)(DI*8), AX
	GETBITS(R9)
	MOVWQZX T_OF+2(R10)(DI*8), DI
	ADDQ    R9, DI
	JMP     loop

repeat:
	XORQ  AX, AX
	TESTQ R12, R12
	SETEQ AL
	ADDQ  AX, R11
	CMPQ  R11, $1
	JNE   rep234
	MOVQ  C_REP0(R14), R11
	JMP   offdone

rep234:
	CMPQ R11, $4
	JEQ  rep4
	MOVQ C_REP0-8(R14)(R11*8), AX
	CMPQ R11, $3
	JNE  rep2
	MOVQ C_REP1(R14), R9
	MOVQ R9, C_REP2(R14)

rep2:
	MOVQ C_REP0(R14), R9
	MOVQ R9, C_REP1(R14)
	MOVQ AX, C_REP0(R14)
	MOVQ AX, R11
	JMP  offdone

rep4:
	MOVQ C_REP0(R14), AX
	LEAQ -1(AX), R11
	MOVQ C_REP1(R14), R9
	MOVQ R9, C_REP2(R14)
	MOVQ AX, C_REP1(R14)
	MOVQ R11, C_REP0(R14)
	JMP  offdone

bad:
	MOVQ $1, C_BAD(R14)

done:
	SUBQ in_base+16(FP), R8
	MOVQ R8, C_PTR(R14)
	MOVQ CX, C_AVAIL(R14)
	MOVQ DX, C_LLS(R14)
	MOVQ SI, C_MLS(R14)
	MOVQ DI, C_OFS(R14)
	MOVQ R15, C_OP(R14)
	RET
