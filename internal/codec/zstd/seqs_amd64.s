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
#define C_LITEND 120
#define C_OUTEND 128

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

// func fusedBMI2(c *seqCtx, tabs *fseTables, in []byte, n int, buf []byte, pos int, lits []byte, wrap int)
//
// fusedLoopGeneric in assembly: decodeLoopBMI2's decoding (the same
// refills at the same points), each sequence then checked and written as
// executeAsm writes it. Registers: R14 c, R10 tabs, BX the bit window, CX
// its bits left, R8 its address, DX/R13/R15 the LL/ML/OF states, SI the
// literals, DI the output; R11 the offset, R12 the literal length, AX and
// R9 scratch. The match length waits in ml on the stack.
TEXT ·fusedBMI2(SB), NOSPLIT, $80-112
	MOVQ c+0(FP), R14
	MOVQ tabs+8(FP), R10
	MOVQ in_base+16(FP), R8
	MOVQ C_FLOOR(R14), AX
	ADDQ R8, AX
	MOVQ AX, C_FLOOR(R14)
	ADDQ C_PTR(R14), R8
	MOVQ C_AVAIL(R14), CX
	MOVQ n+40(FP), AX
	MOVQ AX, left-40(SP)
	MOVQ buf_base+48(FP), AX
	MOVQ AX, ring-48(SP)
	MOVQ wrap+104(FP), R9
	ADDQ AX, R9
	MOVQ R9, lapend-32(SP)
	ADDQ pos+72(FP), AX
	MOVQ AX, blk-64(SP)
	MOVQ AX, R9
	SUBQ C_HIST(R14), R9
	MOVQ R9, base-24(SP)
	MOVQ AX, R9
	ADDQ C_OUTEND(R14), R9
	MOVQ R9, outend-16(SP)
	MOVQ AX, DI
	ADDQ C_OP(R14), DI
	MOVQ lits_base+80(FP), SI
	MOVQ SI, litbase-72(SP)
	MOVQ SI, AX
	ADDQ C_LITEND(R14), AX
	MOVQ AX, litend-8(SP)
	ADDQ C_LITUSED(R14), SI
	MOVQ C_LLS(R14), DX
	MOVQ C_MLS(R14), R13
	MOVQ C_OFS(R14), R15

floop:
	REFILL
	MOVBQZX T_OF+1(R10)(R15*8), AX
	GETBITS(R11)
	MOVL    T_OF+4(R10)(R15*8), R9
	ADDQ    R9, R11
	CMPQ    CX, $32
	JGE     fofok
	REFILL

fofok:
	MOVBQZX T_ML+1(R10)(R13*8), AX
	GETBITS(R12)
	MOVL    T_ML+4(R10)(R13*8), R9
	ADDQ    R9, R12
	MOVQ    R12, ml-56(SP)
	MOVBQZX 1(R10)(DX*8), AX
	GETBITS(R12)
	MOVL    4(R10)(DX*8), R9
	ADDQ    R9, R12
	CMPQ    R11, $3
	JBE     frepeat
	SUBQ    $3, R11
	MOVQ    C_REP1(R14), AX
	MOVQ    AX, C_REP2(R14)
	MOVQ    C_REP0(R14), AX
	MOVQ    AX, C_REP1(R14)
	MOVQ    R11, C_REP0(R14)

foffdone:
	// the literals within the block's, the offset within
	// min(op+ll+hist, window), the output within the block's maximum
	LEAQ    (SI)(R12*1), AX
	CMPQ    AX, litend-8(SP)
	JA      fbadlits
	LEAQ    (DI)(R12*1), AX
	SUBQ    base-24(SP), AX
	CMPQ    AX, C_WINDOW(R14)
	CMOVQHI C_WINDOW(R14), AX
	LEAQ    -1(R11), R9
	CMPQ    R9, AX
	JAE     fbadoff
	MOVQ    ml-56(SP), AX
	LEAQ    (DI)(R12*1), R9
	ADDQ    AX, R9
	CMPQ    R9, outend-16(SP)
	JA      fbadsize

	// 32 bytes of literals whatever their length
	MOVOU (SI), X0
	MOVOU 16(SI), X1
	MOVOU X0, (DI)
	MOVOU X1, 16(DI)
	CMPQ  R12, $32
	JA    flonglits

flitdone:
	ADDQ R12, SI
	ADDQ R12, DI
	MOVQ DI, R12
	SUBQ R11, R12
	CMPQ R12, ring-48(SP)
	JB   flastlap
	CMPQ R11, $16
	JB   fnear

ffar:
	// 32 bytes whatever the length; with an offset under 32 the second
	// load reads what the first store wrote.
	MOVOU (R12), X0
	MOVOU X0, (DI)
	MOVOU 16(R12), X1
	MOVOU X1, 16(DI)
	CMPQ  AX, $32
	JA    flongmatch

fmatchdone:
	ADDQ AX, DI
	DECQ left-40(SP)
	JZ   fdone
	CMPQ CX, $26
	JGE  fstok
	REFILL

fstok:
	MOVBQZX (R10)(DX*8), AX
	GETBITS(R9)
	MOVWQZX 2(R10)(DX*8), DX
	ADDQ    R9, DX
	MOVBQZX T_ML(R10)(R13*8), AX
	GETBITS(R9)
	MOVWQZX T_ML+2(R10)(R13*8), R13
	ADDQ    R9, R13
	MOVBQZX T_OF(R10)(R15*8), AX
	GETBITS(R9)
	MOVWQZX T_OF+2(R10)(R15*8), R15
	ADDQ    R9, R15
	JMP     floop

frepeat:
	XORQ  AX, AX
	TESTQ R12, R12
	SETEQ AL
	ADDQ  AX, R11
	CMPQ  R11, $1
	JNE   frep234
	MOVQ  C_REP0(R14), R11
	JMP   foffdone

frep234:
	CMPQ R11, $4
	JEQ  frep4
	MOVQ C_REP0-8(R14)(R11*8), AX
	CMPQ R11, $3
	JNE  frep2
	MOVQ C_REP1(R14), R9
	MOVQ R9, C_REP2(R14)

frep2:
	MOVQ C_REP0(R14), R9
	MOVQ R9, C_REP1(R14)
	MOVQ AX, C_REP0(R14)
	MOVQ AX, R11
	JMP  foffdone

frep4:
	MOVQ C_REP0(R14), AX
	LEAQ -1(AX), R11
	MOVQ C_REP1(R14), R9
	MOVQ R9, C_REP2(R14)
	MOVQ AX, C_REP1(R14)
	MOVQ R11, C_REP0(R14)
	JMP  foffdone

flonglits:
	MOVQ $32, R9

flitloop:
	MOVOU (SI)(R9*1), X0
	MOVOU X0, (DI)(R9*1)
	ADDQ  $16, R9
	CMPQ  R9, R12
	JB    flitloop
	JMP   flitdone

flongmatch:
	MOVQ $32, R9

fmatchloop:
	MOVOU (R12)(R9*1), X0
	MOVOU X0, (DI)(R9*1)
	ADDQ  $16, R9
	CMPQ  R9, AX
	JB    fmatchloop
	JMP   fmatchdone

fnear:
	XORQ R9, R9
	CMPQ R11, $8
	JB   fbytes

fwords:
	MOVQ (R12)(R9*1), X0
	MOVQ X0, (DI)(R9*1)
	ADDQ $8, R9
	CMPQ R9, AX
	JB   fwords
	JMP  fmatchdone

fbytes:
	MOVB (R12)(R9*1), R11
	MOVB R11, (DI)(R9*1)
	INCQ R9
	CMPQ R9, AX
	JB   fbytes
	JMP  fmatchdone

flastlap:
	// The source is in the ring's last lap: far from every write.
	SUBQ ring-48(SP), R12
	ADDQ lapend-32(SP), R12
	MOVQ lapend-32(SP), R11
	SUBQ R12, R11 // bytes of the last lap from the source on
	CMPQ AX, R11
	JBE  ffar
	XORQ R9, R9
	MOVQ R13, mls-80(SP)

flapbytes:
	MOVB (R12)(R9*1), R13
	MOVB R13, (DI)(R9*1)
	INCQ R9
	CMPQ R9, R11
	JB   flapbytes
	MOVQ ring-48(SP), R12
	SUBQ R9, R12 // the rest from the ring's start, as if at this distance

fstartbytes:
	MOVB (R12)(R9*1), R13
	MOVB R13, (DI)(R9*1)
	INCQ R9
	CMPQ R9, AX
	JB   fstartbytes
	MOVQ mls-80(SP), R13
	JMP  fmatchdone

fbadlits:
	MOVQ $2, C_BAD(R14)
	JMP  fdone

fbadoff:
	MOVQ $1, C_BAD(R14)
	JMP  fdone

fbadsize:
	MOVQ $3, C_BAD(R14)

fdone:
	SUBQ in_base+16(FP), R8
	MOVQ R8, C_PTR(R14)
	MOVQ CX, C_AVAIL(R14)
	MOVQ DX, C_LLS(R14)
	MOVQ R13, C_MLS(R14)
	MOVQ R15, C_OFS(R14)
	SUBQ blk-64(SP), DI
	MOVQ DI, C_OP(R14)
	SUBQ litbase-72(SP), SI
	MOVQ SI, C_LITUSED(R14)
	RET
