//go:build amd64 && gc && !purego

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

// func sumUnmasked(arr *[maxStatesBytes]byte, last byte, mask *[256]byte) uint32
TEXT ·sumUnmasked(SB), NOSPLIT|NOFRAME, $0-28
	MOVQ    arr+0(FP), SI
	MOVBLZX last+8(FP), CX
	MOVQ    mask+16(FP), DI
	INCL    CX             // n, 1..256 states
	XORL    AX, AX
	XORL    DX, DX
	MOVL    CX, R8
	SHRL    $2, R8         // groups of four
	JZ      sumtail

sumloop:
	MOVBLZX 0(SI), BX
	MOVBLZX (DI)(BX*1), BX
	ANDL    1(SI), BX
	ADDL    BX, AX
	MOVBLZX 6(SI), R9
	MOVBLZX (DI)(R9*1), R9
	ANDL    7(SI), R9
	ADDL    R9, DX
	MOVBLZX 12(SI), R10
	MOVBLZX (DI)(R10*1), R10
	ANDL    13(SI), R10
	ADDL    R10, AX
	MOVBLZX 18(SI), R11
	MOVBLZX (DI)(R11*1), R11
	ANDL    19(SI), R11
	ADDL    R11, DX
	ADDQ    $24, SI
	DECL    R8
	JNZ     sumloop

sumtail:
	// The last n%4 states as a group of three whose lanes past the last
	// state count nothing: no loop exit to mispredict.
	ANDL    $3, CX
	LEAQ    tailLanes<>(SB), R8
	MOVL    (R8)(CX*4), R8
	MOVBLZX 0(SI), BX
	MOVBLZX (DI)(BX*1), BX
	ANDL    1(SI), BX
	ANDL    R8, BX
	ADDL    BX, AX
	SHRL    $8, R8
	MOVBLZX 6(SI), R9
	MOVBLZX (DI)(R9*1), R9
	ANDL    7(SI), R9
	ANDL    R8, R9
	ADDL    R9, DX
	SHRL    $8, R8
	MOVBLZX 12(SI), R10
	MOVBLZX (DI)(R10*1), R10
	ANDL    13(SI), R10
	ANDL    R8, R10
	ADDL    R10, AX
	ADDL    DX, AX
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
	MOVL    CX, R8
	SHRL    $2, R8         // groups of four
	JZ      findtail

findloop:
	MOVBLZX 0(SI), BX
	MOVBLZX (DI)(BX*1), BX
	ANDL    1(SI), BX
	SUBL    BX, DX
	JCS     found0
	MOVBLZX 6(SI), R9
	MOVBLZX (DI)(R9*1), R9
	ANDL    7(SI), R9
	SUBL    R9, DX
	JCS     found6
	MOVBLZX 12(SI), R10
	MOVBLZX (DI)(R10*1), R10
	ANDL    13(SI), R10
	SUBL    R10, DX
	JCS     found12
	MOVBLZX 18(SI), R11
	MOVBLZX (DI)(R11*1), R11
	ANDL    19(SI), R11
	SUBL    R11, DX
	JCS     found18
	ADDQ    $24, SI
	DECL    R8
	JNZ     findloop

findtail:
	MOVL    CX, R8
	ANDL    $3, R8
	JZ      notfound

findtailloop:
	MOVBLZX 0(SI), BX
	MOVBLZX (DI)(BX*1), BX
	ANDL    1(SI), BX
	SUBL    BX, DX
	JCS     found0
	ADDQ    $6, SI
	DECL    R8
	JNZ     findtailloop

notfound:
	// As the Go twin: the offset of the last state when n is odd, else
	// one past it, and the sum of all.
	ANDL    $-2, CX
	LEAQ    (CX)(CX*2), CX
	ADDQ    CX, CX
	MOVQ    CX, off+32(FP)
	MOVL    count+24(FP), AX
	SUBL    DX, AX
	MOVL    AX, acc+40(FP)
	RET

found18:
	ADDQ    $6, SI

found12:
	ADDQ    $6, SI

found6:
	ADDQ    $6, SI

found0:
	SUBQ    R12, SI
	MOVQ    SI, off+32(FP)
	MOVL    count+24(FP), AX
	SUBL    DX, AX         // count - (count - acc), mod 2^32
	MOVL    AX, acc+40(FP)
	RET
