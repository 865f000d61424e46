//go:build amd64 && gc && !purego

#include "go_asm.h"
#include "textflag.h"
#include "funcdata.h"

// The allocator's fields, in the subAlloc that ModelI embeds.
#define HI_UNIT (ModelI_subAlloc+subAlloc_hiUnit)
#define LO_UNIT (ModelI_subAlloc+subAlloc_loUnit)

// FINDSYM2 is findSym's loop over the states at SI, two a step (lim in
// AX, the last state's offset; the symbol in BL; IDX from 0, below lim):
// at LFOUND, IDX is the offset of the first state with the symbol, else
// lim. For IDX below lim, IDX+6 is at most lim. The other arguments are
// the labels of each expansion.
#define FINDSYM2(IDX, LLOOP, LFOUND6, LFOUND) \
LLOOP: \
	CMPB    (SI)(IDX*1), BL; \
	JEQ     LFOUND; \
	CMPB    6(SI)(IDX*1), BL; \
	JEQ     LFOUND6; \
	ADDL    $12, IDX; \
	CMPL    IDX, AX; \
	JCS     LLOOP; \
	MOVL    AX, IDX; \
	JMP     LFOUND; \
LFOUND6: \
	ADDL    $6, IDX; \
LFOUND:

// FINDSYMP is FINDSYM2 on a pointer: from P (below END, the last
// state's) to the first state with the symbol SYM, else END.
#define FINDSYMP(P, END, SYM, LLOOP, LFOUND6, LFOUND) \
LLOOP: \
	CMPB    (P), SYM; \
	JEQ     LFOUND; \
	CMPB    6(P), SYM; \
	JEQ     LFOUND6; \
	ADDQ    $12, P; \
	CMPQ    P, END; \
	JCS     LLOOP; \
	MOVQ    END, P; \
	JMP     LFOUND; \
LFOUND6: \
	ADDQ    $6, P; \
LFOUND:

// MKCONTEXTS makes createSuccessors' CX new contexts (first word BX,
// successor R9, each the suffix of the next from DX; R10 the stack of
// states to link) while hiUnit is above loUnit, jumping to LALLOC where
// it is not; DX is then the context made last. SA is the model's
// subAlloc offset; LLOOP the expansion's label.
#define MKCONTEXTS(SA, LLOOP, LALLOC) \
LLOOP: \
	MOVL    (SA+subAlloc_hiUnit)(R13), AX; \
	CMPL    AX, (SA+subAlloc_loUnit)(R13); \
	JEQ     LALLOC; \
	SUBL    $12, AX; \
	MOVL    AX, (SA+subAlloc_hiUnit)(R13); \
	MOVL    AX, SI; \
	ANDQ    R11, SI; \
	MOVL    BX, 0(R12)(SI*1); \
	MOVL    R9, 4(R12)(SI*1); \
	MOVL    DX, 8(R12)(SI*1); \
	DECQ    CX; \
	MOVL    (R10)(CX*4), SI; \
	ANDQ    R11, SI; \
	MOVL    AX, 2(R12)(SI*1); \
	MOVL    AX, DX; \
	TESTQ   CX, CX; \
	JNZ     LLOOP

// SWAP_PREV swaps the state at SI+R10 (R10 a multiple of 6) with the
// state before when that is not more frequent, leaving AX at the state
// with the symbol; LINC is where it goes on when no swap is made.
#define SWAP_PREV(LINC) \
	LEAQ    (SI)(R10*1), AX; \
	TESTL   R10, R10; \
	JZ      LINC; \
	MOVBLZX -5(AX), DX; \
	CMPB    1(AX), DL; \
	JCS     LINC; \
	MOVL    (AX), DX; \
	MOVWLZX 4(AX), R14; \
	MOVL    -6(AX), R10; \
	MOVWLZX -2(AX), SI; \
	MOVL    R10, (AX); \
	MOVW    SI, 4(AX); \
	MOVL    DX, -6(AX); \
	MOVW    R14, -2(AX); \
	SUBQ    $6, AX

// UP_BY_TWO: the state at AX's frequency and its context's (DI) SummFreq
// up by two below 115, then on to LSUF.
#define UP_BY_TWO(LSUF) \
	CMPB    1(AX), $115; \
	JCC     LSUF; \
	ADDB    $2, 1(AX); \
	ADDW    $2, 2(DI)

// WALK_RARE: a walk's division by zero as its results (DX r 0, CX num
// succDivZero, BX head and R9 upSucc 0), then at LALLOC the result to AX.
#define WALK_RARE(LALLOC) \
	XORL    DX, DX; \
	MOVQ    $-1, CX; \
	XORL    BX, BX; \
	XORL    R9, R9; \
LALLOC: \
	MOVL    DX, AX

// WALK_REST: the walk's results to m.upd (UPD; AX r, CX num, BX head, R9
// upSucc), DX the code returned.
#define WALK_REST(UPD) \
	MOVL    AX, (UPD+updState_r)(R13); \
	MOVQ    CX, (UPD+updState_num)(R13); \
	MOVL    BX, (UPD+updState_head)(R13); \
	MOVL    R9, (UPD+updState_upSucc)(R13); \
	MOVL    DX, code+8(FP); \
	RET

// LOOP_DONE: minCtx and maxCtx to fSucc (R8); updDone.
#define LOOP_DONE(MINCTX, MAXCTX) \
	MOVL    R8, MINCTX(R13); \
	MOVL    R8, MAXCTX(R13); \
	MOVL    $const_updDone, code+8(FP); \
	RET

// LOOP_STOP: the loop stopped at AX, for the Go loop (m.upd at UPD).
#define LOOP_STOP(UPD) \
	MOVL    AX, (UPD+updState_r)(R13); \
	MOVL    R8, (UPD+updState_fSucc)(R13); \
	MOVL    56(SP), AX; \
	MOVL    AX, (UPD+updState_succ)(R13); \
	MOVL    $const_updLoop, code+8(FP); \
	RET

// S0_I and S0_H take s0 (DX, SummFreq - ns - fFreq) to each variant's.
#define S0_I
#define S0_H INCL DX

// LOOP_INVARIANTS: to LSET when maxCtx is minCtx; else fSucc (R8) at 48
// and succ (R9) at 56, R10 maxCtx, the heap reloaded, and the loop's
// invariants at 12-32: mc, ns (NumStats loaded by NSLOAD), s0 (S0 the
// variant's), f2, succ, fSym (BX too).
#define LOOP_INVARIANTS(MAXCTX, MINCTX, HEAP, FOUND, LSET, NSLOAD, S0) \
	MOVL    MAXCTX(R13), AX; \
	MOVL    MINCTX(R13), DX; \
	CMPL    AX, DX; \
	JEQ     LSET; \
	MOVL    R8, 48(SP); \
	MOVL    R9, 56(SP); \
	MOVL    AX, R10; \
	MOVL    DX, 12(SP); \
	MOVQ    HEAP(R13), R12; \
	MOVQ    HEAP+8(R13), R11; \
	SUBQ    $const_heapPad, R11; \
	ANDQ    R11, DX; \
	LEAQ    (R12)(DX*1), DI; \
	NSLOAD  0(DI), CX; \
	MOVL    CX, 16(SP); \
	MOVWLZX 2(DI), DX; \
	SUBL    CX, DX; \
	MOVL    FOUND(R13), SI; \
	ANDQ    R11, SI; \
	MOVBLZX 1(R12)(SI*1), AX; \
	MOVBLZX 0(R12)(SI*1), BX; \
	SUBL    AX, DX; \
	S0; \
	MOVL    DX, 20(SP); \
	ADDL    AX, AX; \
	MOVL    AX, 24(SP); \
	MOVL    R9, 28(SP); \
	MOVB    BX, 32(SP)

// ONE_UNIT: a binary context's (DI) one state moved to a state array of
// one unit, from freeList[0] (FL, its count at ST) or loUnit (LO, below
// HI), else to LRET; AX the array, SI the new state. LFROMLO and LGOT
// are the expansion's labels.
#define ONE_UNIT(FL, ST, HI, LO, LFROMLO, LGOT, LRET) \
	MOVL    FL(R13), AX; \
	TESTL   AX, AX; \
	JZ      LFROMLO; \
	MOVL    AX, R8; \
	ANDQ    R11, R8; \
	MOVL    4(R12)(R8*1), R8; \
	MOVL    R8, FL(R13); \
	DECL    ST(R13); \
	JMP     LGOT; \
LFROMLO: \
	MOVL    HI(R13), R8; \
	SUBL    LO(R13), R8; \
	CMPL    R8, $12; \
	JCS     LRET; \
	MOVL    LO(R13), AX; \
	ADDL    $12, LO(R13); \
LGOT: \
	MOVL    AX, SI; \
	ANDQ    R11, SI; \
	ADDQ    R12, SI; \
	MOVL    2(DI), R8; \
	MOVWLZX 6(DI), R9; \
	MOVL    R8, (SI); \
	MOVW    R9, 4(SI); \
	MOVL    AX, 4(DI)

// NEW_FREQ: from SummFreq (AX), f2 (24) and s0 (20), cf (R8) and sum
// (R9); to LBIG where cf >= 6*sum, else R10 the new state's frequency
// 1 + (cf > sum) + (cf >= 4*sum).
#define NEW_FREQ(LBIG) \
	LEAL    6(AX), R8; \
	IMULL   24(SP), R8; \
	MOVL    AX, R9; \
	ADDL    20(SP), R9; \
	LEAL    (R9)(R9*2), R10; \
	ADDL    R10, R10; \
	CMPL    R8, R10; \
	JCC     LBIG; \
	MOVL    $1, R10; \
	CMPL    R9, R8; \
	ADCL    $0, R10; \
	MOVL    R9, R14; \
	SHLL    $2, R14; \
	CMPL    R8, R14; \
	SBBL    $-1, R10

// NEW_STATE writes the new state at R8 (masked here): fSym (32),
// frequency R10, successor (28).
#define NEW_STATE \
	ANDQ    R11, R8; \
	MOVBLZX 32(SP), R9; \
	MOVB    R9, (R12)(R8*1); \
	MOVB    R10, 1(R12)(R8*1); \
	MOVL    28(SP), R9; \
	MOVL    R9, 2(R12)(R8*1)

// CSUCC_I is createSuccessorsI from the walk on (R13 m, R12 heap, R11
// hm, R10 &m.stack, R8 upBranch, BX the found symbol, CX the states
// pushed, DX c; s1 in the slot S1, TMP a slot for DX): it jumps to
// LDONE with the result in DX, to LALLOC with DX, CX num, BX head and
// R9 upSucc for newContexts, to LFAIL, or to LDIVZERO; it falls
// through to LDONE. The other arguments are the labels of each
// expansion.
#define CSUCC_I(S1, TMP, LWALK, LTAKES1, LBINARY, LSUCC, LPUSH, LLINK, LUPMULTI, LUDIV, LMKHEAD, LWLOOP, LWFOUND6, LWFOUND, LULOOP, LUFOUND6, LUFOUND, LMKLOOP, LDONE, LALLOC, LFAIL, LDIVZERO) \
LWALK: \
	MOVL    DX, SI; \
	ANDQ    R11, SI; \
	MOVL    8(R12)(SI*1), AX; \
	TESTL   AX, AX; \
	JZ      LLINK; \
	MOVL    AX, DX; \
	ANDQ    R11, AX; \
	LEAQ    (R12)(AX*1), DI /* the suffix context */; \
	MOVL    S1, AX; \
	TESTL   AX, AX; \
	JNZ     LTAKES1; \
	MOVBLZX 0(DI), AX; \
	TESTL   AX, AX; \
	JZ      LBINARY; \
	/* findSym: the first of the states 0..last with the symbol, else */ \
	/* the last; then its frequency and SummFreq up by one below 115. */ \
	IMULL   $6, AX /* lim, the last state's offset */; \
	MOVL    4(DI), SI; \
	ANDQ    R11, SI; \
	ADDQ    R12, SI; \
	/* Two states a step: for i below lim, i+6 is at most lim. */ \
	XORL    R9, R9; \
	TESTL   AX, AX; \
	JZ      LWFOUND; \
	FINDSYM2(R9, LWLOOP, LWFOUND6, LWFOUND); \
	MOVL    4(DI), AX; \
	ADDL    R9, AX /* s */; \
	MOVL    AX, SI; \
	ANDQ    R11, SI; \
	CMPB    1(R12)(SI*1), $115; \
	JCC     LSUCC; \
	INCB    1(R12)(SI*1); \
	INCW    2(DI); \
	JMP     LSUCC; \
LTAKES1: \
	MOVL    $0, S1; \
	JMP     LSUCC; \
LBINARY: \
	/* s is the one state; its frequency up by one below 24 when the */ \
	/* suffix's suffix is binary too. */ \
	LEAL    2(DX), AX; \
	MOVL    8(DI), SI; \
	ANDQ    R11, SI; \
	CMPB    (R12)(SI*1), $0; \
	JNE     LSUCC; \
	CMPB    3(DI), $24; \
	JCC     LSUCC; \
	INCB    3(DI); \
LSUCC: \
	/* AX is s. */ \
	MOVL    AX, SI; \
	ANDQ    R11, SI; \
	MOVL    2(R12)(SI*1), SI; \
	CMPL    SI, R8; \
	JEQ     LPUSH; \
	MOVL    SI, DX; \
	TESTQ   CX, CX; \
	JNZ     LLINK; \
	JMP     LDONE; \
LPUSH: \
	CMPQ    CX, $const_MaxOrderI+1; \
	JCC     LFAIL; \
	MOVL    AX, (R10)(CX*4); \
	INCQ    CX; \
	JMP     LWALK; \
LLINK: \
	TESTQ   CX, CX; \
	JZ      LDONE; \
	/* BX: 0x10 when the found symbol is 0x40 or above. */ \
	ADDL    $0xC0, BX; \
	SHRL    $8, BX; \
	SHLL    $4, BX; \
	MOVL    R8, SI; \
	ANDQ    R11, SI; \
	MOVBLZX (R12)(SI*1), R9 /* upSym */; \
	MOVL    DX, SI; \
	ANDQ    R11, SI; \
	LEAQ    (R12)(SI*1), DI /* c */; \
	MOVBLZX 0(DI), AX; \
	TESTL   AX, AX; \
	JNZ     LUPMULTI; \
	MOVBLZX 3(DI), R14 /* upFreq: the one state's */; \
	JMP     LMKHEAD; \
LUPMULTI: \
	/* findSym for upSym, the range from SI to AX. */ \
	MOVL    4(DI), SI; \
	ANDQ    R11, SI; \
	ADDQ    R12, SI; \
	IMULL   $6, AX; \
	ADDQ    SI, AX; \
	MOVQ    SI, R14; \
	CMPQ    R14, AX; \
	JCC     LUFOUND; \
	FINDSYMP(R14, AX, R9B, LULOOP, LUFOUND6, LUFOUND); \
	SUBQ    SI, R14; \
	ADDL    4(DI), R14 /* s */; \
	ANDQ    R11, R14; \
	MOVBLZX 1(R12)(R14*1), AX; \
	DECL    AX /* cf */; \
	MOVWLZX 2(DI), SI; \
	MOVBLZX 0(DI), R14; \
	SUBL    R14, SI; \
	SUBL    AX, SI /* s0 */; \
	LEAL    (AX)(AX*1), R14; \
	CMPL    R14, SI; \
	JHI     LUDIV; \
	LEAL    (AX)(AX*4), AX; \
	MOVL    $1, R14; \
	CMPL    SI, AX; \
	ADCL    $0, R14 /* 1 + (5*cf > s0) */; \
	JMP     LMKHEAD; \
LUDIV: \
	TESTL   SI, SI; \
	JZ      LDIVZERO; \
	LEAL    -3(AX)(SI*2), AX; \
	MOVL    DX, TMP; \
	XORL    DX, DX; \
	DIVL    SI; \
	LEAL    1(AX), R14; \
	MOVL    TMP, DX; \
LMKHEAD: \
	/* head = flags<<8 | upSym<<16 | upFreq<<24; upSucc = upBranch+1. */ \
	LEAL    0xC0(R9), AX; \
	SHRL    $8, AX; \
	SHLL    $3, AX; \
	ORL     AX, BX; \
	SHLL    $8, BX; \
	SHLL    $16, R9; \
	ORL     R9, BX; \
	SHLL    $24, R14; \
	ORL     R14, BX; \
	LEAL    1(R8), R9; \
	MKCONTEXTS(ModelI_subAlloc, LMKLOOP, LALLOC)

// CSUCC_H is createSuccessorsH from the walk on, as CSUCC_I is
// createSuccessorsI's (no s1).
#define CSUCC_H(TMP, LWALK, LWLOOP, LWFOUND6, LWFOUND, LBINARY, LSUCC, LPUSH, LLINK, LUPMULTI, LULOOP, LUFOUND6, LUFOUND, LUDIV, LMKHEAD, LMKLOOP, LDONE, LALLOC, LFAIL, LDIVZERO) \
LWALK: \
	MOVL    DX, SI; \
	ANDQ    R11, SI; \
	MOVL    8(R12)(SI*1), AX; \
	TESTL   AX, AX; \
	JZ      LLINK; \
	MOVL    AX, DX; \
	ANDQ    R11, AX; \
	LEAQ    (R12)(AX*1), DI /* the suffix context */; \
	/* Its suffix, where the walk goes next when it pushes, asked */ \
	/* for before the search, which waits for the states. */ \
	MOVL    8(DI), SI; \
	ANDQ    R11, SI; \
	PREFETCHT0 (R12)(SI*1); \
	MOVWLZX 0(DI), AX; \
	CMPL    AX, $1; \
	JEQ     LBINARY; \
	/* findSym over the states 0..byte(ns-1), two a step. */ \
	DECL    AX; \
	MOVBLZX AL, AX; \
	IMULL   $6, AX /* lim, the last state's offset */; \
	MOVL    4(DI), SI; \
	ANDQ    R11, SI; \
	ADDQ    R12, SI; \
	XORL    R9, R9; \
	TESTL   AX, AX; \
	JZ      LWFOUND; \
	FINDSYM2(R9, LWLOOP, LWFOUND6, LWFOUND); \
	MOVL    4(DI), AX; \
	ADDL    R9, AX /* s */; \
	JMP     LSUCC; \
LBINARY: \
	LEAL    2(DX), AX; \
LSUCC: \
	/* AX is s. */ \
	MOVL    AX, SI; \
	ANDQ    R11, SI; \
	MOVL    2(R12)(SI*1), SI; \
	CMPL    SI, R8; \
	JEQ     LPUSH; \
	MOVL    SI, DX; \
	TESTQ   CX, CX; \
	JNZ     LLINK; \
	JMP     LDONE; \
LPUSH: \
	CMPQ    CX, $const_MaxOrder; \
	JCC     LFAIL; \
	MOVL    AX, (R10)(CX*4); \
	INCQ    CX; \
	JMP     LWALK; \
LLINK: \
	MOVL    R8, SI; \
	ANDQ    R11, SI; \
	MOVBLZX (R12)(SI*1), R9 /* upSym */; \
	MOVL    DX, SI; \
	ANDQ    R11, SI; \
	LEAQ    (R12)(SI*1), DI /* c */; \
	MOVWLZX 0(DI), AX; \
	CMPL    AX, $1; \
	JNE     LUPMULTI; \
	MOVBLZX 3(DI), R14 /* upFreq: the one state's */; \
	JMP     LMKHEAD; \
LUPMULTI: \
	/* findSym for upSym, the range from SI to BX (the found symbol is */ \
	/* not needed any more). */ \
	MOVL    AX, R14 /* ns */; \
	DECL    AX; \
	MOVBLZX AL, AX; \
	IMULL   $6, AX; \
	MOVL    4(DI), SI; \
	ANDQ    R11, SI; \
	ADDQ    R12, SI; \
	LEAQ    (SI)(AX*1), BX; \
	MOVQ    SI, AX; \
	CMPQ    AX, BX; \
	JCC     LUFOUND; \
	FINDSYMP(AX, BX, R9B, LULOOP, LUFOUND6, LUFOUND); \
	SUBQ    SI, AX; \
	ADDL    4(DI), AX /* s */; \
	ANDQ    R11, AX; \
	MOVBLZX 1(R12)(AX*1), AX; \
	DECL    AX /* cf */; \
	MOVWLZX 2(DI), SI; \
	SUBL    R14, SI; \
	SUBL    AX, SI /* s0 = SummFreq - ns - cf */; \
	LEAL    (AX)(AX*1), R14; \
	CMPL    R14, SI; \
	JHI     LUDIV; \
	LEAL    (AX)(AX*4), AX; \
	MOVL    $1, R14; \
	CMPL    SI, AX; \
	ADCL    $0, R14 /* 1 + (5*cf > s0) */; \
	JMP     LMKHEAD; \
LUDIV: \
	/* 1 + (2*cf + 3*s0 - 1) / (2*s0) */ \
	LEAL    (SI)(SI*2), BX; \
	LEAL    -1(R14)(BX*1), AX; \
	ADDL    SI, SI; \
	JZ      LDIVZERO; \
	MOVL    DX, TMP; \
	XORL    DX, DX; \
	DIVL    SI; \
	LEAL    1(AX), R14; \
	MOVL    TMP, DX; \
LMKHEAD: \
	/* head = 1 | upSym<<16 | upFreq<<24; upSucc = upBranch+1. */ \
	SHLL    $16, R9; \
	SHLL    $24, R14; \
	LEAL    1(R9)(R14*1), BX; \
	LEAL    1(R8), R9; \
	TESTQ   CX, CX; \
	JZ      LDONE; \
	MKCONTEXTS(ModelH_subAlloc, LMKLOOP, LALLOC)

// func createSuccessorsI(m *ModelI, skip bool, s1, c uint32) (r uint32, num uint, head, upSucc uint32)
//
// ModelI.createSuccessorsGeneric: the walk down the suffixes, the new
// contexts' first word, and the new contexts while the allocator's
// common case (hiUnit above loUnit) serves them. num is 0 when it is
// done (r is the result); else r is the context made last (or c), and
// newContexts makes the num left with head and upSucc. num is
// succDivZero where the generic divides by zero. Every heap access is
// at an offset ANDed with the heap's mask, as in Go (views of at most 12
// bytes); a heap shorter than heapPad gives 0, as in Go.
//
// Registers: R13 m, R12 heap, R11 hm, R10 &m.stack, R8 upBranch, BX the
// found symbol, CX num, DX c; s1 stays in its argument slot.
TEXT ·createSuccessorsI(SB), NOSPLIT|NOFRAME, $0-48
	MOVBLZX ·useEscapeAsm(SB), AX
	TESTL   AX, AX
	JZ      generic
	MOVQ    m+0(FP), R13
	MOVQ    (ModelI_subAlloc+subAlloc_heap)(R13), R12
	MOVQ    (ModelI_subAlloc+subAlloc_heap+8)(R13), R11
	SUBQ    $const_heapPad, R11
	JCS     fail
	MOVL    c+16(FP), DX
	LEAQ    ModelI_stack(R13), R10
	MOVL    ModelI_found(R13), AX
	MOVL    AX, SI
	ANDQ    R11, SI
	MOVBLZX 0(R12)(SI*1), BX
	MOVL    2(R12)(SI*1), R8
	XORL    CX, CX
	MOVBLZX skip+8(FP), SI
	TESTL   SI, SI
	JNZ     walk
	MOVL    AX, (R10)
	MOVL    $1, CX

	CSUCC_I(s1+12(FP), r+24(FP), walk, takes1, binary, succ, push, link, upmulti, udiv, mkhead, wloop, wfound6, wfound, uloop, ufound6, ufound, mkloop, done, alloc, fail, divzero)

done:
	MOVL    DX, r+24(FP)
	MOVQ    $0, num+32(FP)
	MOVL    $0, head+40(FP)
	MOVL    $0, upSucc+44(FP)
	RET

alloc:
	MOVL    DX, r+24(FP)
	MOVQ    CX, num+32(FP)
	MOVL    BX, head+40(FP)
	MOVL    R9, upSucc+44(FP)
	RET

fail:
	MOVL    $0, r+24(FP)
	MOVQ    $0, num+32(FP)
	MOVL    $0, head+40(FP)
	MOVL    $0, upSucc+44(FP)
	RET

divzero:
	MOVL    $0, r+24(FP)
	MOVQ    $-1, num+32(FP)
	MOVL    $0, head+40(FP)
	MOVL    $0, upSucc+44(FP)
	RET

generic:
	MOVL    $0, r+24(FP)
	MOVQ    $const_succGeneric, num+32(FP)
	MOVL    $0, head+40(FP)
	MOVL    $0, upSucc+44(FP)
	RET

#define HI_UNIT_H (ModelH_subAlloc+subAlloc_hiUnit)
#define LO_UNIT_H (ModelH_subAlloc+subAlloc_loUnit)

// func createSuccessorsH(m *ModelH, skip bool) (r uint32, num uint, head, upSucc uint32)
//
// ModelH.createSuccessorsGeneric as createSuccessorsI is ModelI's:
// contexts of variant H (NumStats u16, one state when 1), no frequency
// updates on the walk, the new contexts' frequency computed even when
// none is to be made (as in Go), from minCtx.
//
// Registers: R13 m, R12 heap, R11 hm, R10 &m.stack, R8 upBranch, BX the
// found symbol, CX num, DX c.
TEXT ·createSuccessorsH(SB), NOSPLIT|NOFRAME, $0-40
	MOVBLZX ·useEscapeAsm(SB), AX
	TESTL   AX, AX
	JZ      hgeneric
	MOVQ    m+0(FP), R13
	MOVQ    (ModelH_subAlloc+subAlloc_heap)(R13), R12
	MOVQ    (ModelH_subAlloc+subAlloc_heap+8)(R13), R11
	SUBQ    $const_heapPad, R11
	JCS     hfail
	MOVL    ModelH_minCtx(R13), DX
	LEAQ    ModelH_stack(R13), R10
	MOVL    ModelH_found(R13), AX
	MOVL    AX, SI
	ANDQ    R11, SI
	MOVBLZX 0(R12)(SI*1), BX
	MOVL    2(R12)(SI*1), R8
	XORL    CX, CX
	MOVBLZX skip+8(FP), SI
	TESTL   SI, SI
	JNZ     hwalk
	MOVL    AX, (R10)
	MOVL    $1, CX

	CSUCC_H(r+16(FP), hwalk, hwloop, hwfound6, hwfound, hbinary, hsucc, hpush, hlink, hupmulti, huloop, hufound6, hufound, hudiv, hmkhead, hmkloop, hdone, halloc, hfail, hdivzero)

hdone:
	MOVL    DX, r+16(FP)
	MOVQ    $0, num+24(FP)
	MOVL    $0, head+32(FP)
	MOVL    $0, upSucc+36(FP)
	RET

halloc:
	MOVL    DX, r+16(FP)
	MOVQ    CX, num+24(FP)
	MOVL    BX, head+32(FP)
	MOVL    R9, upSucc+36(FP)
	RET

hfail:
	MOVL    $0, r+16(FP)
	MOVQ    $0, num+24(FP)
	MOVL    $0, head+32(FP)
	MOVL    $0, upSucc+36(FP)
	RET

hdivzero:
	MOVL    $0, r+16(FP)
	MOVQ    $-1, num+24(FP)
	MOVL    $0, head+32(FP)
	MOVL    $0, upSucc+36(FP)
	RET

hgeneric:
	MOVL    $0, r+16(FP)
	MOVQ    $const_succGeneric, num+24(FP)
	MOVL    $0, head+32(FP)
	MOVL    $0, upSucc+36(FP)
	RET

// GROW_STATES moves a context's full state array (DI the context, CX its
// NumStats less one or, for H, NumStats, R10 oldNU) to one unit more: from
// freeList[i+1] (BX i) or from loUnit, jumping to ret where neither has it;
// the old units go to freeList[i]. SA is the model's subAlloc offset; the
// other arguments are the labels of each expansion.
#define GROW_STATES(SA, LMULTI, LFROMLO, LGOTP, LCOPY, LRET) \
	SHRL    $1, R10; \
	LEAQ    ·units2Indx(SB), SI; \
	MOVBLZX -1(SI)(R10*1), BX; \
	CMPB    (SI)(R10*1), BL; \
	JEQ     LMULTI; \
	LEAQ    (SA+subAlloc_freeList)(R13), SI; \
	MOVL    4(SI)(BX*4), AX; \
	TESTL   AX, AX; \
	JZ      LFROMLO; \
	MOVL    AX, R8; \
	ANDQ    R11, R8; \
	MOVL    4(R12)(R8*1), R8; \
	MOVL    R8, 4(SI)(BX*4); \
	DECL    (SA+subAlloc_stamps+4)(R13)(BX*4); \
	JMP     LGOTP; \
LFROMLO: \
	LEAQ    ·indx2Units(SB), R8; \
	MOVBLZX 1(R8)(BX*1), R8; \
	IMULL   $12, R8; \
	MOVL    (SA+subAlloc_hiUnit)(R13), R9; \
	SUBL    (SA+subAlloc_loUnit)(R13), R9; \
	CMPL    R8, R9; \
	JHI     LRET; \
	MOVL    (SA+subAlloc_loUnit)(R13), AX; \
	ADDL    R8, (SA+subAlloc_loUnit)(R13); \
LGOTP: \
	MOVL    4(DI), R9; \
	MOVL    AX, R14; \
	MOVL    R9, R8; \
LCOPY: \
	MOVL    R8, SI; \
	ANDQ    R11, SI; \
	MOVL    R14, DI; \
	ANDQ    R11, DI; \
	MOVQ    (R12)(SI*1), X0; \
	MOVL    8(R12)(SI*1), X1; \
	MOVQ    X0, (R12)(DI*1); \
	MOVL    X1, 8(R12)(DI*1); \
	ADDL    $12, R8; \
	ADDL    $12, R14; \
	DECL    R10; \
	JNZ     LCOPY; \
	MOVL    R9, SI; \
	ANDQ    R11, SI; \
	MOVL    $0xFFFFFFFF, (R12)(SI*1); \
	MOVL    (SA+subAlloc_freeList)(R13)(BX*4), R8; \
	MOVL    R8, 4(R12)(SI*1); \
	LEAQ    ·indx2Units(SB), R8; \
	MOVBLZX (R8)(BX*1), R8; \
	MOVL    R8, 8(R12)(SI*1); \
	MOVL    R9, (SA+subAlloc_freeList)(R13)(BX*4); \
	INCL    (SA+subAlloc_stamps)(R13)(BX*4); \
	MOVL    DX, DI; \
	ANDQ    R11, DI; \
	ADDQ    R12, DI; \
	MOVL    AX, 4(DI)

#define FREE_LIST (ModelI_subAlloc+subAlloc_freeList)
#define STAMPS (ModelI_subAlloc+subAlloc_stamps)

#define FREE_LIST_H (ModelH_subAlloc+subAlloc_freeList)
#define STAMPS_H (ModelH_subAlloc+subAlloc_stamps)

#define HEAP_I (ModelI_subAlloc+subAlloc_heap)
#define TEXT_I (ModelI_subAlloc+subAlloc_text)
#define UNITS_START_I (ModelI_subAlloc+subAlloc_unitsStart)

// func updateModelI(m *ModelI) (code uint32)
//
// ModelI.updateModelGeneric: the suffix context's update, the
// successors made before the text write or after it (createSuccessorsI
// inline at each: CSUCC_I),
// the text write, and the loop over the contexts from maxCtx up to
// minCtx (not included), each given the found symbol as a new state (its
// state array moved to one more unit where it is full, a binary context
// turned into one of two states), in Go's order of reads and writes.
// Where Go is to go on (the allocator's rare cases, reduceOrder,
// restoreModel) it returns the code saying so, with m.upd: the loop stops
// at the first context that needs the allocator's rare case, before
// changing it. updDone when it did all; updGeneric, having done nothing,
// when the tests turn useEscapeAsm off or the heap is shorter than
// heapPad.
//
// The frame: the walk's s1 at 12 and its slot for DX at 24; the loop's
// invariants at 12-33 (mc, ns, s0, f2 twice the found state's
// frequency, succ, fSym, flag); fSucc at 48, the suffix's state s at 52,
// succ at 56 (NO_LOCAL_POINTERS: no pointers, and no calls). Registers
// up to the walk: R13 m, R12 heap, R11 hm, BX the found symbol, R8
// fSucc, R9 s; in the walk as in createSuccessorsI; in the loop R13,
// R12, R11, DX the context's reference, DI the context, CX its
// NumStats-1.
TEXT ·updateModelI(SB), NOSPLIT, $64-12
	NO_LOCAL_POINTERS
	MOVBLZX ·useEscapeAsm(SB), AX
	TESTL   AX, AX
	JZ      ugeneric
	MOVQ    m+0(FP), R13
	MOVQ    HEAP_I(R13), R12
	MOVQ    HEAP_I+8(R13), R11
	SUBQ    $const_heapPad, R11
	JCS     ugeneric
	MOVL    ModelI_found(R13), AX
	ANDQ    R11, AX
	MOVBLZX 0(R12)(AX*1), BX         // fSym
	MOVBLZX 1(R12)(AX*1), CX         // fFreq
	MOVL    2(R12)(AX*1), R8         // fSucc
	// The context fSucc most often becomes the next symbol's: its load
	// from memory overlaps the update's own.
	MOVL    R8, DX
	ANDQ    R11, DX
	PREFETCHT0 (R12)(DX*1)
	// And, when it is a context, its states (or a binary context's
	// state's successor) as soon as the context is in.
	CMPL    R8, UNITS_START_I(R13)
	JCS     upf
	MOVL    4(R12)(DX*1), DX
	ANDQ    R11, DX
	PREFETCHT0 (R12)(DX*1)

upf:
	XORL    R9, R9                   // s
	CMPL    CX, $31
	JCC     usuf
	MOVL    ModelI_minCtx(R13), AX
	ANDQ    R11, AX
	MOVL    8(R12)(AX*1), DX         // the suffix
	TESTL   DX, DX
	JZ      usuf
	MOVL    DX, AX
	ANDQ    R11, AX
	LEAQ    (R12)(AX*1), DI
	MOVBLZX 0(DI), AX                // NumStats-1
	TESTL   AX, AX
	JNZ     usmulti
	LEAL    2(DX), R9                // its one state
	CMPB    3(DI), $32
	JCC     usuf
	INCB    3(DI)
	JMP     usuf

usmulti:
	// findSym, two states a step (lim is 6 or more).
	IMULL   $6, AX                   // lim, the last state's offset
	MOVL    4(DI), SI
	ANDQ    R11, SI
	ADDQ    R12, SI                  // the states
	XORL    R10, R10

	FINDSYM2(R10, usloop, usfound6, usfound)
	// Swapped with the state before when not less frequent; then its
	// frequency and SummFreq up by two below 115.
	MOVL    4(DI), R9
	ADDL    R10, R9                  // s
	SWAP_PREV(usinc)
	SUBL    $6, R9

usinc:
	UP_BY_TWO(usuf)

usuf:
	MOVL    R8, 48(SP)
	MOVL    R9, 52(SP)
	CMPL    ModelI_orderFall(R13), $0
	JNE     utext
	TESTL   R8, R8
	JZ      utext

	// The successors from minCtx, the found state's own skipped
	// (createSuccessorsI inline; s1 at 12).
	MOVL    R9, 12(SP)
	MOVL    ModelI_minCtx(R13), DX
	LEAQ    ModelI_stack(R13), R10
	MOVL    ModelI_found(R13), AX
	ANDQ    R11, AX
	MOVBLZX 0(R12)(AX*1), BX
	MOVL    2(R12)(AX*1), R8
	XORL    CX, CX
	CSUCC_I(12(SP), 24(SP), awalk, atakes1, abinary, asucc, apush, alink, aupmulti, audiv, amkhead, awloop, awfound6, awfound, auloop, aufound6, aufound, amkloop, adone, aalloc, afail, adivzero)

adone:
	MOVL    ModelI_found(R13), SI
	ANDQ    R11, SI
	MOVL    DX, 2(R12)(SI*1)
	TESTL   DX, DX
	JZ      urestore
	MOVL    DX, ModelI_minCtx(R13)   // as the callers do after updateModel
	MOVL    DX, ModelI_maxCtx(R13)
	MOVL    $const_updDone, code+8(FP)
	RET

afail:
	XORL    DX, DX
	JMP     adone

adivzero:
	WALK_RARE(aalloc)
	MOVL    $const_updTopRest, DX
	JMP     urest

utext:
	MOVL    TEXT_I(R13), AX
	MOVL    AX, SI
	ANDQ    R11, SI
	MOVB    BX, (R12)(SI*1)
	INCL    AX
	MOVL    AX, TEXT_I(R13)
	CMPL    AX, UNITS_START_I(R13)
	JCC     urestore
	MOVL    AX, 56(SP)               // succ
	TESTL   R8, R8
	JZ      ureduce
	CMPL    R8, UNITS_START_I(R13)
	JCC     ucontexts

	// The successors from minCtx (createSuccessorsI inline; s1 at 12).
	MOVL    R9, 12(SP)
	MOVL    ModelI_minCtx(R13), DX
	LEAQ    ModelI_stack(R13), R10
	MOVL    ModelI_found(R13), AX
	MOVL    AX, (R10)
	ANDQ    R11, AX
	MOVBLZX 0(R12)(AX*1), BX
	MOVL    2(R12)(AX*1), R8
	MOVL    $1, CX
	CSUCC_I(12(SP), 24(SP), bwalk, btakes1, bbinary, bsucc, bpush, blink, bupmulti, budiv, bmkhead, bwloop, bwfound6, bwfound, buloop, bufound6, bufound, bmkloop, bdone, balloc, urestore, bdivzero)

bdone:
	TESTL   DX, DX
	JZ      urestore
	MOVL    DX, R8                   // fSucc

ucontexts:
	// R13 m, R8 fSucc.
	MOVL    56(SP), R9               // succ
	DECL    ModelI_orderFall(R13)
	JNZ     uloop
	MOVL    R8, R9
	MOVL    ModelI_maxCtx(R13), AX
	CMPL    AX, ModelI_minCtx(R13)
	JEQ     uloop
	DECL    TEXT_I(R13)

uloop:
	// The loop's invariants in the frame.
	LOOP_INVARIANTS(ModelI_maxCtx, ModelI_minCtx, HEAP_I, ModelI_found, uset, MOVBLZX, S0_I)
	ADDL    $0xC0, BX
	SHRL    $8, BX
	SHLL    $3, BX
	MOVB    BX, 33(SP)               // flag
	MOVL    R10, DX

	// The loop: from maxCtx, up to the first context that needs the
	// allocator's rare case (DX then) or to mc.
lloop:
	MOVL    DX, SI
	ANDQ    R11, SI
	LEAQ    (R12)(SI*1), DI          // the context
	MOVBLZX 0(DI), CX                // NumStats-1
	TESTL   CX, CX
	JZ      lbinary
	TESTL   $1, CX
	JZ      lmulti

	// The stats fill their units: to one more, from the free list of
	// that size or from loUnit, else stop.
	LEAL    1(CX), R10
	GROW_STATES(ModelI_subAlloc, lmulti, lfromlo, lgotp, lcopy, lret)

lmulti:
	// SummFreq up by one when 3*ns1+1 < ns.
	LEAL    1(CX)(CX*2), AX
	CMPL    AX, 16(SP)
	JCC     lcommon
	INCW    2(DI)
	JMP     lcommon

lbinary:
	// The one state to a state array of one unit, from freeList[0] or
	// loUnit, else stop.
	ONE_UNIT(FREE_LIST, STAMPS, HI_UNIT, LO_UNIT, lbfromlo, lbgot, lret)
	MOVBLZX 1(SI), R8                // f
	CMPL    R8, $30
	JCC     lbmax
	ADDL    R8, R8
	JMP     lbset

lbmax:
	MOVL    $120, R8

lbset:
	MOVB    R8, 1(SI)
	ADDL    ModelI_initEsc(R13), R8
	MOVL    16(SP), R9
	CMPL    R9, $2
	JLS     lbsf
	INCL    R8

lbsf:
	MOVW    R8, 2(DI)

lcommon:
	// The new state's frequency n (R10) and SummFreq (AX).
	MOVWLZX 2(DI), AX                // sf
	NEW_FREQ(lbig)
	ADDL    $4, AX
	JMP     lstore

lbig:
	MOVL    $4, R10
	LEAL    (R9)(R9*8), R14
	CMPL    R14, R8
	ADCL    $0, R10                  // + (cf > 9*sum)
	LEAL    (R9)(R9*2), R14
	SHLL    $2, R14
	CMPL    R14, R8
	ADCL    $0, R10                  // + (cf > 12*sum)
	MOVL    R9, R14
	SHLL    $4, R14
	SUBL    R9, R14
	CMPL    R14, R8
	ADCL    $0, R10                  // + (cf > 15*sum)
	ADDL    R10, AX

lstore:
	MOVW    AX, 2(DI)
	MOVL    4(DI), R8
	LEAL    1(CX), R9
	LEAL    (R9)(R9*2), R9
	ADDL    R9, R9
	ADDL    R9, R8                   // the new state: stats+(ns1+1)*6
	NEW_STATE
	MOVBLZX 33(SP), R9
	ORB     R9, 1(DI)
	INCL    CX
	MOVB    CX, 0(DI)
	MOVL    8(DI), DX
	CMPL    DX, 12(SP)
	JNE     lloop
lret:
	MOVL    48(SP), R8
	MOVL    DX, AX                   // where the loop stopped
	CMPL    AX, ModelI_minCtx(R13)
	JNE     uloopstop

uset:
	LOOP_DONE(ModelI_minCtx, ModelI_maxCtx)

uloopstop:
	LOOP_STOP(ModelI_upd)

bdivzero:
	WALK_RARE(balloc)
	MOVL    $const_updMidRest, DX

urest:
	// The walk's results to m.upd (AX r, CX num, BX head, R9 upSucc);
	// DX the code.
	MOVL    52(SP), SI
	MOVL    SI, (ModelI_upd+updState_s)(R13)
	WALK_REST(ModelI_upd)

ureduce:
	MOVL    R9, (ModelI_upd+updState_s)(R13)
	MOVL    $const_updReduce, code+8(FP)
	RET

urestore:
	MOVL    $const_updRestore, code+8(FP)
	RET

ugeneric:
	MOVL    $const_updGeneric, code+8(FP)
	RET

#define HEAP_H (ModelH_subAlloc+subAlloc_heap)
#define TEXT_H (ModelH_subAlloc+subAlloc_text)
#define UNITS_START_H (ModelH_subAlloc+subAlloc_unitsStart)

// func updateModelH(m *ModelH) (code uint32)
//
// ModelH.updateModelGeneric as updateModelI is ModelI's: variant H's
// contexts (NumStats u16; one state when 1; a state array full at an
// even count), its SummFreq increments and frequency thresholds, no
// reduceOrder (a found state without successor gets the text position),
// restart where variant I restores (updRestore). The loop also stops,
// for the Go loop, at a context of no or more than 256 states (never in
// a model; the Go loop indexes by them).
//
// The frame: the walk's slot for DX at 16 (createSuccessorsH inline at
// each call: CSUCC_H); the loop's invariants at 12-32 (mc, ns, s0, f2,
// succ, fSym); fSucc at 48, succ at 56. Registers up to the walk: R13
// m, R12 heap, R11 hm, BX the found symbol, R8 fSucc; in the walk as in
// createSuccessorsH; in the loop as updateModelI's, CX NumStats.
TEXT ·updateModelH(SB), NOSPLIT, $64-12
	NO_LOCAL_POINTERS
	MOVBLZX ·useEscapeAsm(SB), AX
	TESTL   AX, AX
	JZ      hugeneric
	MOVQ    m+0(FP), R13
	MOVQ    HEAP_H(R13), R12
	MOVQ    HEAP_H+8(R13), R11
	SUBQ    $const_heapPad, R11
	JCS     hugeneric
	MOVL    ModelH_found(R13), AX
	ANDQ    R11, AX
	MOVBLZX 0(R12)(AX*1), BX         // fSym
	MOVBLZX 1(R12)(AX*1), CX         // fFreq
	MOVL    2(R12)(AX*1), R8         // fSucc
	// The context fSucc most often becomes the next symbol's: its load
	// from memory overlaps the update's own.
	MOVL    R8, DX
	ANDQ    R11, DX
	PREFETCHT0 (R12)(DX*1)
	// And, when it is a context, its states (or a binary context's
	// state's successor) as soon as the context is in; when it is a
	// text position, its line again (createSuccessors reads the symbol
	// there): a CMOV, where a branch was mispredicted about every third
	// time.
	MOVL    4(R12)(DX*1), AX
	ANDQ    R11, AX
	CMPL    R8, UNITS_START_H(R13)
	CMOVQCS DX, AX
	PREFETCHT0 (R12)(AX*1)

hupf:
	CMPL    CX, $31
	JCC     husuf
	MOVL    ModelH_minCtx(R13), AX
	ANDQ    R11, AX
	MOVL    8(R12)(AX*1), DX         // the suffix
	TESTL   DX, DX
	JZ      husuf
	ANDQ    R11, DX
	LEAQ    (R12)(DX*1), DI
	MOVWLZX 0(DI), AX                // NumStats
	CMPL    AX, $1
	JNE     husmulti
	CMPB    3(DI), $32
	JCC     husuf
	INCB    3(DI)
	JMP     husuf

husmulti:
	// findSym over the states 0..byte(ns-1), two a step.
	DECL    AX
	MOVBLZX AL, AX
	IMULL   $6, AX                   // lim, the last state's offset
	MOVL    4(DI), SI
	ANDQ    R11, SI
	ADDQ    R12, SI                  // the states
	XORL    R10, R10
	TESTL   AX, AX
	JZ      husfound

	FINDSYM2(R10, husloop, husfound6, husfound)
	// Swapped with the state before when not less frequent; then its
	// frequency and SummFreq up by two below 115.
	SWAP_PREV(husinc)

husinc:
	UP_BY_TWO(husuf)

husuf:
	CMPQ    ModelH_orderFall(R13), $0
	JNE     hutext

	// The successors from minCtx, the found state's own skipped
	// (createSuccessorsH inline).
	MOVL    ModelH_minCtx(R13), DX
	LEAQ    ModelH_stack(R13), R10
	MOVL    ModelH_found(R13), AX
	ANDQ    R11, AX
	MOVBLZX 0(R12)(AX*1), BX
	MOVL    2(R12)(AX*1), R8
	XORL    CX, CX
	CSUCC_H(16(SP), hawalk, hawloop, hawfound6, hawfound, habinary, hasucc, hapush, halink, haupmulti, hauloop, haufound6, haufound, haudiv, hamkhead, hamkloop, hadone, haalloc, hafail, hadivzero)

hadone:
	MOVL    DX, ModelH_minCtx(R13)
	MOVL    DX, ModelH_maxCtx(R13)
	TESTL   DX, DX
	JZ      hurestart
	MOVL    ModelH_found(R13), SI
	ANDQ    R11, SI
	MOVL    DX, 2(R12)(SI*1)
	MOVL    $const_updDone, code+8(FP)
	RET

hafail:
	XORL    DX, DX
	JMP     hadone

hadivzero:
	WALK_RARE(haalloc)
	MOVL    $const_updTopRest, DX
	JMP     hurest

hutext:
	MOVL    TEXT_H(R13), AX
	MOVL    AX, SI
	ANDQ    R11, SI
	MOVB    BX, (R12)(SI*1)
	INCL    AX
	MOVL    AX, TEXT_H(R13)
	CMPL    AX, UNITS_START_H(R13)
	JCC     hurestart
	MOVL    AX, 56(SP)               // succ
	TESTL   R8, R8
	JZ      hunosucc
	CMPL    R8, AX
	JHI     hudec

	// The successors from minCtx (createSuccessorsH inline).
	MOVL    ModelH_minCtx(R13), DX
	LEAQ    ModelH_stack(R13), R10
	MOVL    ModelH_found(R13), AX
	MOVL    AX, (R10)
	ANDQ    R11, AX
	MOVBLZX 0(R12)(AX*1), BX
	MOVL    2(R12)(AX*1), R8
	MOVL    $1, CX
	CSUCC_H(16(SP), hbwalk, hbwloop, hbwfound6, hbwfound, hbbinary, hbsucc, hbpush, hblink, hbupmulti, hbuloop, hbufound6, hbufound, hbudiv, hbmkhead, hbmkloop, hbdone, hballoc, hurestart, hbdivzero)

hbdone:
	TESTL   DX, DX
	JZ      hurestart
	MOVL    DX, R8                   // fSucc

hudec:
	// R13 m, R8 fSucc.
	MOVL    56(SP), R9               // succ
	DECQ    ModelH_orderFall(R13)
	JNZ     huloop
	MOVL    R8, R9
	MOVL    ModelH_maxCtx(R13), AX
	CMPL    AX, ModelH_minCtx(R13)
	JEQ     huloop
	DECL    TEXT_H(R13)
	JMP     huloop

hunosucc:
	// The found state's successor is the text position; fSucc minCtx.
	MOVL    ModelH_found(R13), SI
	ANDQ    R11, SI
	MOVL    AX, 2(R12)(SI*1)
	MOVL    AX, R9
	MOVL    ModelH_minCtx(R13), R8

huloop:
	// The loop's invariants in the frame.
	LOOP_INVARIANTS(ModelH_maxCtx, ModelH_minCtx, HEAP_H, ModelH_found, huset, MOVWLZX, S0_H)
	MOVL    R10, DX

	// The loop: from maxCtx, up to the first context that needs the
	// allocator's rare case (DX then) or to mc.
hlloop:
	MOVL    DX, SI
	ANDQ    R11, SI
	LEAQ    (R12)(SI*1), DI          // the context
	MOVWLZX 0(DI), CX                // NumStats
	CMPL    CX, $1
	JEQ     hlbinary
	LEAL    -2(CX), AX
	CMPL    AX, $254
	JHI     hlret                    // 0 or more than 256 states
	TESTL   $1, CX
	JNZ     hlmulti

	// The stats fill their units: to one more, from the free list of
	// that size or from loUnit, else stop.
	MOVL    CX, R10
	GROW_STATES(ModelH_subAlloc, hlmulti, hlfromlo, hlgotp, hlcopy, hlret)

hlmulti:
	// sf = SummFreq + (2*ns1 < ns) + 2*(4*ns1 <= ns && sf <= 8*ns1).
	MOVWLZX 2(DI), AX
	MOVL    16(SP), R9
	LEAL    (CX)(CX*1), R8
	CMPL    R8, R9
	JCC     hlm2
	INCL    AX

hlm2:
	LEAL    (CX*4), R8
	CMPL    R8, R9
	JHI     hlcommon
	MOVWLZX 2(DI), R8
	LEAL    (CX*8), R9
	CMPL    R8, R9
	JHI     hlcommon
	ADDL    $2, AX
	JMP     hlcommon

hlbinary:
	// The one state to a state array of one unit, from freeList[0] or
	// loUnit, else stop.
	ONE_UNIT(FREE_LIST_H, STAMPS_H, HI_UNIT_H, LO_UNIT_H, hlbfromlo, hlbgot, hlret)
	MOVBLZX 1(SI), AX                // f
	CMPL    AX, $30
	JCC     hlbmax
	ADDL    AX, AX
	JMP     hlbset

hlbmax:
	MOVL    $120, AX

hlbset:
	MOVB    AX, 1(SI)
	ADDL    ModelH_initEsc(R13), AX
	MOVL    16(SP), R9
	CMPL    R9, $3
	JLS     hlcommon
	INCL    AX

hlcommon:
	// AX is sf: the new state's frequency (R10) and SummFreq.
	MOVWLZX AX, AX
	NEW_FREQ(hlbig)
	ADDL    $3, AX
	JMP     hlstore

hlbig:
	MOVL    $4, R10
	LEAL    (R9)(R9*8), R14
	CMPL    R8, R14
	SBBL    $-1, R10                 // + (cf >= 9*sum)
	LEAL    (R9)(R9*2), R14
	SHLL    $2, R14
	CMPL    R8, R14
	SBBL    $-1, R10                 // + (cf >= 12*sum)
	MOVL    R9, R14
	SHLL    $4, R14
	SUBL    R9, R14
	CMPL    R8, R14
	SBBL    $-1, R10                 // + (cf >= 15*sum)
	ADDL    R10, AX

hlstore:
	MOVW    AX, 2(DI)
	MOVL    4(DI), R8
	LEAL    (CX)(CX*2), R9
	ADDL    R9, R9
	ADDL    R9, R8                   // the new state: stats+ns1*6
	NEW_STATE
	INCL    CX
	MOVW    CX, 0(DI)
	MOVL    8(DI), DX
	CMPL    DX, 12(SP)
	JNE     hlloop
hlret:
	MOVL    48(SP), R8
	MOVL    DX, AX                   // where the loop stopped
	CMPL    AX, ModelH_minCtx(R13)
	JNE     huloopstop

huset:
	LOOP_DONE(ModelH_minCtx, ModelH_maxCtx)

huloopstop:
	LOOP_STOP(ModelH_upd)

hbdivzero:
	WALK_RARE(hballoc)
	MOVL    $const_updMidRest, DX

hurest:
	// The walk's results to m.upd (AX r, CX num, BX head, R9 upSucc);
	// DX the code.
	WALK_REST(ModelH_upd)

hurestart:
	MOVL    $const_updRestore, code+8(FP)
	RET

hugeneric:
	MOVL    $const_updGeneric, code+8(FP)
	RET
