//go:build amd64 && gc && !purego

#include "textflag.h"

// Adler-32 32 bytes at a time. With s1 and s2 the sums before a block of
// 32 bytes b0 … b31, after it s1 += Σ b and s2 += 32·s1 + Σ (32-i)·b_i.
// Over the n bytes of p, s2 gains n·s1 (the s1 it started with) plus, per
// block, 32 times the bytes summed before that block and the weighted sum
// of the block: Y1 holds the byte sums (VPSADBW, four 64-bit lanes), Y3
// the sum of Y1 before each block, Y2 the weighted sums (VPMADDUBSW by
// 32 … 1 into 16-bit pairs, VPMADDWD by 1 into eight 32-bit lanes). No
// lane can overflow over adlerNMax bytes (173 blocks): Y3's lanes stay
// below 2^25 before the shift by 5, Y2's below 2^23.

DATA adlerWeights<>+0(SB)/8, $0x191a1b1c1d1e1f20
DATA adlerWeights<>+8(SB)/8, $0x1112131415161718
DATA adlerWeights<>+16(SB)/8, $0x090a0b0c0d0e0f10
DATA adlerWeights<>+24(SB)/8, $0x0102030405060708
GLOBL adlerWeights<>(SB), RODATA|NOPTR, $32

DATA adlerOnes<>+0(SB)/8, $0x0001000100010001
DATA adlerOnes<>+8(SB)/8, $0x0001000100010001
DATA adlerOnes<>+16(SB)/8, $0x0001000100010001
DATA adlerOnes<>+24(SB)/8, $0x0001000100010001
GLOBL adlerOnes<>(SB), RODATA|NOPTR, $32

// HSUM adds the eight 32-bit lanes of Y (X its low half) into r, using X4.
#define HSUM(Y, X, r) \
	VEXTRACTI128 $1, Y, X4; \
	VPADDD       X4, X, X; \
	VPSHUFD      $0x4e, X, X4; \
	VPADDD       X4, X, X; \
	VPSHUFD      $0xb1, X, X4; \
	VPADDD       X4, X, X; \
	VMOVD        X, r

// func adler32Asm(s1, s2 uint32, p []byte) (uint32, uint32)
TEXT ·adler32Asm(SB), NOSPLIT, $0-40
	MOVL  s1+0(FP), AX
	MOVL  s2+4(FP), BX
	MOVQ  p_base+8(FP), SI
	MOVQ  p_len+16(FP), CX
	MOVQ  CX, DX
	IMULQ AX, DX
	ADDQ  DX, BX            // s2 += n·s1
	SHRQ  $5, CX
	JZ    done
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y15, Y15, Y15
	VMOVDQU adlerWeights<>(SB), Y14
	VMOVDQU adlerOnes<>(SB), Y13

loop:
	VMOVDQU    (SI), Y0
	VPADDD     Y1, Y3, Y3   // the byte sums before this block
	VPSADBW    Y15, Y0, Y4
	VPADDD     Y4, Y1, Y1
	VPMADDUBSW Y14, Y0, Y5
	VPMADDWD   Y13, Y5, Y5
	VPADDD     Y5, Y2, Y2
	ADDQ       $32, SI
	DECQ       CX
	JNZ        loop

	VPSLLD $5, Y3, Y3
	VPADDD Y3, Y2, Y2
	HSUM(Y1, X1, R8)
	HSUM(Y2, X2, R9)
	ADDL   R8, AX
	ADDL   R9, BX
	VZEROUPPER

done:
	MOVL AX, ret+32(FP)
	MOVL BX, ret1+36(FP)
	RET
