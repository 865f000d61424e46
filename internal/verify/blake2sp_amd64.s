//go:build amd64 && gc && !purego

#include "textflag.h"

// BLAKE2sp's eight BLAKE2s leaves compressed in one pass with AVX2: vector
// register Yi holds the BLAKE2s working word v[i] of all eight leaves, one
// 32-bit lane per leaf. The sixteen Y registers hold the whole working state,
// so each rotation by 12 or 7 borrows one of them, spilled to the stack.
// See blake2sp_amd64.go and blake2spBlocksGeneric.

// Byte shuffles rotating every 32-bit lane right by 16 and by 8.
DATA rot16<>+0(SB)/8, $0x0504070601000302
DATA rot16<>+8(SB)/8, $0x0d0c0f0e09080b0a
DATA rot16<>+16(SB)/8, $0x0504070601000302
DATA rot16<>+24(SB)/8, $0x0d0c0f0e09080b0a
GLOBL rot16<>(SB), RODATA|NOPTR, $32

DATA rot8<>+0(SB)/8, $0x0407060500030201
DATA rot8<>+8(SB)/8, $0x0c0f0e0d080b0a09
DATA rot8<>+16(SB)/8, $0x0407060500030201
DATA rot8<>+24(SB)/8, $0x0c0f0e0d080b0a09
GLOBL rot8<>(SB), RODATA|NOPTR, $32

// The BLAKE2s IV.
DATA iv<>+0(SB)/4, $0x6a09e667
DATA iv<>+4(SB)/4, $0xbb67ae85
DATA iv<>+8(SB)/4, $0x3c6ef372
DATA iv<>+12(SB)/4, $0xa54ff53a
DATA iv<>+16(SB)/4, $0x510e527f
DATA iv<>+20(SB)/4, $0x9b05688c
DATA iv<>+24(SB)/4, $0x1f83d9ab
DATA iv<>+28(SB)/4, $0x5be0cd19
GLOBL iv<>(SB), RODATA|NOPTR, $32

// Stack frame: the transposed message words m[0..15] of the stripe (32 bytes
// each, lane i = word of leaf i), a spill slot and the byte counter.
#define MSG 0
#define SPILL 512
#define COUNT 544

// ROR rotates every lane of x right by n bits, using tmp.
#define ROR(n, x, tmp) \
	VPSRLD $n, x, tmp;     \
	VPSLLD $(32-n), x, x;  \
	VPOR   tmp, x, x

// G4 runs the BLAKE2s G function on four (a, b, c, d) quadruples at once,
// with message words at stack offsets x0..x3 (first) and y0..y3 (second).
// d0 is spilled while it lends itself as scratch to the rotations of b.
#define G4(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3, x0, x1, x2, x3, y0, y1, y2, y3) \
	VPADDD  x0(SP), a0, a0;     \
	VPADDD  x1(SP), a1, a1;     \
	VPADDD  x2(SP), a2, a2;     \
	VPADDD  x3(SP), a3, a3;     \
	VPADDD  b0, a0, a0;         \
	VPADDD  b1, a1, a1;         \
	VPADDD  b2, a2, a2;         \
	VPADDD  b3, a3, a3;         \
	VPXOR   a0, d0, d0;         \
	VPXOR   a1, d1, d1;         \
	VPXOR   a2, d2, d2;         \
	VPXOR   a3, d3, d3;         \
	VPSHUFB rot16<>(SB), d0, d0; \
	VPSHUFB rot16<>(SB), d1, d1; \
	VPSHUFB rot16<>(SB), d2, d2; \
	VPSHUFB rot16<>(SB), d3, d3; \
	VPADDD  d0, c0, c0;         \
	VPADDD  d1, c1, c1;         \
	VPADDD  d2, c2, c2;         \
	VPADDD  d3, c3, c3;         \
	VPXOR   c0, b0, b0;         \
	VPXOR   c1, b1, b1;         \
	VPXOR   c2, b2, b2;         \
	VPXOR   c3, b3, b3;         \
	VMOVDQU d0, SPILL(SP);      \
	ROR(12, b0, d0);            \
	ROR(12, b1, d0);            \
	ROR(12, b2, d0);            \
	ROR(12, b3, d0);            \
	VMOVDQU SPILL(SP), d0;      \
	VPADDD  y0(SP), a0, a0;     \
	VPADDD  y1(SP), a1, a1;     \
	VPADDD  y2(SP), a2, a2;     \
	VPADDD  y3(SP), a3, a3;     \
	VPADDD  b0, a0, a0;         \
	VPADDD  b1, a1, a1;         \
	VPADDD  b2, a2, a2;         \
	VPADDD  b3, a3, a3;         \
	VPXOR   a0, d0, d0;         \
	VPXOR   a1, d1, d1;         \
	VPXOR   a2, d2, d2;         \
	VPXOR   a3, d3, d3;         \
	VPSHUFB rot8<>(SB), d0, d0; \
	VPSHUFB rot8<>(SB), d1, d1; \
	VPSHUFB rot8<>(SB), d2, d2; \
	VPSHUFB rot8<>(SB), d3, d3; \
	VPADDD  d0, c0, c0;         \
	VPADDD  d1, c1, c1;         \
	VPADDD  d2, c2, c2;         \
	VPADDD  d3, c3, c3;         \
	VPXOR   c0, b0, b0;         \
	VPXOR   c1, b1, b1;         \
	VPXOR   c2, b2, b2;         \
	VPXOR   c3, b3, b3;         \
	VMOVDQU d0, SPILL(SP);      \
	ROR(7, b0, d0);             \
	ROR(7, b1, d0);             \
	ROR(7, b2, d0);             \
	ROR(7, b3, d0);             \
	VMOVDQU SPILL(SP), d0

// ROUND is one BLAKE2s round: columns then diagonals; s0..s15 are the stack
// offsets of the message words the round's sigma permutation selects.
#define ROUND(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15) \
	G4(Y0, Y4, Y8, Y12, Y1, Y5, Y9, Y13, Y2, Y6, Y10, Y14, Y3, Y7, Y11, Y15, s0, s2, s4, s6, s1, s3, s5, s7); \
	G4(Y0, Y5, Y10, Y15, Y1, Y6, Y11, Y12, Y2, Y7, Y8, Y13, Y3, Y4, Y9, Y14, s8, s10, s12, s14, s9, s11, s13, s15)

// TRANSPOSE4 loads message words 4g..4g+3 (byte offset off = 16g within each
// 64-byte block) of the eight blocks at SI, transposes them to one vector per
// word and stores them at MSG+32*4g(SP).
#define TRANSPOSE4(off, dst) \
	VMOVDQU     off(SI), X0;          \
	VMOVDQU     (off+64)(SI), X1;     \
	VMOVDQU     (off+128)(SI), X2;    \
	VMOVDQU     (off+192)(SI), X3;    \
	VINSERTI128 $1, (off+256)(SI), Y0, Y0; \
	VINSERTI128 $1, (off+320)(SI), Y1, Y1; \
	VINSERTI128 $1, (off+384)(SI), Y2, Y2; \
	VINSERTI128 $1, (off+448)(SI), Y3, Y3; \
	VPUNPCKLDQ  Y1, Y0, Y4;           \
	VPUNPCKHDQ  Y1, Y0, Y5;           \
	VPUNPCKLDQ  Y3, Y2, Y6;           \
	VPUNPCKHDQ  Y3, Y2, Y7;           \
	VPUNPCKLQDQ Y6, Y4, Y0;           \
	VPUNPCKHQDQ Y6, Y4, Y1;           \
	VPUNPCKLQDQ Y7, Y5, Y2;           \
	VPUNPCKHQDQ Y7, Y5, Y3;           \
	VMOVDQU     Y0, (dst)(SP);        \
	VMOVDQU     Y1, (dst+32)(SP);     \
	VMOVDQU     Y2, (dst+64)(SP);     \
	VMOVDQU     Y3, (dst+96)(SP)

// FINISH folds the working words v[w] (Yw) and v[w+8] (Yw8) into the chaining
// value h[w] of all leaves.
#define FINISH(w, yw, yw8) \
	VPXOR   yw8, yw, yw;      \
	VPXOR   (32*w)(DI), yw, yw; \
	VMOVDQU yw, (32*w)(DI)

// func blake2spBlocksAVX2(h *[8][8]uint32, p []byte, t uint64)
TEXT ·blake2spBlocksAVX2(SB), 0, $552-40
	MOVQ h+0(FP), DI
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ t+32(FP), R8
	SHRQ $9, CX
	JZ   done

loop:
	ADDQ $64, R8
	MOVQ R8, COUNT(SP)

	TRANSPOSE4(0, MSG)
	TRANSPOSE4(16, MSG+128)
	TRANSPOSE4(32, MSG+256)
	TRANSPOSE4(48, MSG+384)

	VMOVDQU      0(DI), Y0
	VMOVDQU      32(DI), Y1
	VMOVDQU      64(DI), Y2
	VMOVDQU      96(DI), Y3
	VMOVDQU      128(DI), Y4
	VMOVDQU      160(DI), Y5
	VMOVDQU      192(DI), Y6
	VMOVDQU      224(DI), Y7
	VPBROADCASTD iv<>+0(SB), Y8
	VPBROADCASTD iv<>+4(SB), Y9
	VPBROADCASTD iv<>+8(SB), Y10
	VPBROADCASTD iv<>+12(SB), Y11
	VPBROADCASTD iv<>+16(SB), Y12
	VPBROADCASTD iv<>+20(SB), Y13
	VPBROADCASTD COUNT(SP), Y14
	VPBROADCASTD (COUNT+4)(SP), Y15
	VPXOR        Y14, Y12, Y12
	VPXOR        Y15, Y13, Y13
	VPBROADCASTD iv<>+24(SB), Y14
	VPBROADCASTD iv<>+28(SB), Y15

	ROUND(0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480)
	ROUND(448, 320, 128, 256, 288, 480, 416, 192, 32, 384, 0, 64, 352, 224, 160, 96)
	ROUND(352, 256, 384, 0, 160, 64, 480, 416, 320, 448, 96, 192, 224, 32, 288, 128)
	ROUND(224, 288, 96, 32, 416, 384, 352, 448, 64, 192, 160, 320, 128, 0, 480, 256)
	ROUND(288, 0, 160, 224, 64, 128, 320, 480, 448, 32, 352, 384, 192, 256, 96, 416)
	ROUND(64, 384, 192, 320, 0, 352, 256, 96, 128, 416, 224, 160, 480, 448, 32, 288)
	ROUND(384, 160, 32, 480, 448, 416, 128, 320, 0, 224, 192, 96, 288, 64, 256, 352)
	ROUND(416, 352, 224, 448, 384, 32, 96, 288, 160, 0, 480, 128, 256, 192, 64, 320)
	ROUND(192, 480, 448, 288, 352, 96, 0, 256, 384, 64, 416, 224, 32, 128, 320, 160)
	ROUND(320, 64, 256, 128, 224, 192, 32, 160, 480, 352, 288, 448, 96, 384, 416, 0)

	FINISH(0, Y0, Y8)
	FINISH(1, Y1, Y9)
	FINISH(2, Y2, Y10)
	FINISH(3, Y3, Y11)
	FINISH(4, Y4, Y12)
	FINISH(5, Y5, Y13)
	FINISH(6, Y6, Y14)
	FINISH(7, Y7, Y15)

	ADDQ $512, SI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
