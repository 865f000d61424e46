//go:build amd64 && gc && !purego

#include "textflag.h"
#include "copy_amd64.h"

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
#define T_LL 0
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

// VALUE decodes into dst the value of the field whose table is at tab and
// state in st: its base plus its extra bits. Clobbers AX, R9.
#define VALUE(tab, st, dst) \
	MOVBQZX tab+1(R10)(st*8), AX \
	GETBITS(dst)                 \
	MOVL    tab+4(R10)(st*8), R9 \
	ADDQ    R9, dst

// NEXT moves the state st of the field whose table is at tab to its next:
// the next state's base plus the state bits. Clobbers AX, R9.
#define NEXT(tab, st) \
	MOVBQZX tab(R10)(st*8), AX   \
	GETBITS(R9)                  \
	MOVWQZX tab+2(R10)(st*8), st \
	ADDQ    R9, st

// REPEAT resolves a repeat offset: R11 the offset value (1-3), R12 the
// literal length; it leaves the offset in R11, updates the repeat offsets
// and goes to done. Clobbers AX, R9.
#define REPEAT(rep234, rep2, rep4, done) \
	XORQ  AX, AX                     \
	TESTQ R12, R12                   \
	SETEQ AL                         \
	ADDQ  AX, R11                    \
	CMPQ  R11, $1                    \
	JNE   rep234                     \
	MOVQ  C_REP0(R14), R11           \
	JMP   done                       \
rep234:                              \
	CMPQ R11, $4                     \
	JEQ  rep4                        \
	MOVQ C_REP0-8(R14)(R11*8), AX    \
	CMPQ R11, $3                     \
	JNE  rep2                        \
	MOVQ C_REP1(R14), R9             \
	MOVQ R9, C_REP2(R14)             \
rep2:                                \
	MOVQ C_REP0(R14), R9             \
	MOVQ R9, C_REP1(R14)             \
	MOVQ AX, C_REP0(R14)             \
	MOVQ AX, R11                     \
	JMP  done                        \
rep4:                                \
	MOVQ C_REP0(R14), AX             \
	LEAQ -1(AX), R11                 \
	MOVQ C_REP1(R14), R9             \
	MOVQ R9, C_REP2(R14)             \
	MOVQ AX, C_REP1(R14)             \
	MOVQ R11, C_REP0(R14)            \
	JMP  done

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
	VALUE(T_OF, DI, R11)
	CMPQ CX, $32
	JGE  ofok
	REFILL

ofok:
	VALUE(T_ML, SI, R12)
	MOVL R12, 4(R13)
	VALUE(T_LL, DX, R12)
	CMPQ R11, $3
	JBE  repeat
	SUBQ $3, R11
	MOVQ C_REP1(R14), AX
	MOVQ AX, C_REP2(R14)
	MOVQ C_REP0(R14), AX
	MOVQ AX, C_REP1(R14)
	MOVQ R11, C_REP0(R14)

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
	NEXT(T_LL, DX)
	NEXT(T_ML, SI)
	NEXT(T_OF, DI)
	JMP loop

repeat:
	REPEAT(rep234, rep2, rep4, offdone)

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
	VALUE(T_OF, R15, R11)
	CMPQ CX, $32
	JGE  fofok
	REFILL

fofok:
	VALUE(T_ML, R13, R12)
	MOVQ R12, ml-56(SP)
	VALUE(T_LL, DX, R12)
	CMPQ R11, $3
	JBE  frepeat
	SUBQ $3, R11
	MOVQ C_REP1(R14), AX
	MOVQ AX, C_REP2(R14)
	MOVQ C_REP0(R14), AX
	MOVQ AX, C_REP1(R14)
	MOVQ R11, C_REP0(R14)

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
	LITS32(SI, DI)
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
	MATCH32(R12, DI)
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
	NEXT(T_LL, DX)
	NEXT(T_ML, R13)
	NEXT(T_OF, R15)
	JMP floop

frepeat:
	REPEAT(frep234, frep2, frep4, foffdone)

flonglits:
	MOVQ $32, R9
	COPY16(SI, DI, R9, R12, flitloop)
	JMP  flitdone

flongmatch:
	MOVQ $32, R9
	COPY16(R12, DI, R9, AX, fmatchloop)
	JMP  fmatchdone

fnear:
	XORQ R9, R9
	CMPQ R11, $8
	JB   fbytes
	COPY8(R12, DI, R9, AX, X0, fwords)
	JMP fmatchdone

fbytes:
	COPY1(R12, DI, R9, AX, R11, fbyteloop)
	JMP fmatchdone

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
	COPY1(R12, DI, R9, R11, R13, flapbytes)
	MOVQ ring-48(SP), R12
	SUBQ R9, R12 // the rest from the ring's start, as if at this distance
	COPY1(R12, DI, R9, AX, R13, fstartbytes)
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
