//go:build amd64 && gc && !purego

#include "go_asm.h"
#include "textflag.h"

// A state is 6 bytes: symbol, frequency, successor. mask holds 0 or 0xFF
// by symbol; a state's masked frequency is mask[symbol] (zero-extended)
// AND the 32 bits at the frequency, which keeps only the frequency's
// byte: one load less than widening the frequency first. arr's view is
// 2048 bytes, 256 states and room: every load below is at most 20 bytes
// past the start of the last state or of sumUnmasked's last group.

// tailLanes has, by n%4, a byte of 0xFF for each state of the last group
// of sumUnmasked that counts (lane k when k < n%4).
DATA tailLanes<>+0(SB)/4, $0x00000000
DATA tailLanes<>+4(SB)/4, $0x000000FF
DATA tailLanes<>+8(SB)/4, $0x0000FFFF
DATA tailLanes<>+12(SB)/4, $0x00FFFFFF
GLOBL tailLanes<>(SB), RODATA|NOPTR, $16

// The blocks that the four functions share, as macros. Labels are
// arguments: each use names its own.

// MASKED(st, off, r): r is the masked frequency of the state at off(st),
// the mask at DI.
#define MASKED(st, off, r) \
	MOVBLZX off(st), r; \
	MOVBLZX (DI)(r*1), r; \
	ANDL    off+1(st), r

// SUM_UNMASKED: AX is the sum of the masked frequencies of the CX states
// (1..256) at st; it moves st and uses CX, DX, R8 and the temporaries
// t0..t3. The last n%4 states are summed as a group of three whose lanes
// past the last state count nothing: no loop exit to mispredict.
#define SUM_UNMASKED(st, t0, t1, t2, t3, loop, tail) \
	XORL    AX, AX; \
	XORL    DX, DX; \
	MOVL    CX, R8; \
	SHRL    $2, R8; \
	JZ      tail; \
loop: \
	MASKED(st, 0, t0); \
	ADDL    t0, AX; \
	MASKED(st, 6, t1); \
	ADDL    t1, DX; \
	MASKED(st, 12, t2); \
	ADDL    t2, AX; \
	MASKED(st, 18, t3); \
	ADDL    t3, DX; \
	ADDQ    $24, st; \
	DECL    R8; \
	JNZ     loop; \
tail: \
	ANDL    $3, CX; \
	LEAQ    tailLanes<>(SB), R8; \
	MOVL    (R8)(CX*4), R8; \
	MASKED(st, 0, t0); \
	ANDL    R8, t0; \
	ADDL    t0, AX; \
	SHRL    $8, R8; \
	MASKED(st, 6, t1); \
	ANDL    R8, t1; \
	ADDL    t1, DX; \
	SHRL    $8, R8; \
	MASKED(st, 12, t2); \
	ANDL    R8, t2; \
	ADDL    t2, AX; \
	ADDL    DX, AX

// FIND_UNMASKED: the search of the CX states (1..256) at st for the one
// whose masked frequency makes DX (count less the frequencies so far)
// borrow; it jumps to f0, f6, f12 or f18 with st at the group of four (or
// the state) where that happened, and falls through to notfound when no
// state does. It uses R8 and the temporaries t0..t3.
#define FIND_UNMASKED(st, t0, t1, t2, t3, loop, tail, tailloop, notfound, f0, f6, f12, f18) \
	MOVL    CX, R8; \
	SHRL    $2, R8; \
	JZ      tail; \
loop: \
	MASKED(st, 0, t0); \
	SUBL    t0, DX; \
	JCS     f0; \
	MASKED(st, 6, t1); \
	SUBL    t1, DX; \
	JCS     f6; \
	MASKED(st, 12, t2); \
	SUBL    t2, DX; \
	JCS     f12; \
	MASKED(st, 18, t3); \
	SUBL    t3, DX; \
	JCS     f18; \
	ADDQ    $24, st; \
	DECL    R8; \
	JNZ     loop; \
tail: \
	MOVL    CX, R8; \
	ANDL    $3, R8; \
	JZ      notfound; \
tailloop: \
	MASKED(st, 0, t0); \
	SUBL    t0, DX; \
	JCS     f0; \
	ADDQ    $6, st; \
	DECL    R8; \
	JNZ     tailloop

// FOUND_AT: st moved to the state found, from the labels that
// FIND_UNMASKED jumps to; f0 falls through to what follows.
#define FOUND_AT(st, f18, f12, f6, f0) \
f18: \
	ADDQ    $6, st; \
f12: \
	ADDQ    $6, st; \
f6: \
	ADDQ    $6, st; \
f0:

// NOTFOUND_OFF: CX from the number of states to the Go twin's offset when
// no state is found: the last state's when the number is odd, else one
// past it.
#define NOTFOUND_OFF \
	ANDL    $-2, CX; \
	LEAQ    (CX)(CX*2), CX; \
	ADDQ    CX, CX

// MASK_ALL: the symbols of the CX states at st masked (their bytes of the
// mask at DI cleared), two a step, the last again when their number is
// even. It moves st and uses AX, CX and R8.
#define MASK_ALL(st, loop, last) \
	MOVL    CX, R8; \
	SHRL    $1, R8; \
	JZ      last; \
loop: \
	MOVBLZX 0(st), AX; \
	MOVB    $0, (DI)(AX*1); \
	MOVBLZX 6(st), AX; \
	MOVB    $0, (DI)(AX*1); \
	ADDQ    $12, st; \
	DECL    R8; \
	JNZ     loop; \
last: \
	ANDQ    $1, CX; \
	DECQ    CX; \
	LEAQ    (CX)(CX*2), CX; \
	ADDQ    CX, CX; \
	MOVBLZX (st)(CX*1), AX; \
	MOVB    $0, (DI)(AX*1)

// UNMASK_ALL: every byte of the mask at DI set (X0 all ones).
#define UNMASK_ALL \
	PCMPEQB X0, X0; \
	MOVOU   X0, 0(DI); \
	MOVOU   X0, 16(DI); \
	MOVOU   X0, 32(DI); \
	MOVOU   X0, 48(DI); \
	MOVOU   X0, 64(DI); \
	MOVOU   X0, 80(DI); \
	MOVOU   X0, 96(DI); \
	MOVOU   X0, 112(DI); \
	MOVOU   X0, 128(DI); \
	MOVOU   X0, 144(DI); \
	MOVOU   X0, 160(DI); \
	MOVOU   X0, 176(DI); \
	MOVOU   X0, 192(DI); \
	MOVOU   X0, 208(DI); \
	MOVOU   X0, 224(DI); \
	MOVOU   X0, 240(DI)

// SEE_MEAN: R8 (the SEE row) moved to the context CX of its row (se), CX
// its mean (se.mean(), at least 1), the mean taken from its sum. Uses AX
// and DX.
#define SEE_MEAN \
	LEAQ    (R8)(CX*4), R8; \
	MOVWLZX see_summ(R8), AX; \
	MOVBLZX see_shift(R8), CX; \
	ANDL    $15, CX; \
	MOVL    AX, DX; \
	SHRL    CX, DX; \
	SUBL    DX, AX; \
	MOVW    AX, see_summ(R8); \
	MOVL    $1, CX; \
	TESTL   DX, DX; \
	CMOVLNE DX, CX

// UPDATE_FOUND: the state at s+CX (the frame's s) recorded in the model's
// found field: decode(acc-f, f) with r in R9 and count less acc in DX,
// se.update(), Update2's frequencies; returns its symbol and frequency.
#define UPDATE_FOUND(found, updated) \
	MOVL    s-20(SP), AX; \
	ADDL    CX, AX; \
	MOVL    AX, found(R13); \
	ANDQ    R11, AX; \
	LEAQ    (R12)(AX*1), R14; \
	MOVBLZX 1(R14), BX; \
	MOVL    cnt-52(SP), AX; \
	SUBL    DX, AX; \
	SUBL    BX, AX; \
	IMULL   R9, AX; \
	SUBL    AX, RangeDecoder_code(R10); \
	ADDL    AX, RangeDecoder_low(R10); \
	MOVL    R9, AX; \
	IMULL   BX, AX; \
	MOVL    AX, RangeDecoder_rng(R10); \
	MOVQ    se-48(SP), R8; \
	MOVBLZX see_shift(R8), CX; \
	CMPL    CX, $7; \
	JCC     updated; \
	DECB    see_count(R8); \
	JNZ     updated; \
	SHLW    $1, see_summ(R8); \
	MOVL    $3, AX; \
	SHLL    CX, AX; \
	MOVB    AX, see_count(R8); \
	INCB    see_shift(R8); \
updated: \
	ADDL    $4, BX; \
	MOVB    BX, 1(R14); \
	MOVQ    ctx-16(SP), AX; \
	ADDW    $4, 2(AX); \
	MOVBLZX 0(R14), AX; \
	MOVQ    AX, sym+40(FP); \
	MOVL    BX, f+48(FP); \
	RET

// func sumUnmasked(arr *[maxStatesBytes]byte, last byte, mask *[256]byte) uint32
TEXT ·sumUnmasked(SB), NOSPLIT|NOFRAME, $0-28
	MOVQ    arr+0(FP), SI
	MOVBLZX last+8(FP), CX
	MOVQ    mask+16(FP), DI
	INCL    CX             // n, 1..256 states
	SUM_UNMASKED(SI, BX, R9, R10, R11, sumloop, sumtail)
	MOVL    AX, ret+24(FP)
	RET

// func findUnmasked(arr *[maxStatesBytes]byte, last byte, mask *[256]byte, count uint32) (uint, uint32)
// DX is count less the masked frequencies so far: the state that makes
// the subtraction borrow is the one whose cumulative frequency first
// exceeds count.
TEXT ·findUnmasked(SB), NOSPLIT|NOFRAME, $0-44
	MOVQ    arr+0(FP), SI
	MOVBLZX last+8(FP), CX
	MOVQ    mask+16(FP), DI
	MOVL    count+24(FP), DX
	INCL    CX             // n, 1..256 states
	MOVQ    SI, R12        // arr, for the offset
	FIND_UNMASKED(SI, BX, R9, R10, R11, findloop, findtail, findtailloop, notfound, found0, found6, found12, found18)

notfound:
	// As the Go twin: NOTFOUND_OFF's offset and the sum of all.
	NOTFOUND_OFF
	MOVQ    CX, off+32(FP)
	MOVL    count+24(FP), AX
	SUBL    DX, AX
	MOVL    AX, acc+40(FP)
	RET

	FOUND_AT(SI, found18, found12, found6, found0)
	SUBQ    R12, SI
	MOVQ    SI, off+32(FP)
	MOVL    count+24(FP), AX
	SUBL    DX, AX         // count - (count - acc), mod 2^32
	MOVL    AX, acc+40(FP)
	RET

// func escapeH(m *ModelH, rc *RangeDecoder, heap *byte, hm uint, first uint32) (sym int, f uint32)
//
// decodeEscapedGeneric's loop, line for line; see there. Registers kept:
// R13 m, R10 rc, R12 heap, R11 hm (every heap offset is ANDed with it
// before use, and a view reaches at most heapPad-1 bytes past it), DI
// &m.charMask, R9 the context (mc). The frame holds the escape's values
// that its loops' registers displace.
TEXT ·escapeH(SB), NOSPLIT, $56-52
	MOVQ m+0(FP), R13
	MOVQ rc+8(FP), R10
	MOVQ heap+16(FP), R12
	MOVQ hm+24(FP), R11
	LEAQ ModelH_charMask(R13), DI
	MOVL ModelH_minCtx(R13), R9

top:
	// 7-Zip's coder normalised from its buffer; escNormalize when that
	// runs out, or for a range of 0 (normalize fails it, after the byte
	// that decodeEscapedGeneric shifts in first). RAR's: escNormalize
	// when normalize would read (unnormalRAR).
	MOVL RangeDecoder_rng(R10), AX
	CMPB RangeDecoder_isRAR(R10), $0
	JNE  rarnormal
	CMPL AX, $0x1000000
	JCC  body
	MOVQ RangeDecoder_pos(R10), BX
	MOVQ RangeDecoder_buf+8(R10), R8
	CMPQ BX, R8
	JCC  normalize
	MOVQ RangeDecoder_buf(R10), CX
	MOVL RangeDecoder_code(R10), SI
	MOVBLZX (CX)(BX*1), DX
	INCQ BX
	SHLL $8, SI
	ORL  DX, SI
	SHLL $8, AX
	TESTL AX, AX
	JZ   shiftstop

shiftloop:
	CMPL AX, $0x1000000
	JCC  shifted
	CMPQ BX, R8
	JCC  shiftstop
	MOVBLZX (CX)(BX*1), DX
	INCQ BX
	SHLL $8, SI
	ORL  DX, SI
	SHLL $8, AX
	JMP  shiftloop

shifted:
	MOVL SI, RangeDecoder_code(R10)
	MOVL AX, RangeDecoder_rng(R10)
	MOVQ BX, RangeDecoder_pos(R10)
	JMP  body

rarnormal:
	// Below 2^24 where the range's ends share their top byte
	// ((rng|low^(low+rng)) below 2^24), or below 2^15: the first test
	// is taken as often as normalize shifts (a test of the range alone
	// first was mispredicted about as often again).
	MOVL RangeDecoder_low(R10), BX
	LEAL (BX)(AX*1), CX
	XORL BX, CX
	ORL  AX, CX
	CMPL CX, $0x1000000
	JCS  normalize
	CMPL AX, $0x8000
	JCS  normalize

body:
	// The suffixes of the context escaped from (pc) that have no more
	// states than it: nothing to decode there.
	MOVL    R9, pc-4(SP)
	MOVL    R9, AX
	ANDQ    R11, AX
	LEAQ    (R12)(AX*1), SI
	MOVWLZX 0(SI), DX      // numMasked
	MOVL    DX, nm-8(SP)
	MOVQ    ModelH_orderFall(R13), CX

walk:
	INCQ    CX
	MOVL    8(SI), AX      // suffix
	TESTL   AX, AX
	JZ      root
	MOVL    AX, R9
	ANDQ    R11, AX
	LEAQ    (R12)(AX*1), SI
	// Its suffix, which MakeEscFreq reads (and the next escape, or this
	// walk, goes to), asked for now: the sum's loop below waits for the
	// states and mispredicts its exit.
	MOVL    8(SI), R8
	ANDQ    R11, R8
	PREFETCHT0 (R12)(R8*1)
	MOVWLZX 0(SI), BX      // ns
	CMPL    BX, DX
	JEQ     walk
	MOVQ    CX, ModelH_orderFall(R13)
	MOVL    R9, ModelH_minCtx(R13)
	MOVQ    SI, ctx-16(SP)
	MOVL    BX, ns-40(SP)
	MOVL    4(SI), AX      // s, the states
	MOVL    AX, s-20(SP)
	ANDQ    R11, AX
	LEAQ    (R12)(AX*1), R14
	MOVQ    R14, st-32(SP)
	LEAL    -1(BX), CX
	MOVBLZX CX, CX
	INCL    CX             // n = byte(ns-1)+1, 1..256 states
	MOVL    CX, n-24(SP)

	// hi: sumUnmasked.
	SUM_UNMASKED(R14, BX, SI, BX, SI, esumloop, esumtail)
	MOVL    AX, hi-36(SP)

	// MakeEscFreq: se (R8) and escFreq (CX).
	MOVL ns-40(SP), BX
	CMPL BX, $256
	JNE  seectx
	LEAQ ModelH_dummy(R13), R8
	MOVL $1, CX
	JMP  threshold

seectx:
	MOVL    nm-8(SP), DX
	MOVL    BX, SI
	SUBL    DX, SI             // nonMasked
	MOVL    ModelH_hiBitsFlag(R13), CX
	MOVQ    ctx-16(SP), R14
	MOVL    8(R14), AX
	ANDQ    R11, AX
	// The suffix's states (a binary suffix's successor), which
	// updateModel's frequency update searches after the symbol.
	MOVL    4(R12)(AX*1), R8
	ANDQ    R11, R8
	PREFETCHT0 (R12)(R8*1)
	MOVWLZX (R12)(AX*1), AX    // the suffix's ns
	SUBL    BX, AX
	CMPL    SI, AX
	ADCL    $0, CX             // +1 when nonMasked < its ns - ns
	MOVWLZX 2(R14), AX         // SummFreq
	LEAL    (BX)(BX*4), R8
	LEAL    (BX)(R8*2), R8     // 11*ns
	CMPL    AX, R8
	SBBL    AX, AX
	ANDL    $2, AX
	ADDL    AX, CX             // +2 when SummFreq < 11*ns
	CMPL    SI, DX
	SBBL    AX, AX
	ANDL    $4, AX
	ADDL    AX, CX             // +4 when numMasked > nonMasked
	ANDL    $15, CX
	DECL    SI
	MOVBLZX SI, SI
	LEAQ    ·ns2Indx(SB), AX
	MOVBLZX (AX)(SI*1), AX     // below 25 (TestEscapeTables): a row of m.see
	SHLQ    $6, AX
	LEAQ    ModelH_see(R13)(AX*1), R8
	SEE_MEAN

threshold:
	// 7-Zip's range is at least 2^24 here and the total below 2^17: the
	// quotient r is at least 128. RAR's range may be as small as 2^15:
	// below the total, r is 0, which threshold makes 1, failing the coder.
	MOVQ  R8, se-48(SP)
	MOVL  hi-36(SP), BX
	ADDL  CX, BX           // total
	MOVL  RangeDecoder_rng(R10), AX
	XORL  DX, DX
	DIVL  BX
	TESTL AX, AX
	JZ    rangefail
rangeok:
	MOVL  AX, SI           // r
	MOVL  RangeDecoder_code(R10), AX
	XORL  DX, DX
	DIVL  SI               // count
	MOVL  hi-36(SP), CX
	CMPL  AX, CX
	JCS   found
	CMPL  AX, BX
	JCC   corrupt

	// An escape: decode(hi, total-hi), the SEE context's sum, and the
	// states' symbols masked.
	MOVL  BX, DX
	SUBL  CX, BX
	IMULL SI, BX
	MOVL  BX, RangeDecoder_rng(R10)
	MOVL  SI, AX
	IMULL CX, AX
	SUBL  AX, RangeDecoder_code(R10)
	ADDL  AX, RangeDecoder_low(R10)
	MOVQ  se-48(SP), R8
	ADDW  DX, see_summ(R8)
	MOVQ  st-32(SP), R14
	MOVL  n-24(SP), CX
	MASK_ALL(R14, emaskloop, emasklast)
	JMP     top

found:
	// findUnmasked: DX is count less the frequencies so far.
	MOVL AX, cnt-52(SP)
	MOVL AX, DX
	MOVL SI, R9            // r
	MOVQ st-32(SP), R14
	MOVL n-24(SP), CX
	FIND_UNMASKED(R14, BX, SI, BX, SI, efindloop, efindtail, efindtailloop, enotfound, efound0, efound6, efound12, efound18)

enotfound:
	NOTFOUND_OFF
	JMP  unmask

	FOUND_AT(R14, efound18, efound12, efound6, efound0)
	MOVQ R14, CX
	SUBQ st-32(SP), CX

unmask:
	// CX is the state's offset. The mask cleared for the next symbol:
	// after one escape from a binary context its one symbol, else all of
	// it (the masked symbols are the first context's, or the union of
	// the contexts escaped from): decodeEscapedGeneric unmasks up to six
	// states one by one, which ends in the same mask, but its loop's exit
	// and the tests around it were mispredicted about once an escape.
	MOVL    pc-4(SP), AX
	CMPL    AX, first+32(FP)
	JNE     unmaskall
	CMPL    nm-8(SP), $1
	JNE     unmaskall
	ANDQ    R11, AX
	MOVBLZX 2(R12)(AX*1), BX
	MOVB    $0xFF, (DI)(BX*1)
	JMP     update

unmaskall:
	UNMASK_ALL

update:
	// The state at s+off: decode(acc-f, f), se.update(), Update2's
	// frequencies, in decodeEscapedGeneric's order.
	UPDATE_FOUND(ModelH_found, updated)

root:
	MOVQ    CX, ModelH_orderFall(R13)
	MOVL    R9, ModelH_minCtx(R13)
	MOVQ    $-1, AX
	JMP     clear

corrupt:
	MOVL    SI, RangeDecoder_rng(R10)
	MOVQ    $-2, AX

clear:
	UNMASK_ALL
	MOVQ    AX, sym+40(FP)
	MOVL    $0, f+48(FP)
	RET

shiftstop:
	MOVL SI, RangeDecoder_code(R10)
	MOVL AX, RangeDecoder_rng(R10)
	MOVQ BX, RangeDecoder_pos(R10)

normalize:
	MOVQ $-3, sym+40(FP)
	MOVL $0, f+48(FP)
	RET

rangefail:
	MOVB $1, ModelH_rangeFail(R13)
	MOVL $1, AX
	JMP  rangeok

// func escapeI(m *ModelI, rc *RangeDecoder, heap *byte, hm uint, normalized bool) (sym int, f uint32)
//
// ModelI.decodeEscapedGeneric's loop, as escapeH (same registers and
// frame) with RAR's coder, variant I's SEE contexts and no unmasking.
TEXT ·escapeI(SB), NOSPLIT, $56-52
	MOVQ    m+0(FP), R13
	MOVQ    rc+8(FP), R10
	MOVQ    heap+16(FP), R12
	MOVQ    hm+24(FP), R11
	LEAQ    ModelI_charMask(R13), DI
	MOVL    ModelI_minCtx(R13), R9
	MOVBLZX normalized+32(FP), AX
	TESTL   AX, AX
	JNZ     ibody

	// Only the symbols of the context escaped from masked: its one
	// state's (a binary context) or all of its states'.
	UNMASK_ALL
	MOVL    R9, AX
	ANDQ    R11, AX
	LEAQ    (R12)(AX*1), SI
	MOVBLZX 0(SI), CX
	TESTL   CX, CX
	JNZ     iprepmulti
	MOVBLZX 2(SI), AX
	MOVB    $0, (DI)(AX*1)
	JMP     itop

iprepmulti:
	INCL    CX                 // ns+1 states
	MOVL    4(SI), AX
	ANDQ    R11, AX
	LEAQ    (R12)(AX*1), R14
	MASK_ALL(R14, iprepmaskloop, iprepmasklast)

itop:
	// RAR's coder: normalised when the range is below 2^24 and its ends
	// share their top byte or it is below 2^15; one byte shifted in from
	// the buffer when the range is at least 2^15, escNormalize for more.
	MOVL RangeDecoder_rng(R10), AX
	CMPL AX, $0x1000000
	JCC  ibody
	MOVL RangeDecoder_low(R10), BX
	LEAL (BX)(AX*1), CX
	XORL BX, CX
	CMPL CX, $0x1000000
	JCS  iunnormal
	CMPL AX, $0x8000
	JCC  ibody

iunnormal:
	CMPL AX, $0x8000
	JCS  inormalize
	MOVQ RangeDecoder_pos(R10), SI
	CMPQ SI, RangeDecoder_buf+8(R10)
	JCC  inormalize
	MOVQ RangeDecoder_buf(R10), CX
	MOVBLZX (CX)(SI*1), DX
	INCQ SI
	MOVQ SI, RangeDecoder_pos(R10)
	MOVL RangeDecoder_code(R10), CX
	SHLL $8, CX
	ORL  DX, CX
	MOVL CX, RangeDecoder_code(R10)
	SHLL $8, AX
	MOVL AX, RangeDecoder_rng(R10)
	SHLL $8, BX
	MOVL BX, RangeDecoder_low(R10)
	CMPL AX, $0x1000000
	JCC  ibody
	LEAL (BX)(AX*1), CX
	XORL BX, CX
	CMPL CX, $0x1000000
	JCS  inormalize
	CMPL AX, $0x8000
	JCS  inormalize

ibody:
	MOVL    R9, AX
	ANDQ    R11, AX
	LEAQ    (R12)(AX*1), SI
	MOVBLZX 0(SI), DX      // numMasked
	MOVL    DX, nm-8(SP)
	MOVL    ModelI_orderFall(R13), CX

iwalk:
	INCL    CX
	MOVL    8(SI), AX      // suffix
	TESTL   AX, AX
	JZ      iroot
	MOVL    AX, R9
	ANDQ    R11, AX
	LEAQ    (R12)(AX*1), SI
	MOVBLZX 0(SI), BX      // ns
	CMPL    BX, DX
	JEQ     iwalk
	MOVL    CX, ModelI_orderFall(R13)
	MOVL    R9, ModelI_minCtx(R13)
	MOVQ    SI, ctx-16(SP)
	MOVL    BX, ns-40(SP)
	MOVL    4(SI), AX      // s, the states
	MOVL    AX, s-20(SP)
	ANDQ    R11, AX
	LEAQ    (R12)(AX*1), R14
	MOVQ    R14, st-32(SP)
	LEAL    1(BX), CX      // n = ns+1, 1..256 states
	MOVL    CX, n-24(SP)

	// hi: sumUnmasked.
	SUM_UNMASKED(R14, BX, SI, BX, SI, isumloop, isumtail)
	MOVL    AX, hi-36(SP)

	// MakeEscFreq: se (R8) and escFreq (CX).
	MOVL ns-40(SP), BX
	CMPL BX, $0xFF
	JNE  iseectx
	LEAQ ModelI_dummy(R13), R8
	MOVL $1, CX
	JMP  ithreshold

iseectx:
	MOVQ    ctx-16(SP), R14
	MOVBLZX 1(R14), CX         // Flags
	MOVWLZX 2(R14), AX         // SummFreq
	LEAL    1(BX), SI
	LEAL    (SI)(SI*4), DX
	LEAL    (SI)(DX*2), DX     // 11*(ns+1)
	CMPL    DX, AX
	ADCL    $0, CX             // +1 when SummFreq > 11*(ns+1)
	MOVL    8(R14), AX
	ANDQ    R11, AX
	MOVBLZX (R12)(AX*1), AX    // the suffix's ns
	ADDL    nm-8(SP), AX
	LEAL    (BX)(BX*1), DX
	CMPL    DX, AX
	SBBL    AX, AX
	ANDL    $2, AX
	ADDL    AX, CX             // +2 when 2*ns < its ns + numMasked
	ANDL    $31, CX
	LEAQ    ·ns2IndxI(SB), AX
	MOVBLZX 2(AX)(BX*1), AX
	SUBL    $3, AX
	MOVBLZX AX, AX
	CMPL    AX, $24
	JCC     iseerow
	SHLQ    $7, AX
	LEAQ    ModelI_see(R13)(AX*1), R8
	SEE_MEAN

ithreshold:
	// thresholdI of the total cut down to the range (total2): the range
	// is at least 1 (escZeroRange for 0, where decodeEscapedGeneric's
	// division panics).
	MOVQ    R8, se-48(SP)
	MOVL    hi-36(SP), BX
	ADDL    CX, BX             // total
	MOVL    BX, tot-56(SP)
	MOVL    RangeDecoder_rng(R10), AX
	CMPL    AX, BX
	CMOVLCS AX, BX             // total2 = min(total, rng)
	TESTL   AX, AX
	JZ      izerorange
	XORL    DX, DX
	DIVL    BX
	MOVL    AX, SI             // r
	MOVL    RangeDecoder_code(R10), AX
	XORL    DX, DX
	DIVL    SI                 // count
	MOVL    hi-36(SP), CX
	CMPL    AX, CX
	JCS     ifound
	CMPL    AX, BX
	JCC     icorrupt

	// An escape: decode(hi, total2-hi), the SEE context's sum, and the
	// states' symbols masked.
	SUBL  CX, BX
	IMULL SI, BX
	MOVL  BX, RangeDecoder_rng(R10)
	MOVL  SI, AX
	IMULL CX, AX
	SUBL  AX, RangeDecoder_code(R10)
	ADDL  AX, RangeDecoder_low(R10)
	MOVQ  se-48(SP), R8
	MOVL  tot-56(SP), DX
	ADDW  DX, see_summ(R8)
	MOVQ  st-32(SP), R14
	MOVL  n-24(SP), CX
	MASK_ALL(R14, iemaskloop, iemasklast)
	JMP     itop

ifound:
	// findUnmasked: DX is count less the frequencies so far.
	MOVL AX, cnt-52(SP)
	MOVL AX, DX
	MOVL SI, R9            // r
	MOVQ st-32(SP), R14
	MOVL n-24(SP), CX
	FIND_UNMASKED(R14, BX, SI, BX, SI, ifindloop, ifindtail, ifindtailloop, inotfound, ifound0, ifound6, ifound12, ifound18)

inotfound:
	NOTFOUND_OFF
	JMP  iupdate

	FOUND_AT(R14, ifound18, ifound12, ifound6, ifound0)
	MOVQ R14, CX
	SUBQ st-32(SP), CX

iupdate:
	// The state at s+off (CX the offset): decode(acc-f, f), se.update(),
	// Update2's frequencies, in decodeEscapedGeneric's order.
	UPDATE_FOUND(ModelI_found, iupdated)

iroot:
	MOVL CX, ModelI_orderFall(R13)
	MOVL R9, ModelI_minCtx(R13)
	MOVQ $-1, sym+40(FP)
	MOVL $0, f+48(FP)
	RET

icorrupt:
	MOVL SI, RangeDecoder_rng(R10)
	MOVQ $-2, sym+40(FP)
	MOVL $0, f+48(FP)
	RET

inormalize:
	MOVQ $-3, sym+40(FP)
	MOVL $0, f+48(FP)
	RET

iseerow:
	MOVQ $-4, sym+40(FP)
	MOVL $0, f+48(FP)
	RET

izerorange:
	MOVQ $-5, sym+40(FP)
	MOVL $0, f+48(FP)
	RET
